#include "pmixflow/results/invariants.hpp"

#include <algorithm>
#include <map>
#include <optional>
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
  bool instantiated = false;
  bool bounded = false;  // it has a time limit, so the RM's timer ends it if nothing else does
  std::size_t completes = 0;
  bool complete_before_reclaim = false;
};

class Checker {
 public:
  void apply(const log::EventView& e, std::uint64_t line);
  InvariantReport finish(const log::LogReader& reader);

 private:
  void follow_session(const log::EventView& e);
  void check_sessions(InvariantReport& r) const;

  CallLedger calls_;              // what each requestor asked, and was answered
  std::set<std::string> queued_;  // calls waiting in the scheduler's queue, by corr
  std::map<std::uint32_t, SessionState> sessions_;
  bool rm_gone_ = false;                     // the scheduler lost its RM and has not found it again
  double last_t_ = 0;                        // the time of the line above
  std::optional<std::string> out_of_order_;  // the first line earlier than the one above it
  bool quiescent_ = false;                   // the closing line says nothing was left in flight
  bool controller_gone_ = false;             // its sessions went with it, never to complete
};

std::string field_text(const log::EventView& e, Field f) { return std::string(e.str(f).value_or("")); }

void Checker::apply(const log::EventView& e, std::uint64_t line) {
  if (e.t < last_t_ && !out_of_order_)
    out_of_order_ = "line " + std::to_string(line) + " (t=" + std::to_string(e.t) +
                    ") is earlier than the line above it (t=" + std::to_string(last_t_) +
                    "): the log is out of time order";
  last_t_ = std::max(last_t_, e.t);
  if (CallLedger::kinds().test(static_cast<std::size_t>(e.kind))) calls_.apply(e);
  switch (e.kind) {
    case EventKind::PartyDown:
      // The DVM goes with its controller: no session outlives it.
      if (e.who == "controller") {
        for (auto& [id, session] : sessions_) session.reclaimed = true;
        controller_gone_ = true;
      }
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
    case EventKind::SessionReclaimed:
    case EventKind::SessionComplete: follow_session(e); break;
    case EventKind::LogEnd: quiescent_ = field_text(e, Field::end) == "quiescent"; break;
    default: break;
  }
}

void Checker::follow_session(const log::EventView& e) {
  SessionState& s = sessions_[static_cast<std::uint32_t>(e.uint(Field::session).value_or(0))];
  if (e.kind == EventKind::SessionInstantiate) {
    s.corr = field_text(e, Field::corr);
    s.instantiated = true;
    s.bounded = e.num(Field::time_limit).value_or(0) > 0;
  } else if (e.kind == EventKind::SessionReclaimed) {
    s.reclaimed = true;
  } else {
    ++s.completes;
    if (!s.reclaimed) s.complete_before_reclaim = true;
  }
}

void Checker::check_sessions(InvariantReport& r) const {
  for (const auto& [id, s] : sessions_) {
    const std::string name = "session " + std::to_string(id);
    if (s.completes > 1)
      r.breaches.push_back(name + " was reported complete " + std::to_string(s.completes) + " times");
    if (s.complete_before_reclaim) r.breaches.push_back(name + " was reported complete before it was reclaimed");
    // Nothing in flight and no timer armed at the end: every session with a time limit has
    // ended and said so (one without may be held for good: a standing reservation).
    if (quiescent_ && !controller_gone_ && s.instantiated && s.bounded && s.completes == 0)
      r.breaches.push_back(name + " was never reported complete, though the run ended quiescent");
    if (s.reclaimed) continue;
    const CallRecord* call = calls_.find(s.corr);
    if (!call) continue;  // not a requestor's call (a scheduler's own, a trace job's)
    if (call->caller_gone)
      r.breaches.push_back(name + " is still held for call " + s.corr + ", whose requestor exited before its answer");
    else if (call->answered && call->status != Status::Success)
      r.breaches.push_back(name + " is still held for call " + s.corr + ", which was answered " +
                           status_name(call->status));
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
    else if (queued_.count(c.corr) && quiescent_)
      r.waiting_for_resources.push_back(c.corr);
    else
      r.breaches.push_back("call " + c.corr + " was never answered");
  }
  check_sessions(r);
  if (out_of_order_) r.breaches.push_back(*out_of_order_);
  if (!reader.complete())
    r.breaches.push_back(reader.problem()
                             ? "the log cannot be read past line " + std::to_string(reader.last_good_line())
                             : "the log has no closing line: the run did not end");
  return r;
}

}  // namespace

InvariantReport check_invariants(const std::string& path) {
  log::LogReader reader(path);
  Checker checker;
  while (const log::EventView* e = reader.next()) checker.apply(*e, reader.line());
  return checker.finish(reader);
}

}  // namespace pmixflow
