#include "pmixflow/results/invariants.hpp"

#include <map>
#include <set>

#include "pmixflow/log/reader.hpp"
#include "pmixflow/results/ledger.hpp"

namespace pmixflow {
namespace {

using log::EventKind;
using log::Field;

struct SessionState {
  std::string corr;
  bool reclaimed = false;
  std::size_t completes = 0;
  bool complete_before_reclaim = false;
};

class Checker {
 public:
  void apply(const log::EventView& e);
  InvariantReport finish(const log::LogReader& reader);

 private:
  CallLedger calls_;              // what each requestor asked, and was answered
  std::set<std::string> queued_;  // calls waiting in the scheduler's queue, by corr
  std::map<std::uint32_t, SessionState> sessions_;
  bool rm_gone_ = false;  // the scheduler lost its RM and has not found it again
};

std::string field_text(const log::EventView& e, Field f) { return std::string(e.str(f).value_or("")); }

void Checker::apply(const log::EventView& e) {
  if (CallLedger::kinds().test(static_cast<std::size_t>(e.kind))) calls_.apply(e);
  switch (e.kind) {
    case EventKind::PartyDown:
      // The DVM goes with its controller: no session outlives it.
      if (e.who == "controller")
        for (auto& [id, session] : sessions_) session.reclaimed = true;
      break;
    case EventKind::AllocQueued: queued_.insert(field_text(e, Field::corr)); break;
    case EventKind::AllocGrant:
    case EventKind::AllocDropped:
    case EventKind::AllocAnswer: queued_.erase(field_text(e, Field::corr)); break;
    case EventKind::RmLost:
    case EventKind::RmAbsent: rm_gone_ = true; break;
    case EventKind::SchedulerAttached:
      if (e.who == "scheduler") rm_gone_ = false;
      break;
    case EventKind::SessionInstantiate:
      sessions_[static_cast<std::uint32_t>(e.uint(Field::session).value_or(0))].corr = field_text(e, Field::corr);
      break;
    case EventKind::SessionReclaimed:
      sessions_[static_cast<std::uint32_t>(e.uint(Field::session).value_or(0))].reclaimed = true;
      break;
    case EventKind::SessionComplete: {
      SessionState& s = sessions_[static_cast<std::uint32_t>(e.uint(Field::session).value_or(0))];
      ++s.completes;
      if (!s.reclaimed) s.complete_before_reclaim = true;
      break;
    }
    default: break;
  }
}

InvariantReport Checker::finish(const log::LogReader& reader) {
  InvariantReport r;
  r.calls = calls_.calls().size();
  r.sessions = sessions_.size();
  for (const CallRecord& c : calls_.calls()) {
    if (c.answers > 1) r.breaches.push_back("call " + c.corr + " was answered " + std::to_string(c.answers) + " times");
    if (c.answered || c.caller_gone) continue;
    if (queued_.count(c.corr) && rm_gone_)
      r.waiting_for_rm.push_back(c.corr);
    else
      r.breaches.push_back("call " + c.corr + " was never answered");
  }
  for (const auto& [id, s] : sessions_) {
    const std::string name = "session " + std::to_string(id);
    if (s.completes > 1)
      r.breaches.push_back(name + " was reported complete " + std::to_string(s.completes) + " times");
    if (s.complete_before_reclaim) r.breaches.push_back(name + " was reported complete before it was reclaimed");
    if (s.reclaimed) continue;
    const CallRecord* call = calls_.find(s.corr);
    if (!call) continue;  // not a requestor's call (a scheduler's own, a trace job's)
    if (call->caller_gone)
      r.breaches.push_back(name + " is still held for call " + s.corr + ", whose requestor exited before its answer");
    else if (call->answered && call->status != Status::Success)
      r.breaches.push_back(name + " is still held for call " + s.corr + ", which was answered " +
                           status_name(call->status));
  }
  if (!reader.complete())
    r.breaches.push_back(reader.problem()
                             ? "the log cannot be read past line " + std::to_string(reader.last_good_line())
                             : "the log has no closing line: the run did not end");
  return r;
}

}  // namespace

InvariantReport check_invariants(const std::string& path) {
  log::LogReader reader(path);
  reader.only(
      CallLedger::kinds() |
      log::kind_set({EventKind::SessionInstantiate, EventKind::SessionReclaimed, EventKind::SessionComplete,
                     EventKind::AllocQueued, EventKind::AllocGrant, EventKind::AllocDropped, EventKind::AllocAnswer,
                     EventKind::RmLost, EventKind::RmAbsent, EventKind::SchedulerAttached, EventKind::LogEnd}));
  Checker checker;
  while (const log::EventView* e = reader.next()) checker.apply(*e);
  return checker.finish(reader);
}

}  // namespace pmixflow
