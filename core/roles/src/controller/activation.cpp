#include "pmixflow/roles/controller/activation.hpp"

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"

namespace pmixflow {

Status Activation::held_nodes(const ActivateCall& call, std::vector<std::string>& names, std::string& alloc_id) {
  // Naming no allocation means the DVM's own, as naming it does.
  const auto* a = call.info.get<std::string>(key::ALLOC_ID);
  if (!a || *a == kDvmAllocId) {
    names = cluster_.schedulable_names();
    alloc_id = kDvmAllocId;
    return Status::Success;
  }
  const Session* s = sessions_.by_alloc(*a);
  if (!s) return Status::ErrNotFound;
  // The controller activates for its own spawns (PMIX_SPAWN_ALLOC) on behalf of their callers.
  if (!may_manage(s->owner, call.requestor) && call.requestor.proc.nspace != kControllerProc.nspace)
    return Status::ErrNoPermissions;
  for (const auto& [n, k] : s->nodes) names.push_back(cluster_.node(n).name);
  alloc_id = *a;
  return Status::Success;
}

Status Activation::activate(const ActivateCall& call, std::vector<NodeId>& nodes) {
  const auto* host = call.info.get<std::string>(key::HOST);
  const auto* hostfile = call.info.get<std::string>(key::HOSTFILE);
  if (!host && !hostfile) return Status::ErrBadParam;
  std::vector<std::string> allocated;
  std::string alloc_id;
  if (const Status st = held_nodes(call, allocated, alloc_id); st != Status::Success) return st;
  std::string req_id;
  if (const auto* r = call.info.get<std::string>(key::ALLOC_REQ_ID)) req_id = *r;
  std::vector<std::string> chosen;
  try {
    HostSpec spec;
    if (host) spec = parse_host_list(*host, HostUse::Activate, "PMIX_HOST");
    if (hostfile) merge_host_specs(spec, with_own_exclusions(parse_hostfile(*hostfile, HostUse::Activate)));
    chosen = resolve_hosts(spec, allocated, "PMIX_HOST");
  } catch (const InputError& e) {
    env_.log(ev::ActivateRefused{.corr = call.corr, .detail = e.detail()});
    return Status::ErrBadParam;  // `:N`, `+e`, a node outside the allocation, a bad file
  }
  SlotList to_start;
  for (const auto& name : chosen) {
    const NodeId n = *cluster_.find(name);
    nodes.push_back(n);
    // Already in the DVM is already satisfied, not an error (nor is +all with nothing left).
    const DaemonState d = dvm_.node(n).daemon;
    if (d != DaemonState::Up && d != DaemonState::Starting) to_start.emplace_back(n, 0);
  }
  env_.log(
      ev::Activate{.corr = call.corr, .num_nodes = nodes.size(), .num_starting = to_start.size(), .alloc = alloc_id});
  dvm_.grow(to_start, alloc_id, call.corr, req_id, GrowRequester::activation(call.notify));
  return Status::Success;
}

}  // namespace pmixflow
