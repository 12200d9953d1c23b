// PMIx_Session_control carried out (FLOW.md §4): the operation parsed and checked, the
// sessions it acts on, and what it does to each.
#include <algorithm>

#include "pmixflow/roles/controller/sessions.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {
namespace {

bool holds(const std::vector<std::string>& jobs, const std::string& nspace) {
  return std::find(jobs.begin(), jobs.end(), nspace) != jobs.end();
}

// Jobs were named and none of them is here (PRRTE's session_signal(): NOT_FOUND only then).
bool names_none_of(const std::vector<std::string>& named, const std::vector<std::string>& jobs) {
  return !named.empty() && std::none_of(named.begin(), named.end(), [&](const auto& ns) { return holds(jobs, ns); });
}

}  // namespace

void Sessions::execute(const Origin& origin, SessionCtrlRequest&& req, bool by_scheduler) {
  const ParsedSessionCtrl parsed = parse_session_ctrl(req.directives);
  if (env_.wants<ev::SessionCtrlExecute>())
    env_.log(ev::SessionCtrlExecute{.corr = req.corr,
                                    .session = req.session_id,
                                    .ops = parsed.names,
                                    .by = env_.name_of(origin.address),
                                    .decided_by = by_scheduler ? "scheduler" : "controller"});
  if (const auto* refused = std::get_if<Status>(&parsed.result)) return replies_.session_ctrl(origin, *refused);
  const auto& op = std::get<SessionOperation>(parsed.result);
  const SessionCaller caller = caller_of(req.caller, req.directives, by_scheduler);
  if (op.verb == SessionOp::Instantiate) {
    Status st = may_instantiate(caller, req.session_id);
    if (st == Status::Success) st = instantiate(origin, req.caller, req.session_id, req.directives);
    if (st != Status::Success) replies_.session_ctrl(origin, st);
    return;
  }
  // A scheduler acting for someone names them: the order may do only what they may (PRRTE's
  // parse_directives() takes the PMIX_REQUESTOR as the caller). Anyone else naming one is not
  // believed (caller_of()). The order's credentials are the scheduler's, so the named one is
  // judged by namespace and jobs, not by a user id it did not prove.
  const Proc* for_whom = by_scheduler ? req.directives.get<Proc>(key::REQUESTOR) : nullptr;
  const auto ids = targets(origin, req, for_whom ? caller_of(*for_whom, InfoList{}, false) : caller, op);
  if (!ids) return;
  // Answered at once, a TERMINATE too (PRRTE's apply_to_session()): the session is reclaimed,
  // and the scheduler told, once its last job has gone.
  // Across several sessions the last failure is the answer, the others stay acted on; a success
  // says which session it was (the last, for every session) (PRRTE's apply_to_all()).
  Status result = Status::Success;
  const auto* given_ctrl_id = req.directives.get<std::string>(key::SESSION_CTRL_ID);
  const std::string_view ctrl_id = given_ctrl_id ? std::string_view(*given_ctrl_id) : std::string_view{};
  InfoList response = session_ctrl_response(ctrl_id, nullptr);
  for (std::uint32_t id : *ids) {
    Session* s = find(id);
    if (!s) continue;  // ended by an earlier target (tied to a job that ended)
    // Across several sessions a named job need only be in one of them; each session acts on
    // the named jobs it has.
    std::vector<std::string> jobs = op.named;
    if (req.session_id == kAllSessions) std::erase_if(jobs, [&](const auto& ns) { return !holds(s->live_jobs, ns); });
    // Named before it is acted on: a signal that ends its last unlaunched job reclaims it.
    InfoList acted_on = session_ctrl_response(ctrl_id, s);
    const Status st = apply(*s, op, jobs, req.directives);
    if (st != Status::Success) {
      result = st;
      continue;
    }
    if (Session* still = find(id)) remember_stop(*still, op, req);
    if (op.verb != SessionOp::Terminate) response = std::move(acted_on);
  }
  replies_.session_ctrl(origin, result, result == Status::Success ? std::move(response) : InfoList{});
}

SessionCaller Sessions::caller_of(const Proc& proc, const InfoList& info, bool scheduler) const {
  const bool application = jobs_.has(proc.nspace);
  return SessionCaller{scheduler, principal_of(proc, info), application, jobs_.session_of(proc)};
}

