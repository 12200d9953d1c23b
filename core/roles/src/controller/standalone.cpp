#include "pmixflow/roles/controller/standalone.hpp"

#include <algorithm>

namespace pmixflow {

Status Standalone::release(const AllocRequest& req) {
  const auto* alloc = req.info.get<std::string>(key::ALLOC_ID);
  Session* s = alloc ? sessions_.by_alloc(*alloc) : nullptr;
  // Torn down is gone, even while its jobs are still ending (PRRTE deregisters the reservation
  // at once, prte_ras_base_teardown_reservation()).
  if (!s || s->terminating) return Status::ErrNotFound;
  if (!owns(sessions_.caller_of(req.caller, req.info, false), s->owner, s->id)) return Status::ErrNoPermissions;
  sessions_.terminate(*s, Status::ErrJobKilledByCmd);
  return Status::Success;
}

Status Standalone::extend(const AllocRequest& req, InfoList& answer) {
  // As PRRTE's ras_base_prepare_grow() and ras_base_complete_grow_request() for an EXTEND
  // (docs/prrte-conformance.md R32-R34, R36): the reservation is named by PMIX_ALLOC_ID, else
  // PMIX_ALLOC_REQ_ID, and must be the caller's. Counts add nothing; a node list adds its nodes.
  const auto* alloc = req.info.get<std::string>(key::ALLOC_ID);
  const auto* req_id = req.info.get<std::string>(key::ALLOC_REQ_ID);
  if (!alloc && !req_id) return Status::ErrBadParam;
  Session* s = alloc ? sessions_.by_alloc(*alloc) : nullptr;
  if (!s && req_id) s = sessions_.by_req_id(*req_id);
  if (!s || s->terminating) return Status::ErrNotFound;
  if (!owns(sessions_.caller_of(req.caller, req.info, false), s->owner, s->id)) return Status::ErrNoPermissions;
  if (auto inh = req.info.get_uint(key::ALLOC_INHERITANCE); inh && *inh >= 1 && *inh <= 4)
    s->inheritance = static_cast<Inheritance>(*inh);
  s->requester = req.caller;  // PRRTE refreshes it: the next event goes to the latest caller
  SlotList added;
  for (const auto& item : req.info.items) {
    if (item.key != key::ALLOC_NODE_LIST) continue;
    const auto* list = std::get_if<std::string>(&item.value);
    std::optional<SlotList> nodes;
    try {
      if (list) nodes = parse_node_slots(*list, cluster_);
    } catch (const InputError&) {
      return Status::ErrBadParam;  // a list PRRTE's regex parse would refuse too
    }
    if (!nodes || nodes->empty()) return Status::ErrBadParam;
    added.insert(added.end(), nodes->begin(), nodes->end());
  }
  if (!added.empty()) sessions_.add_nodes(*s, added, req.corr);
  answer.add(key::ALLOC_ID, s->alloc_id);
  if (req_id) answer.add(key::ALLOC_REQ_ID, *req_id);
  return Status::Success;
}

std::optional<std::vector<HostEntry>> Standalone::choose(const InfoList& info) const {
  std::uint64_t cpus = info.get_uint(key::ALLOC_NUM_CPUS).value_or(0);
  const std::uint64_t whole = info.get_uint(key::ALLOC_NUM_NODES).value_or(0);
  std::vector<HostEntry> chosen;
  std::uint64_t nodes_left = whole;
  for (NodeId n = 0; n < cluster_.size() && (cpus > 0 || nodes_left > 0); ++n) {
    const NodeState& st = dvm_.node(n);
    if (!cluster_.node(n).schedulable || !st.sessions.empty() || st.daemon == DaemonState::Failed) continue;
    const std::uint32_t slots = cluster_.node(n).slots;
    if (whole > 0) {
      chosen.push_back(HostEntry{cluster_.node(n).name, slots});
      --nodes_left;
    } else {
      const auto take = static_cast<std::uint32_t>(std::min<std::uint64_t>(cpus, slots));
      chosen.push_back(HostEntry{cluster_.node(n).name, take});
      cpus -= take;
    }
  }
  if (cpus > 0 || nodes_left > 0) return std::nullopt;
  return chosen;
}

InfoList Standalone::session_directives(const AllocRequest& req, const std::vector<HostEntry>& chosen,
                                        std::uint32_t id) const {
  InfoList resources;
  resources.add(key::ALLOC_NODE_LIST, format_host_list(chosen))
      .add(key::ALLOC_ID, "dvm-alloc-" + std::to_string(id - kFirstSession + 1));
  for (const auto& k : {key::ALLOC_TIME, key::ALLOC_INHERITANCE, key::ALLOC_REQ_ID})
    if (const Value* v = req.info.find(k)) resources.add(k, *v);
  InfoList directives;
  directives.add(key::SESSION_INSTANTIATE, true)
      .add(key::SESSION_RESOURCES, std::move(resources))
      .add(key::REQUESTOR, req.caller);
  for (const auto& item : req.info.items)
    if (item.key == key::SESSION_APP || item.key == key::ALLOC_CHILD_SEP || item.key == key::SESSION_SEP)
      directives.items.push_back(item);
  return directives;
}

void Standalone::serve(const Origin& origin, AllocRequest&& req) {
  env_.log(ev::AllocStandalone{.corr = req.corr, .directive = directive_name(req.directive)});
  if (req.directive == Directive::Release) return replies_.allocation(origin, release(req));
  if (req.directive == Directive::Extend) {
    InfoList answer;
    const Status st = extend(req, answer);
    return replies_.allocation(origin, st, st == Status::Success ? std::move(answer) : InfoList{});
  }
  if (req.directive != Directive::New) return replies_.allocation(origin, Status::ErrNotSupported);
  if (req.info.get_uint(key::ALLOC_NUM_CPUS).value_or(0) == 0 &&
      req.info.get_uint(key::ALLOC_NUM_NODES).value_or(0) == 0)
    return replies_.allocation(origin, Status::ErrBadParam);
  const auto chosen = choose(req.info);
  if (!chosen) return replies_.allocation(origin, Status::ErrOutOfResource);
  const std::uint32_t id = next_session_++;
  // Instantiated as the RM's own decision: answered as an allocation, not as session control.
  const Origin internal{Address::controller(), 0, req.corr};
  const Status st = sessions_.instantiate(internal, req.caller, id, session_directives(req, *chosen, id));
  if (st != Status::Success) return replies_.allocation(origin, st);
  Session& s = *sessions_.find(id);
  s.owner = principal_of(req.caller, req.info);
  InfoList info;
  info.add(key::ALLOC_ID, s.alloc_id).add(key::SESSION_ID, id).add(key::ALLOC_NODE_LIST, format_host_list(*chosen));
  if (s.instantiate_answer) {
    pending_[id] = PendingAnswer{origin, std::move(info)};
    return;
  }
  replies_.allocation(origin, Status::Success, std::move(info));
}

void Standalone::job_started(const Job& job) {
  auto pending = pending_.extract(job.session);
  if (pending.empty()) return;
  PendingAnswer& a = pending.mapped();
  a.info.add(key::NSPACE, job.nspace);
  replies_.allocation(a.origin, Status::Success, std::move(a.info));
}

void Standalone::reclaimed(std::uint32_t session, Status unlaunched) {
  auto pending = pending_.extract(session);
  if (!pending.empty()) replies_.allocation(pending.mapped().origin, unlaunched);
}

}  // namespace pmixflow
