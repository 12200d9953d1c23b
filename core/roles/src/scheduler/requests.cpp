// Allocation requests as the scheduler decides them: PMIX_ALLOC_NEW queued for the policy,
// EXTEND and RELEASE of what a requestor holds ordered from the RM, REQ_CANCEL of what waits.
#include <cmath>

#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {

void Scheduler::on(Address from, AllocRequest&& req) {
  if (from.kind == PartyKind::Requestor) tools_[from] = req.caller;
  // Relayed by the RM: the real caller is in PMIX_REQUESTOR. Direct from a tool: the caller.
  Proc caller = req.caller;
  if (const auto* p = req.info.get<Proc>(key::REQUESTOR)) caller = *p;
  const Principal requestor = principal_of(caller, req.info);
  if (env_.wants<ev::AllocDecide>())
    env_.log(ev::AllocDecide{.corr = req.corr,
                             .directive = directive_name(req.directive),
                             .requestor = to_string(requestor.proc),
                             .via = env_.name_of(from)});
  const Origin origin{from, req.id, req.corr};
  // The RM is gone: a NEW can never be granted, an EXTEND or RELEASE never carried out, and what
  // a REQ_CANCEL could name is no longer queued. Answered at once rather than left to wait.
  if (rm_gone_) return answer(origin, Status::ErrUnreach);
  switch (req.directive) {
    case Directive::New: return on_new(origin, req, requestor);
    case Directive::Extend: return on_extend(origin, req, requestor);
    case Directive::Release: return on_release(origin, req, requestor);
    case Directive::ReqCancel: return on_cancel(origin, req, requestor);
    default: return answer(origin, Status::ErrNotSupported);
  }
}

std::optional<int> Scheduler::queue_priority(const InfoList& info) const {
  const auto* queue = info.get<std::string>(key::ALLOC_QUEUE);
  if (!queue) return 0;
  if (auto it = config_.queue_priorities.find(*queue); it != config_.queue_priorities.end()) return it->second;
  return parse_whole<int>(*queue);
}

