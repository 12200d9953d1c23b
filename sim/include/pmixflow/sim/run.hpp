// `pmixflow sim`: a scenario on a simulated machine, from inputs to outputs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "pmixflow/sim/platform.hpp"
#include "pmixflow/sim/topology.hpp"

namespace pmixflow::sim {

struct SimOptions {
  PlatformOptions platform;
  std::string topology_file;  // hwloc XML of every compute node; empty: the shipped default
  SlotUnit slot_unit = SlotUnit::Cores;
  std::string scenario_file;  // empty: `scenario_text` (the built-in demo)
  std::string scenario_text;
  std::string trace_file;                        // SWF (.swf or .swf.gz) to replay instead of a scenario
  bool lenient = false;                          // skip and count malformed SWF lines instead of failing
  bool topology_is_default = true;               // no --topology given: a trace may size the nodes itself
  double via_daemon = 0.5;                       // share of replayed jobs submitted through a daemon
  bool compare_recorded = false;                 // write recorded.csv and compare waits with SWF field 3
  std::string policy;                            // overrides the scenario's
  bool exclusive_nodes = false;                  // whole nodes even for cpu counts (or the scenario says so)
  std::map<std::string, int> queue_priorities;   // added to (and overriding) the scenario's
  std::vector<std::int64_t> preemptible_queues;  // replayed jobs of these SWF queues are preemptible
  bool all_preemptible = false;                  // every replayed job is
  std::uint64_t seed = 0;
  std::string out_dir;  // empty: no files written
  bool events = true;   // write events.jsonl
  double daemon_startup_s = 0.05;
  double jitter = 0.05;                  // relative spread of daemon and process start-up times
  std::size_t idle_actors = 4096;        // WorldOptions::idle_actors
  std::string contexts;                  // SimGrid context factory; empty: $PMIXFLOW_SIM_CONTEXTS or SimGrid's default
  std::vector<std::string> simgrid_cfg;  // extra SimGrid settings, "key:value"
  bool quiet = false;
};

// Runs one simulation and prints a short human summary on `out`. Returns the exit status:
// 0 when every expectation of the scenario held, 1 when one did not. Throws InputError for
// bad input (the caller prints it and exits 2).
int run_simulation(const SimOptions& options, std::ostream& out);

}  // namespace pmixflow::sim
