// The scheduler's view of the machine's resources: which slots of each node are free, whole
// free nodes, and the nodes reported down. Policies ask whether a request fits on every pass,
// so the answer comes from counters, not from a scan.
//
// Slots have an identity: a grant holds given slots of given nodes, and the log names them as
// Batsim numbers resources (node-major over the compute nodes in the machine's order), so
// that two allocations sharing a node never list the same resource.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/model/node_slots.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// What a request asks for: a number of slots, whole nodes (PMIX_ALLOC_NUM_NODES), or these
// nodes whole (PMIX_ALLOC_NODE_LIST, as Slurm honours --nodelist).
struct Need {
  std::uint64_t cpus = 0;
  std::uint32_t nodes = 0;  // whole nodes asked for; 0 for a cpu count
  std::vector<NodeId> named;
};

// `count` slots of `node`, from its slot `first` (a node's slots are numbered from 0).
struct SlotRun {
  NodeId node = 0;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool operator==(const SlotRun&) const = default;
};
using SlotRuns = std::vector<SlotRun>;

// The slots held, node by node in the order first held: what PMIX_ALLOC_NODE_LIST says.
SlotList slot_counts(const SlotRuns& runs);

class ResourcePool {
 public:
  ResourcePool(const Cluster& cluster, bool exclusive_nodes);

  // PMIX_ALLOC_NODE_LIST, PMIX_ALLOC_NUM_NODES (all of each node's slots) or
  // PMIX_ALLOC_NUM_CPUS; nothing when the request asks for none, or names a node the machine
  // does not have.
  std::optional<Need> need_of(const InfoList& info) const;

  std::uint64_t total() const { return total_; }  // slots of the nodes that are up
  std::uint64_t free() const { return free_total_; }
  bool fits(const Need& need) const;
  // Whether the machine as it is now could hold it at all, empty.
  bool could_hold(const Need& need) const;

  // First fit in node order, lowest free slots first: deterministic, and it packs sessions
  // onto few nodes. Whole nodes for a node count, and for a cpu count in exclusive mode.
  SlotRuns take(const Need& need);
  void give_back(const SlotRuns& slots);
  // Exactly these slots are in use again: a restarted scheduler taking back what it had granted.
  void claim(const SlotRuns& slots);
  // A node reported down leaves the pool until it is reported back; the slots it held stay
  // accounted for, so that what is handed back meanwhile is free when it returns. False when
  // it was already out (in).
  bool node_down(NodeId node);
  bool node_up(NodeId node);

  // `n01:4,n02:4`, in PMIX_ALLOC_NODE_LIST syntax.
  std::string node_list(const SlotRuns& slots) const;
  // The same slots as Batsim resource ids: "0-3 16-19".
  std::string resources(const SlotRuns& slots) const;

 private:
  void take_on(NodeId n, std::uint32_t slots, SlotRuns& out);
  void use(NodeId n, std::uint32_t slots);

  const Cluster& cluster_;
  bool exclusive_nodes_;
  std::vector<std::uint32_t> free_slots_;  // by node
  std::vector<std::vector<bool>> used_;    // by node, by slot
  std::vector<std::uint32_t> first_id_;    // by node: the resource id of its slot 0
  std::vector<bool> down_;
  std::uint64_t free_total_ = 0;
  std::uint64_t total_ = 0;
  std::uint32_t nodes_ = 0;             // schedulable nodes up
  std::uint32_t whole_free_nodes_ = 0;  // nodes with every slot free
  std::uint64_t whole_free_slots_ = 0;  // their slots
};

}  // namespace pmixflow