namespace {

// What the scheduler keeps of a NEW besides what the policy sees.
Pending pending_of(const Origin& origin, const AllocRequest& req, const Principal& requestor, const Need& need,
                   double limit) {
  Pending p;
  p.origin = origin;
  p.requestor = requestor;
  if (const auto* id = req.info.get<std::string>(key::ALLOC_REQ_ID)) p.req_id = *id;
  p.need = need;
  p.time_limit = limit;
  for (const auto& item : req.info.items)
    if (item.key == key::SESSION_APP || item.key == key::SESSION_JOB) p.apps_and_job.items.push_back(item);
  if (auto inheritance = req.info.get_uint(key::ALLOC_INHERITANCE))
    p.inheritance = static_cast<std::uint32_t>(*inheritance);
  for (const auto& item : req.info.items)
    if (item.key == key::ALLOC_CHILD_SEP || item.key == key::SESSION_SEP) p.passed_on.items.push_back(item);
  return p;
}

// The same nodes however written: a release naming "n[01-02]:4" names the pool's "n01:4,n02:4".
bool same_node_list(const std::string& written, const std::string& held) {
  if (written == held) return true;
  try {
    return format_host_list(parse_host_list(written, HostUse::NodeList, "PMIX_ALLOC_NODE_LIST").hosts) == held;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

void Scheduler::on_new(const Origin& origin, const AllocRequest& req, const Principal& requestor) {
  std::optional<Need> need = pool_.need_of(req.info);
  double limit = 0;
  try {
    limit = read_alloc_time(req.info).value_or(0.0);
  } catch (const InputError&) {
    need.reset();
  }
  if (!need) return answer(origin, Status::ErrBadParam);
  const auto priority = queue_priority(req.info);
  if (!priority) return answer(origin, Status::ErrBadParam);
  if (!pool_.could_hold(*need))
    return answer(origin, Status::ErrOutOfResource);  // could never be granted: refuse now, not never
  // Named nodes are asked for as they are now (Slurm refuses a --nodelist it cannot honour).
  if (!need->named.empty() && !pool_.fits(*need)) return answer(origin, Status::ErrOutOfResource);

  QueuedRequest view{
      next_key_++, env_.now(), need->cpus, need->nodes, limit, *priority, req.info.flag(key::ALLOC_PREEMPTIBLE)};
  if (env_.wants<ev::AllocQueued>()) {
    ev::AllocQueued e{.corr = req.corr,
                      .requestor = to_string(requestor.proc),
                      .cpus = need->cpus,
                      .num_nodes = need->nodes,
                      .time_limit = limit};
    if (view.priority != 0 || view.preemptible) {
      e.priority = view.priority;
      e.preemptible = view.preemptible;
    }
    env_.log(e);
  }
  queue_.enqueue(QueueEntry{view, pending_of(origin, req, requestor, *need, limit)});
  schedule();
}

Live* Scheduler::owned(const Origin& origin, const InfoList& info, const Principal& requestor) {
  Live* live = live_.find(info);
  if (!live || !live->instantiated) {
    answer(origin, Status::ErrNotFound);
    return nullptr;
  }
  if (!may_manage(live->owner, requestor)) {
    answer(origin, Status::ErrNoPermissions);
    return nullptr;
  }
  return live;
}

void Scheduler::on_release(const Origin& origin, const AllocRequest& req, const Principal& requestor) {
  Live* live = owned(origin, req.info, requestor);
  if (!live) return;
  if (const auto* list = req.info.get<std::string>(key::ALLOC_NODE_LIST);
      list && !same_node_list(*list, pool_.node_list(live->slots)))
    return answer(origin, Status::ErrNotSupported);  // a session cannot shrink; release all of it
  InfoList directives;
  directives.add(key::SESSION_TERMINATE, true);
  rm_.call(live->session_id, std::move(directives), req.corr,
           Outstanding{.kind = RmCall::Terminate, .alloc_id = live->alloc_id, .origin = origin});
}

void Scheduler::on_extend(const Origin& origin, const AllocRequest& req, const Principal& requestor) {
  Live* live = owned(origin, req.info, requestor);
  if (!live) return;
  // PMIX_ALLOC_TIME is the "total session time" (the PMIx Standard), counted from the
  // allocation's start as Slurm counts a TimeLimit; a total already used up changes nothing
  // that could be honoured (docs/time-limits.md).
  double total = 0;
  try {
    total = read_alloc_time(req.info).value_or(0.0);
  } catch (const InputError&) {
    return answer(origin, Status::ErrBadParam);
  }
  const double elapsed = env_.now() - live->view.start_time;
  if (total > 0 && total <= elapsed) return answer(origin, Status::ErrBadParam);
  const auto need = pool_.need_of(req.info);
  if (!need && total <= 0) return answer(origin, Status::ErrBadParam);  // an extend must change something
  if (need && !pool_.fits(*need)) return answer(origin, Status::ErrOutOfResource);
  Outstanding out{.kind = RmCall::Extend, .alloc_id = live->alloc_id, .origin = origin};
  InfoList directives;
  directives.add(key::SESSION_EXTEND, true);
  if (need) {
    out.added = pool_.take(*need);
    directives.add(key::ALLOC_NODE_LIST, pool_.node_list(out.added));
  }
  if (total > 0) {
    // The RM re-arms a session's limit from the moment it is told: it is told what is left.
    out.new_limit = total;
    directives.add(key::ALLOC_TIME, format_alloc_time(total - elapsed));
  }
  if (env_.wants<ev::AllocExtend>())
    env_.log(ev::AllocExtend{.corr = req.corr,
                             .alloc = live->alloc_id,
                             .node_list = pool_.node_list(out.added),
                             .time_limit = out.new_limit});
  rm_.call(live->session_id, std::move(directives), req.corr, std::move(out));
}

void Scheduler::on_cancel(const Origin& origin, const AllocRequest& req, const Principal& requestor) {
  const auto* req_id = req.info.get<std::string>(key::ALLOC_REQ_ID);
  if (!req_id) return answer(origin, Status::ErrBadParam);
  auto q = queue_.take_first([&](const QueuedRequest&, const Pending& p) {
    return p.req_id == *req_id && may_manage(p.requestor, requestor);
  });
  if (!q) return answer(origin, Status::ErrNotFound);  // unknown, or already granted
  env_.log(ev::AllocCancelled{.corr = q->pending.origin.corr, .by_corr = req.corr});
  answer(q->pending.origin, Status::ErrJobCanceled);
  answer(origin, Status::Success);
  schedule();
}

}  // namespace pmixflow