std::optional<std::vector<std::uint32_t>> Sessions::targets(const Origin& origin, const SessionCtrlRequest& req,
                                                            const SessionCaller& caller, const SessionOperation& op) {
  // One session, or (UINT32_MAX) every session the caller controls.
  std::vector<std::uint32_t> ids;
  if (req.session_id == kAllSessions) {
    for (const auto& [id, s] : sessions_)
      if (owns(caller, s.owner, id)) ids.push_back(id);
    // None to act on, or none holding a job the call names (PRRTE's apply_to_all() answers
    // for the last session it walks: docs/prrte-conformance.md).
    const auto holds_named = [&](std::uint32_t id) {
      return std::any_of(op.named.begin(), op.named.end(),
                         [&](const auto& ns) { return holds(sessions_.at(id).live_jobs, ns); });
    };
    if (ids.empty() || (!op.named.empty() && std::none_of(ids.begin(), ids.end(), holds_named))) {
      replies_.session_ctrl(origin, Status::ErrNotFound);
      return std::nullopt;
    }
    return ids;
  }
  const Session* s = find(req.session_id);
  const Status st = !s ? Status::ErrNotFound : may_act_on(caller, s->owner, s->id);
  if (st != Status::Success) {
    replies_.session_ctrl(origin, st);
    return std::nullopt;
  }
  ids.push_back(req.session_id);
  return ids;
}

Status Sessions::apply(Session& s, const SessionOperation& op, const std::vector<std::string>& jobs,
                       const InfoList& d) {
  if (op.sep) {
    s.sep = *op.sep;
    env_.log(ev::SessionSep{.session = s.id, .sep = *s.sep});
  }
  const bool names_jobs =
      op.verb == SessionOp::Preempt || op.verb == SessionOp::Restore || op.verb == SessionOp::Signal;
  if (names_jobs && !op.named.empty() && jobs.empty()) return Status::Success;  // none of the named jobs is here
  switch (op.verb) {
    case SessionOp::Pause:
    case SessionOp::Resume: return stop_jobs(s, {}, op.verb);
    case SessionOp::Preempt:
    case SessionOp::Restore: return stop_jobs(s, jobs, op.verb);
    case SessionOp::Signal: return signal_jobs(s, jobs, static_cast<int>(op.signal.value_or(0)));
    case SessionOp::Extend: return extend(s, d);
    case SessionOp::Terminate: return terminate(s, Status::ErrJobKilledByCmd);
    // What the RM sends, never takes: PRRTE alone knows when the jobs are done.
    case SessionOp::Complete: return Status::ErrNotSupported;
    case SessionOp::Instantiate: return Status::ErrExists;  // not reached: instantiated above
    case SessionOp::Sep: return Status::Success;
  }
  return Status::Success;
}

Status Sessions::stop_jobs(Session& s, const std::vector<std::string>& named, SessionOp verb) {
  // PAUSE/RESUME act on every job; PREEMPT/RESTORE on the named ones (all if none named), and
  // refuse only when none of those named is here. One suspended state, as PRRTE's
  // session_signal(): RESUME continues a preempted job and RESTORE a paused one. Preemption
  // suspends and keeps the resources: without checkpointing, RESTORE could not be honoured
  // otherwise (the deliberate deviation of FLOW.md §4).
  if (names_none_of(named, s.live_jobs)) return Status::ErrNotFound;
  const bool suspend = verb == SessionOp::Pause || verb == SessionOp::Preempt;
  for (const auto& ns : s.live_jobs)
    if (named.empty() || holds(named, ns)) jobs_.set_suspended(*jobs_.find(ns), suspend, verb);
  return Status::Success;
}

Status Sessions::signal_jobs(Session& s, const std::vector<std::string>& named, int signal) {
  if (names_none_of(named, s.live_jobs)) return Status::ErrNotFound;
  std::vector<std::string> doomed;
  for (const auto& ns : s.live_jobs) {
    if (!named.empty() && !holds(named, ns)) continue;
    const Job& job = *jobs_.find(ns);
    env_.log(ev::JobSignal{.nspace = ns, .session = s.id, .signal = signal});
    if (job.state == JobState::Fenced) {
      // Its processes do not exist yet: a terminating signal ends it before it launches,
      // any other has nobody to reach.
      if (signal == kSigHup || signal == kSigInt || signal == kSigKill || signal == kSigTerm) doomed.push_back(ns);
      continue;
    }
    jobs_.signal(job, signal);
  }
  // Ending a job may reclaim the session: nothing of `s` is used after this.
  for (const auto& ns : doomed) jobs_.end_unlaunched(*jobs_.find(ns), Status::ErrJobAbortedBySig);
  return Status::Success;
}

