// Session control at the scheduler: a requestor's, which it decides and orders from the RM
// session by session (FLOW.md §4), and the RM's PMIX_SESSION_COMPLETE, which frees an
// allocation and requeues one that was preempted.
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {
namespace {

using JobStatuses = std::vector<std::pair<std::string, Status>>;

// The PMIX_JOB_INFO_ARRAYs of a PMIX_SESSION_COMPLETE.
JobStatuses job_statuses(const InfoList& directives) {
  JobStatuses jobs;
  for (const auto& item : directives.items) {
    if (item.key != key::JOB_INFO_ARRAY) continue;
    const auto& job = std::get<InfoList>(item.value);
    const auto* ns = job.get<std::string>(key::NSPACE);
    const auto* st = job.get<Status>(key::JOB_TERM_STATUS);
    jobs.emplace_back(ns ? *ns : "", st ? *st : Status::Error);
  }
  return jobs;
}

// As session.completed carries them.
std::string jobs_json(const JobStatuses& jobs) {
  std::string out = "[";
  for (const auto& [nspace, status] : jobs) {
    if (out.size() > 1) out += ',';
    out += "{\"nspace\":";
    json_quote_into(out, nspace);
    out += ",\"status\":";
    json_quote_into(out, status_name(status));
    out += '}';
  }
  return out + "]";
}

}  // namespace

void Scheduler::on(Address from, SessionCtrlRequest&& req) {
  // Only the RM reports a session complete; the same directive from anyone else is refused.
  if (req.directives.flag(key::SESSION_COMPLETE)) {
    if (from == Address::controller() && !req.directives.has(key::REQUESTOR)) return on_complete(from, req);
    return answer_ctrl(Origin{from, req.id, req.corr}, Status::ErrNotSupported);
  }
  decide_session_ctrl(Origin{from, req.id, req.corr}, std::move(req));
}

void Scheduler::decide_session_ctrl(const Origin& origin, SessionCtrlRequest&& req) {
  Proc caller = req.caller;
  if (const auto* p = req.directives.get<Proc>(key::REQUESTOR)) caller = *p;
  const Principal requestor = principal_of(caller, req.directives);
  InfoList directives = std::move(req.directives);
  directives.erase(key::REQUESTOR);
  if (env_.wants<ev::SessionCtrlDecide>())
    env_.log(
        ev::SessionCtrlDecide{.corr = req.corr, .session = req.session_id, .requestor = to_string(requestor.proc)});
  // Choosing or changing resources is an allocation request's business, not session control's.
  if (directives.flag(key::SESSION_INSTANTIATE) || directives.has(key::ALLOC_NODE_LIST))
    return answer_ctrl(origin, Status::ErrNotSupported);
  if (!rm_connected_) return answer_ctrl(origin, Status::ErrUnreach);
  std::vector<Live*> targets;
  if (req.session_id == kAllSessions) {
    targets = live_.owned_by(requestor);
  } else {
    Live* live = live_.by_session(req.session_id);
    if (!live) return answer_ctrl(origin, Status::ErrNotFound);
    if (!may_manage(live->owner, requestor)) return answer_ctrl(origin, Status::ErrNoPermissions);
    targets.push_back(live);
  }
  if (targets.empty()) return answer_ctrl(origin, Status::Success);  // nothing of theirs to act on
  std::optional<double> new_limit;
  try {
    if (directives.flag(key::SESSION_EXTEND)) new_limit = read_alloc_time(directives);
  } catch (const InputError&) {
    return answer_ctrl(origin, Status::ErrBadParam);
  }
  const std::uint64_t group = rm_.open_decision(origin, targets.size());
  for (Live* live : targets) {
    if (new_limit) live->view.expected_end = live->view.start_time + *new_limit;  // the policy plans with it
    rm_.call(live->session_id, directives, req.corr,
             Outstanding{.kind = RmCall::OnBehalf, .alloc_id = live->alloc_id, .origin = origin, .group = group});
  }
}

void Scheduler::on_complete(Address from, const SessionCtrlRequest& req) {
  InfoList lookup;
  if (const auto* id = req.directives.get<std::string>(key::ALLOC_ID)) lookup.add(key::ALLOC_ID, *id);
  lookup.add(key::SESSION_ID, req.session_id);
  Live* live = live_.find(lookup);
  const auto failed = failed_instantiations_.find(req.session_id);
  if (!live && failed == failed_instantiations_.end())
    return env_.send(from, SessionCtrlResponse{req.id, Status::ErrNotFound, {}, req.corr});
  const JobStatuses jobs = job_statuses(req.directives);
  if (env_.wants<ev::SessionCompleted>())
    env_.log(ev::SessionCompleted{.corr = req.corr,
                                  .alloc = live ? live->alloc_id : failed->second,
                                  .session = req.session_id,
                                  .jobs = jobs_json(jobs)});
  if (!live) {
    // Its failed INSTANTIATE was answered first (the RM sent the COMPLETE first, but the two
    // may cross): the slots went back then.
    failed_instantiations_.erase(failed);
    return env_.send(from, SessionCtrlResponse{req.id, Status::Success, {}, req.corr});
  }
  pool_.give_back(live->slots);
  // Terminated to make room: the work done is lost and the request waits again. A session that
  // ended before the TERMINATE reached the RM is reported complete before the TERMINATE is
  // answered (PMIX_ERR_NOT_FOUND): it simply completed.
  if (live->killed_to_make_room && live->requeue)
    requeue(*live, (env_.now() - live->granted_at) * static_cast<double>(live->view.cpus));
  live_.erase(std::string(live->alloc_id));
  env_.send(from, SessionCtrlResponse{req.id, Status::Success, {}, req.corr});
  schedule();
}

void Scheduler::requeue(Live& live, double lost_cpu_s) {
  QueueEntry again = std::move(*live.requeue);
  again.pending.answered = true;
  env_.log(ev::AllocRequeued{.corr = live.corr, .alloc = live.alloc_id, .lost_cpu_s = lost_cpu_s});
  if (!pool_.could_hold(again.pending.need)) {
    // Nodes went down since it was granted: waiting again would be waiting for ever.
    env_.log(ev::AllocDropped{.corr = live.corr,
                              .status = Status::ErrOutOfResource,
                              .detail = "requeued after preemption, but the machine can no longer hold it"});
    return;
  }
  queue_.enqueue(std::move(again));  // in its original place: its submit time is its own
}

}  // namespace pmixflow
