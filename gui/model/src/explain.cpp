#include "pmixflow/view/explain.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/vocab/keys.hpp"

namespace pmixflow::view {

namespace {

using log::EventKind;
using nlohmann::json;

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The parts of docs/flow.md a step illustrates, with why the flow does it that way.
struct Section {
  std::string_view name;
  std::string_view why;
};
constexpr Section kEntry{
    "§2.1 Step A: the request reaches the scheduler",
    "Only the scheduler decides allocations; a request may enter at a daemon, at the controller or "
    "at the scheduler itself, and is relayed unchanged until it reaches it."};
constexpr Section kAttach{"§2.2 Step B: scheduler attachment, from either side",
                          "The RM and the scheduler can each start first; requests that need a scheduler are held or "
                          "refused until one is attached."};
constexpr Section kAnswer{"§2.3 Step C: the answer's way back",
                          "An answer retraces the request's path hop by hop, so that the caller hears from the server "
                          "it called."};
constexpr Section kInstantiate{
    "§2.4 Step D: session instantiation",
    "The RM learns of an allocation only through the scheduler's session control: "
    "PMIX_SESSION_INSTANTIATE creates the session, withholds its nodes and launches its jobs."};
constexpr Section kComplete{"§2.5 Step E: completion",
                            "When the last job of a session ends, the RM reclaims it and tells the scheduler "
                            "PMIX_SESSION_COMPLETE, so that the resources are free again."};
constexpr Section kChange{"§2.6 Changing an allocation",
                          "EXTEND, RELEASE and REQ_CANCEL go to the scheduler like any request; the scheduler orders "
                          "the RM through session control."};
constexpr Section kControl{"§2.7 Session control, operation by operation",
                           "A requestor's PMIx_Session_control reaches the scheduler, which decides; the RM carries "
                           "out the order session by session."};
constexpr Section kActivate{"§2.8 PMIX_ALLOC_ACTIVATE: answered by the RM itself",
                            "Activation concerns nodes the requestor already holds: the RM starts daemons there "
                            "without asking the scheduler."};
constexpr Section kDvm{"§2.9 The DVM versus the allocation",
                       "A node can be allocated without a daemon, or run a daemon without being allocated: the DVM "
                       "and the allocations are separate things."};
constexpr Section kSpawn{"§2.10 PMIx_Spawn with PMIX_SPAWN_ALLOC",
                         "A spawn can carry its allocation request: the allocation is granted first, then the job "
                         "is launched on what was granted."};
constexpr Section kMessage{"§1.2 The whole flow in one picture",
                           "Every hop is a message between two parties; the log records each one where it leaves "
                           "and where it arrives."};

// A message is explained by what it carries.
const Section& section_of_message(std::string_view msg) {
  if (msg.starts_with("spawn")) return kSpawn;
  if (msg.starts_with("session_ctrl")) return kControl;
  if (msg == "alloc_response") return kAnswer;
  if (msg == "alloc_request") return kEntry;
  return kMessage;
}

const Section& section_of(EventKind k, std::string_view msg) {
  if (k == EventKind::Send || k == EventKind::Recv) return section_of_message(msg);
  switch (k) {
    case EventKind::Call:
    case EventKind::AllocRelay:
    case EventKind::RequestForward:
    case EventKind::AllocDecide:
    case EventKind::AllocQueued: return kEntry;
    case EventKind::SchedulerAttached:
    case EventKind::SchedulerAbsent:
    case EventKind::SchedulerDetached:
    case EventKind::RequestHeld:
    case EventKind::RequestRefused:
    case EventKind::AllocStandalone:
    case EventKind::RmAbsent:
    case EventKind::RmLost:
    case EventKind::SchedulerUp: return kAttach;
    case EventKind::Answer:
    case EventKind::AnswerReturn:
    case EventKind::AllocAnswer: return kAnswer;
    case EventKind::AllocGrant:
    case EventKind::SessionCtrlExecute:
    case EventKind::SessionInstantiate:
    case EventKind::AllocInstantiated:
    case EventKind::JobLaunch:
    case EventKind::JobStart:
    case EventKind::JobFenced: return kInstantiate;
    case EventKind::JobEnd:
    case EventKind::SessionReclaimed:
    case EventKind::SessionComplete:
    case EventKind::SessionCompleted:
    case EventKind::SessionTimeout: return kComplete;
    case EventKind::AllocExtend:
    case EventKind::AllocExtended:
    case EventKind::AllocCancelled:
    case EventKind::AllocDropped:
    case EventKind::SessionExtend: return kChange;
    case EventKind::SessionCtrlRelay:
    case EventKind::SessionCtrlDecide:
    case EventKind::SessionCtrlAnswer:
    case EventKind::SessionTerminate:
    case EventKind::SessionDependentEnd:
    case EventKind::SessionSep:
    case EventKind::JobSuspend:
    case EventKind::JobContinue:
    case EventKind::JobSignal:
    case EventKind::AllocPreempt:
    case EventKind::AllocPreemptRefused:
    case EventKind::AllocRequeued: return kControl;
    case EventKind::Activate:
    case EventKind::ActivateRefused:
    case EventKind::DvmGrow:
    case EventKind::DvmReady: return kActivate;
    case EventKind::SpawnRelay: return kSpawn;
    default: break;
  }
  const auto name = log::spec(k).name;
  if (name.starts_with("spawn")) return kSpawn;
  return kDvm;
}

std::string field(const json& line, const char* key) {
  const auto it = line.find(key);
  return it == line.end() ? std::string() : value_text(*it);
}

std::string headline(EventKind k, const json& line) {
  const auto who = field(line, "who");
  switch (k) {
    case EventKind::Send: return who + " sends " + field(line, "msg") + " to " + field(line, "to");
    case EventKind::Recv: return who + " receives " + field(line, "msg") + " from " + field(line, "from");
    case EventKind::Call: return who + " calls " + field(line, "what") + " through " + field(line, "via");
    case EventKind::Answer: return who + " gets its answer: " + field(line, "status");
    case EventKind::AnswerReturn:
    case EventKind::AllocAnswer: return who + " answers " + field(line, "to") + ": " + field(line, "status");
    default: return who + ": " + std::string(log::spec(k).name);
  }
}

}  // namespace

std::vector<Attribute> attributes(std::string_view info_json) {
  std::vector<Attribute> out;
  const auto list = json::parse(info_json, nullptr, false);
  if (!list.is_array()) return out;
  for (const auto& pair : list) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) continue;
    const auto key = pair[0].get<std::string>();
    const auto known = find_key(key);
    out.push_back(Attribute{known ? std::string(known->name) : key, key, value_text(pair[1])});
  }
  return out;
}

Caption caption(const RunModel& model, std::size_t event) {
  const auto& row = model.events()[event];
  const auto line = json::parse(model.line_text(event), nullptr, false);
  if (!line.is_object())
    return Caption{std::string(log::spec(row.kind).name), "(the line could not be read again)", ""};
  const auto& section = section_of(row.kind, field(line, "msg"));
  std::string text = std::string(log::spec(row.kind).meaning);
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  text += ". ";
  text += section.why;
  return Caption{headline(row.kind, line), std::move(text), "docs/flow.md " + std::string(section.name)};
}

std::vector<std::uint32_t> request_steps(const RunModel& model, std::uint32_t request) {
  if (request >= model.requests().size()) return {};
  return model.requests()[request].events;
}

std::vector<std::uint32_t> session_steps(const RunModel& model, std::uint32_t session) {
  if (session >= model.sessions().size()) return {};
  const auto& s = model.sessions()[session];
  const auto corr = model.find_request(s.corr);
  std::vector<std::uint32_t> out;
  const auto events = model.events();
  for (std::uint32_t i = 0; i < events.size(); ++i)
    if (events[i].session == s.id || (corr && events[i].request == *corr)) out.push_back(i);
  return out;
}

}  // namespace pmixflow::view