Status Sessions::extend(Session& s, const InfoList& directives) {
  // The keys beside the directive and those inside PMIX_SESSION_RESOURCES alike, every node list
  // added (PRRTE's parse_directives() and scan_resources() read both into one request).
  const InfoList d = resource_keys(directives);
  bool changed = false;
  try {
    for (const auto& item : d.items) {
      if (item.key != key::ALLOC_NODE_LIST) continue;
      const auto added = parse_node_slots(std::get<std::string>(item.value), cluster_);
      if (!added) return Status::ErrBadParam;
      add_nodes(s, *added);
      changed = changed || !added->empty();
    }
    // A new limit counts from now: EXTEND re-arms it, whatever time the session has used
    // (PRRTE's session_extend() re-arms its timer with the value; docs/time-limits.md). The
    // same value again is a change: the session gets that long again. 0 removes the limit.
    std::optional<double> limit = read_alloc_time(d);
    if (auto t = d.get_uint(key::TIMEOUT)) limit = static_cast<double>(*t);
    if (limit) {
      s.time_limit = *limit;
      s.started = env_.now();
      arm_limit(s);
      changed = true;
    }
  } catch (const InputError&) {
    return Status::ErrBadParam;
  }
  // An inheritance given is a change even when it is the one the session has (PRRTE records it).
  if (auto inh = d.get_uint(key::ALLOC_INHERITANCE); inh && *inh >= 1 && *inh <= 4) {
    s.inheritance = static_cast<Inheritance>(*inh);
    changed = true;
  }
  if (!changed) return Status::ErrBadParam;  // an extend that changes nothing is an error
  env_.log(ev::SessionExtend{.session = s.id, .corr = s.corr, .time_limit = s.time_limit, .num_nodes = s.nodes.size()});
  return Status::Success;
}

void Sessions::add_nodes(Session& s, const SlotList& added, const std::string& corr) {
  for (NodeId n : merge_slots(s.nodes, added)) dvm_.withhold(n, s.id);
  for (const auto& entry : added) dvm_.log_node(entry.first);
  dvm_.grow(added, s.alloc_id, corr.empty() ? s.corr : corr, s.req_id, GrowRequester::session(s.requester));
}

void Sessions::drop_node(NodeId n) {
  for (const std::uint32_t id : dvm_.node(n).sessions)
    if (Session* s = find(id)) std::erase_if(s->nodes, [n](const auto& entry) { return entry.first == n; });
}

void Sessions::remember_stop(Session& s, const SessionOperation& op, const SessionCtrlRequest& req) {
  if (op.verb == SessionOp::Resume || op.verb == SessionOp::Restore) return s.undo_stop.clear();
  if (op.verb != SessionOp::Pause && op.verb != SessionOp::Preempt) return;
  InfoList undo;
  undo.add(op.verb == SessionOp::Pause ? key::SESSION_RESUME : key::SESSION_RESTORE, true);
  for (const auto& ns : op.named) undo.add(key::NSPACE, ns);
  s.undo_stop[req.corr] = std::move(undo);
}

void Sessions::reverse_stop(const std::string& corr, std::string_view why) {
  std::vector<std::uint32_t> ids;
  for (const auto& [id, s] : sessions_)
    if (s.undo_stop.count(corr) && !s.terminating) ids.push_back(id);
  for (std::uint32_t id : ids) {
    Session* s = find(id);
    if (!s) continue;
    InfoList undo = std::move(s->undo_stop[corr]);
    s->undo_stop.erase(corr);
    add_ids(undo, s->owner);
    env_.log(ev::CallOrphaned{.corr = corr,
                              .status = Status::Success,
                              .detail = std::string(why) + ": session " + std::to_string(id) + " restarted"});
    // As its owner would: the controller undoes what nobody knows was done.
    execute(Origin{Address::controller(), 0, corr}, SessionCtrlRequest{0, id, std::move(undo), s->owner.proc, corr},
            false);
  }
}

}  // namespace pmixflow
