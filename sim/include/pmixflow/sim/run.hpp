// `pmixflow sim`: a run on a simulated machine, from its inputs to its outputs.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "pmixflow/sim/platform.hpp"
#include "pmixflow/topology/topology.hpp"
#include "pmixflow/trace/run.hpp"

namespace pmixflow::sim {

// What only the simulator has: the simulated machine and the costs of SimGrid itself.
struct SimKnobs {
  PlatformOptions platform;
  NodeShapeChoice node_shape;
  double daemon_startup_s = 0.05;
  double jitter = 0.05;                  // relative spread of daemon and process start-up times
  std::size_t idle_actors = 4096;        // WorldOptions::idle_actors
  std::string contexts;                  // SimGrid context factory; empty: $PMIXFLOW_SIM_CONTEXTS or SimGrid's
  std::vector<std::string> simgrid_cfg;  // extra SimGrid settings, "key:value"
};

// Runs one simulation: its outputs where `inputs` says, the summary on `out` (on `err` when the
// log goes to standard output). Returns the exit status: 0 when every expectation of the
// scenario held, 1 when one did not. Throws InputError for bad input (the caller prints it and
// exits 2).
int run_simulation(const RunInputs& inputs, const SimKnobs& knobs, std::ostream& out, std::ostream& err);

}  // namespace pmixflow::sim
