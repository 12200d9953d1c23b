#include "pmixflow/results/flow_outcomes.hpp"

#include <filesystem>
#include <set>

#include "pmixflow/log/reader.hpp"
#include "pmixflow/log/run_files.hpp"
#include "pmixflow/results/report.hpp"

namespace pmixflow {
namespace {

using log::EventKind;
using log::EventView;
using log::Field;

std::string str(const EventView& e, Field f) { return std::string(e.str(f).value_or("")); }
std::string num(const EventView& e, Field f) { return std::to_string(e.uint(f).value_or(0)); }
std::string status(const EventView& e, Field f) {
  const auto s = e.status(f);
  return s ? status_name(*s) : std::string("?");
}

// The keys of an answer's info that name what was given; the rest (a node list, say) is the
// session's story.
std::string answer_of(const EventView& e) {
  std::string out = status(e, Field::status);
  const auto info = e.json(Field::info);
  if (!info) return out;
  for (const auto& [key, label] :
       {std::pair{"\"pmix.alloc.id\",", "alloc="}, std::pair{"\"pmix.session.id\",", "session="},
        std::pair{"\"pmix.nspace\",", "nspace="}}) {
    const auto at = info->find(key);
    if (at == std::string_view::npos) continue;
    const auto from = at + std::string_view(key).size();
    const auto end = info->find(']', from);
    std::string value(info->substr(from, end - from));
    std::erase(value, '"');
    out += std::string(" ") + label + value;
  }
  return out;
}

std::string session_change(const EventView& e) {
  switch (e.kind) {
    case EventKind::SessionInstantiate:
      return "instantiate by " + str(e, Field::by) + " on " + str(e, Field::node_list) +
             (e.flag(Field::with_apps).value_or(false) ? " with apps" : "");
    case EventKind::SessionExtend: return "extend to " + num(e, Field::num_nodes) + " nodes";
    case EventKind::SessionSep: return std::string("sep ") + (e.flag(Field::sep).value_or(false) ? "true" : "false");
    case EventKind::SessionTimeout: return "timeout";
    case EventKind::SessionTerminate: return "terminate " + status(e, Field::reason);
    case EventKind::SessionDependentEnd: return "dependent end";
    case EventKind::SessionReclaimed: return "reclaimed to " + str(e, Field::nodes_to);
    case EventKind::SessionComplete: return "complete";
    default: return {};
  }
}

std::string job_change(const EventView& e) {
  switch (e.kind) {
    case EventKind::JobLaunch: return "launch " + str(e, Field::rank_map);
    case EventKind::JobLaunchFailed: return "launch failed on " + str(e, Field::node) + " " + status(e, Field::status);
    case EventKind::JobStart: return "start";
    case EventKind::JobSuspend: return "suspend";
    case EventKind::JobContinue: return "continue";
    case EventKind::JobSignal:
      return "signal " + std::to_string(e.sint(Field::signal).value_or(e.uint(Field::signal).value_or(0)));
    case EventKind::JobEnd: return "end " + status(e, Field::status);
    default: return {};
  }
}

log::KindSet outcome_kinds() {
  return log::kind_set({EventKind::Answer, EventKind::SessionInstantiate, EventKind::SessionExtend,
                        EventKind::SessionSep, EventKind::SessionTimeout, EventKind::SessionTerminate,
                        EventKind::SessionDependentEnd, EventKind::SessionReclaimed, EventKind::SessionComplete,
                        EventKind::JobLaunch, EventKind::JobLaunchFailed, EventKind::JobStart, EventKind::JobSuspend,
                        EventKind::JobContinue, EventKind::JobSignal, EventKind::JobEnd, EventKind::LogEnd});
}

void fold(FlowOutcomes& o, const EventView& e) {
  if (e.kind == EventKind::Answer) {
    o.answers[str(e, Field::corr)] = answer_of(e);
    return;
  }
  if (std::string s = session_change(e); !s.empty()) {
    o.sessions["session " + num(e, Field::session)].push_back(std::move(s));
    return;
  }
  if (std::string j = job_change(e); !j.empty()) o.jobs[str(e, Field::nspace)].push_back(std::move(j));
}

std::string joined(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out + "]";
}

template <class Map, class Show>
void compare(std::vector<std::string>& out, const std::string& what, const Map& a, const Map& b, Show show) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& k : keys) {
    const auto ia = a.find(k), ib = b.find(k);
    if (ia != a.end() && ib != b.end() && ia->second == ib->second) continue;
    out.push_back(what + k + ": A " + (ia == a.end() ? "has none" : "has " + show(ia->second)) + ", B " +
                  (ib == b.end() ? "has none" : "has " + show(ib->second)));
  }
}

}  // namespace

FlowOutcomes flow_outcomes(const std::string& path) {
  const std::string file = log::run_log_path(path);
  FlowOutcomes o;
  {
    log::LogReader reader(file, log::ReadOptions{outcome_kinds(), false});
    while (const EventView* e = reader.next()) fold(o, *e);
    reader.check_whole(false);
  }
  // What the scenario itself says must hold, as the report checks it from the same log.
  const Report report = report_from_log(file, {});
  std::string_view rest = report.failures_text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const auto line = rest.substr(0, nl);
    if (!line.empty()) o.unmet.emplace_back(line);
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return o;
}

std::string to_text(const FlowOutcomes& o) {
  std::string out;
  for (const auto& [corr, a] : o.answers) out += "call " + corr + ": " + a + "\n";
  for (const auto& [s, changes] : o.sessions) out += s + ": " + joined(changes) + "\n";
  for (const auto& [j, changes] : o.jobs) out += "job " + j + ": " + joined(changes) + "\n";
  for (const auto& u : o.unmet) out += "unmet: " + u + "\n";
  return out;
}

std::vector<std::string> outcome_differences(const FlowOutcomes& a, const FlowOutcomes& b) {
  std::vector<std::string> out;
  compare(out, "call ", a.answers, b.answers, [](const std::string& s) { return s; });
  compare(out, "", a.sessions, b.sessions, joined);
  compare(out, "job ", a.jobs, b.jobs, joined);
  if (a.unmet != b.unmet) out.push_back("unmet expectations: A " + joined(a.unmet) + ", B " + joined(b.unmet));
  return out;
}

}  // namespace pmixflow
