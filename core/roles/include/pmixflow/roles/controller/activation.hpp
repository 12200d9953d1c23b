// PMIX_ALLOC_ACTIVATE (FLOW.md §5): daemons started on nodes the requestor already holds.
// Nothing is added to an allocation and no slot count changes, so no scheduler is asked, even
// where it owns the allocation: the RM answers on grant, and reports the daemons with
// PMIX_DVM_IS_READY to whoever asked.
#pragma once

#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/sessions.hpp"

namespace pmixflow {

struct ActivateCall {
  const InfoList& info;  // PMIX_HOST / PMIX_HOSTFILE, and the allocation they lie in
  Principal requestor;
  Address notify;  // hears PMIX_DVM_IS_READY
  std::string corr;
};

class Activation {
 public:
  Activation(Env& env, const Cluster& cluster, Dvm& dvm, Sessions& sessions)
      : env_(env), cluster_(cluster), dvm_(dvm), sessions_(sessions) {}

  // The answer for the caller; `nodes` gets every node named, started or already up.
  Status activate(const ActivateCall& call, std::vector<NodeId>& nodes);

 private:
  // The node names the requestor holds: the named allocation's, else the DVM's own.
  Status held_nodes(const ActivateCall& call, std::vector<std::string>& names, std::string& alloc_id);

  Env& env_;
  const Cluster& cluster_;
  Dvm& dvm_;
  Sessions& sessions_;
};

}  // namespace pmixflow
