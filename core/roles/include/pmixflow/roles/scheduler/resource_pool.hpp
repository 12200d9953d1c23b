// The scheduler's view of the machine's resources: free slots per node, whole free nodes, and
// the nodes reported down. Policies ask whether a request fits on every pass, so the answer
// comes from counters, not from a scan.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/model/node_slots.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// What a request asks for: a number of slots, or whole nodes (PMIX_ALLOC_NUM_NODES).
struct Need {
  std::uint64_t cpus = 0;
  std::uint32_t nodes = 0;  // whole nodes asked for; 0 for a cpu count
};

class ResourcePool {
 public:
  ResourcePool(const Cluster& cluster, bool exclusive_nodes);

  // PMIX_ALLOC_NUM_NODES (all of each node's slots) or PMIX_ALLOC_NUM_CPUS; nothing when the
  // request asks for neither.
  std::optional<Need> need_of(const InfoList& info) const;

  std::uint64_t total() const { return total_; }  // slots of the nodes that are up
  std::uint64_t free() const { return free_total_; }
  bool fits(const Need& need) const;
  // Whether the machine as it is now could hold it at all, empty.
  bool could_hold(const Need& need) const { return need.cpus <= total_ && need.nodes <= nodes_; }

  // First fit in node order: deterministic, and it packs sessions onto few nodes. Whole nodes
  // for a node count, and for a cpu count in exclusive mode.
  SlotList take(const Need& need);
  void give_back(const SlotList& slots);
  // A dead node leaves the pool for good. False when it was already out.
  bool node_down(NodeId node);

  // `n01:4,n02:4`, in PMIX_ALLOC_NODE_LIST syntax.
  std::string node_list(const SlotList& slots) const;

 private:
  void use(NodeId n, std::uint32_t slots);

  const Cluster& cluster_;
  bool exclusive_nodes_;
  std::vector<std::uint32_t> free_slots_;  // by node
  std::vector<bool> down_;
  std::uint64_t free_total_ = 0;
  std::uint64_t total_ = 0;
  std::uint32_t nodes_ = 0;             // schedulable nodes up
  std::uint32_t whole_free_nodes_ = 0;  // nodes with every slot free
  std::uint64_t whole_free_slots_ = 0;  // their slots
};

}  // namespace pmixflow
