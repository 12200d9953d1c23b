// The machine an emulation pretends to be: a head node (the controller's) and N compute nodes
// named as the simulator names a generated cluster, each of the shape an hwloc topology gives.
// Every node is this host: a daemon "on" n03 is a process here that answers as n03.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/topology/topology.hpp"
#include "pmixflow/trace/run.hpp"

namespace pmixflow::emul {

struct MachineKnobs {
  std::uint32_t nodes = 0;    // 0: 8, or a replayed trace's MaxNodes
  NodeShapeChoice node_shape;
};

class EmulMachine {
 public:
  // Throws InputError for a topology that cannot be read, or a trace that says no machine.
  EmulMachine(const MachineKnobs& knobs, const Workload& workload);

  const Cluster& cluster() const { return *cluster_; }
  const NodeShape& shape() const { return shape_; }
  std::uint32_t compute_nodes() const { return static_cast<std::uint32_t>(cluster_->size() - 1); }
  // For people: "emulated, 8 nodes on HOSTNAME".
  std::string description() const;

 private:
  NodeShape shape_;
  std::unique_ptr<Cluster> cluster_;
};

}  // namespace pmixflow::emul
