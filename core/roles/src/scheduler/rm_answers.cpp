// The RM's answers to the scheduler's session controls, each taken as the call it answers.
#include <algorithm>

#include "pmixflow/roles/scheduler.hpp"

namespace pmixflow {

void Scheduler::on(Address, SessionCtrlResponse&& resp) {
  if (scripted_answer(resp.id, resp.status, resp.info)) return;
  const auto out = rm_.answered(resp.id);
  if (!out) return;
  switch (out->kind) {
    case RmCall::Instantiate: return instantiated(*out, std::move(resp));
    case RmCall::Terminate: return answer(out->origin, resp.status);
    case RmCall::Preempt:
      // The session is reclaimed and reported complete by the RM; that is where the request
      // is requeued. A session that had already ended is simply not there any more. The RM
      // answers the TERMINATE at once, so this answer comes before the session's COMPLETE.
      if (resp.status != Status::Success)
        env_.log(ev::AllocPreemptRefused{.alloc = out->alloc_id, .status = resp.status});
      else if (Live* live = live_.find(out->alloc_id))
        live->killed_to_make_room = true;
      return;
    case RmCall::OnBehalf:
      if (const auto decision = rm_.settle(out->group, resp.status)) answer_ctrl(decision->origin, decision->status);
      return;
    case RmCall::Extend: return extended(*out, resp);
    case RmCall::HandBack: return;  // the RM reports the session complete, as for any other
  }
}

void Scheduler::abandoned(const Outstanding& out) {
  // As the RM's own failure would be: a grant whose session was never made is undone (its slots
  // back in the pool, alloc.instantiated with the status), an extension's slots given back.
  const SessionCtrlResponse unreachable{0, Status::ErrUnreach, {}, out.origin.corr};
  switch (out.kind) {
    case RmCall::Instantiate: return instantiated(out, SessionCtrlResponse(unreachable));
    case RmCall::Extend: return extended(out, unreachable);
    case RmCall::Terminate: return answer(out.origin, Status::ErrUnreach);
    // A decision is answered whole (abandon_decisions); nobody waits on a preemption's or a
    // hand-back's TERMINATE.
    case RmCall::OnBehalf:
    case RmCall::Preempt:
    case RmCall::HandBack: return;
  }
}

void Scheduler::instantiated(const Outstanding& out, SessionCtrlResponse&& resp) {
  env_.log(ev::AllocInstantiated{.corr = out.origin.corr,
                                 .alloc = out.alloc_id,
                                 .status = resp.status,
                                 .requeued = out.requeued ? std::optional<bool>(true) : std::nullopt});
  // A requeued request's requestor has its answer already: its later sessions are only logged.
  auto reply = [&](Status status, InfoList info = {}) {
    if (!out.requeued) answer(out.origin, status, std::move(info));
  };
  Live* live = live_.find(out.alloc_id);
  if (!live) {
    // Already reclaimed (the RM's COMPLETE came first): the launch failed; say how.
    return reply(resp.status == Status::Success ? Status::ErrNotFound : resp.status);
  }
  if (resp.status != Status::Success) {
    // A session the RM made and then failed to launch into is still reported complete; this
    // answer may reach us before that COMPLETE does. Its status is how the job ended, which
    // does not tell a refusal before anything was made (no COMPLETE follows) from it, so the
    // ids are kept for both, until the RM goes; the slots are not.
    failed_instantiations_.emplace(live->session_id, live->alloc_id);
    pool_.give_back(live->slots);
    live_.erase(out.alloc_id);
    reply(resp.status);
    return schedule();
  }
  live->instantiated = true;
  live->view.preemptible = live->requeue.has_value();
  InfoList info;
  info.add(key::ALLOC_ID, out.alloc_id)
      .add(key::SESSION_ID, live->session_id)
      .add(key::ALLOC_NODE_LIST, pool_.node_list(live->slots));
  for (const auto& item : resp.info.items)
    if (item.key == key::NSPACE) info.items.push_back(item);
  reply(Status::Success, std::move(info));
  // Now preemptible, it may be what a waiting request of higher priority needs.
  if (live->requeue && !queue_.empty()) schedule();
}

void Scheduler::extended(const Outstanding& out, const SessionCtrlResponse& resp) {
  Live* live = live_.find(out.alloc_id);
  if (!live || resp.status != Status::Success) {
    pool_.give_back(out.added);
    answer(out.origin, resp.status == Status::Success ? Status::ErrNotFound : resp.status);
    return schedule();
  }
  for (const auto& added : out.added) {
    live->slots.push_back(added);
    live->view.cpus += added.count;
  }
  if (out.new_limit > 0) live->view.expected_end = live->view.start_time + out.new_limit;
  const std::string nodes = pool_.node_list(live->slots);
  env_.log(ev::AllocExtended{
      .corr = out.origin.corr, .alloc = out.alloc_id, .node_list = nodes, .resources = pool_.resources(live->slots)});
  InfoList info;
  info.add(key::ALLOC_ID, out.alloc_id).add(key::SESSION_ID, live->session_id).add(key::ALLOC_NODE_LIST, nodes);
  answer(out.origin, Status::Success, std::move(info));
}

}  // namespace pmixflow
