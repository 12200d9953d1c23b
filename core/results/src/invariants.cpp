#include "pmixflow/results/invariants.hpp"

#include <map>
#include <optional>

#include "pmixflow/log/reader.hpp"

namespace pmixflow {
namespace {

using log::EventKind;
using log::Field;

struct CallState {
  std::string requestor;
  std::size_t answers = 0;
  std::optional<Status> status;  // the first answer's
  bool caller_gone = false;      // the requestor exited before any answer
  bool queued = false;           // waiting in the scheduler's queue
};

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
  std::map<std::string, CallState> calls_;  // by corr
  std::map<std::uint32_t, SessionState> sessions_;
  std::vector<std::string> breaches_;
  bool rm_gone_ = false;  // the scheduler lost its RM and has not found it again
};

std::string field_text(const log::EventView& e, Field f) { return std::string(e.str(f).value_or("")); }

void Checker::apply(const log::EventView& e) {
  switch (e.kind) {
    case EventKind::Call: calls_[field_text(e, Field::corr)].requestor = std::string(e.who); break;
    case EventKind::Answer: {
      CallState& c = calls_[field_text(e, Field::corr)];
      if (++c.answers == 1) c.status = e.status(Field::status);
      if (c.answers == 2) breaches_.push_back("call " + field_text(e, Field::corr) + " was answered twice");
      break;
    }
    case EventKind::PartyDown:
      for (auto& [corr, c] : calls_)
        if (c.requestor == e.who && c.answers == 0) c.caller_gone = true;
      // The DVM goes with its controller: no session outlives it.
      if (e.who == "controller")
        for (auto& [id, session] : sessions_) session.reclaimed = true;
      break;
    case EventKind::AllocQueued: calls_[field_text(e, Field::corr)].queued = true; break;
    case EventKind::AllocGrant:
    case EventKind::AllocDropped:
    case EventKind::AllocAnswer: calls_[field_text(e, Field::corr)].queued = false; break;
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
  r.breaches = std::move(breaches_);
  r.calls = calls_.size();
  r.sessions = sessions_.size();
  for (const auto& [corr, c] : calls_) {
    if (c.answers > 0 || c.caller_gone || c.requestor.empty()) continue;
    if (c.queued && rm_gone_)
      r.waiting_for_rm.push_back(corr);
    else
      r.breaches.push_back("call " + corr + " was never answered");
  }
  for (const auto& [id, s] : sessions_) {
    const std::string name = "session " + std::to_string(id);
    if (s.completes > 1)
      r.breaches.push_back(name + " was reported complete " + std::to_string(s.completes) + " times");
    if (s.complete_before_reclaim) r.breaches.push_back(name + " was reported complete before it was reclaimed");
    if (s.reclaimed) continue;
    const auto call = calls_.find(s.corr);
    if (call == calls_.end()) continue;  // not a requestor's call (a scheduler's own, a trace job's)
    if (call->second.caller_gone)
      r.breaches.push_back(name + " is still held for call " + s.corr + ", whose requestor exited before its answer");
    else if (call->second.status && *call->second.status != Status::Success)
      r.breaches.push_back(name + " is still held for call " + s.corr + ", which was answered " +
                           status_name(*call->second.status));
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
  reader.only(log::kind_set({EventKind::Call, EventKind::Answer, EventKind::PartyDown, EventKind::SessionInstantiate,
                             EventKind::SessionReclaimed, EventKind::SessionComplete, EventKind::AllocQueued,
                             EventKind::AllocGrant, EventKind::AllocDropped, EventKind::AllocAnswer, EventKind::RmLost,
                             EventKind::RmAbsent, EventKind::SchedulerAttached, EventKind::LogEnd}));
  Checker checker;
  while (const log::EventView* e = reader.next()) checker.apply(*e);
  return checker.finish(reader);
}

}  // namespace pmixflow
