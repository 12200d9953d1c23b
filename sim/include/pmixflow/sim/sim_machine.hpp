// The simulated machine a run gets: SimGrid's engine, configured for its size, the platform
// with the hosts each party runs on, the node shape, and the cluster the flow sees.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/sim/platform.hpp"
#include "pmixflow/sim/run.hpp"
#include "pmixflow/topology/topology.hpp"
#include "pmixflow/trace/run.hpp"

namespace simgrid::s4u {
class Engine;
}

namespace pmixflow::sim {

class SimMachine {
 public:
  // Throws InputError for a platform or topology that cannot be loaded, or a trace that does
  // not say its machine when none is given.
  SimMachine(const SimKnobs& knobs, const Workload& workload);
  ~SimMachine();
  SimMachine(const SimMachine&) = delete;
  SimMachine& operator=(const SimMachine&) = delete;

  const Machine& hosts() const { return machine_; }
  const NodeShape& shape() const { return shape_; }
  const Cluster& cluster() const { return *cluster_; }
  std::uint32_t compute_nodes() const { return static_cast<std::uint32_t>(cluster_->schedulable_names().size()); }

 private:
  std::vector<std::string> args_;  // SimGrid keeps pointers into its command line
  std::vector<char*> argv_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  Machine machine_;
  NodeShape shape_;
  std::unique_ptr<Cluster> cluster_;
};

}  // namespace pmixflow::sim
