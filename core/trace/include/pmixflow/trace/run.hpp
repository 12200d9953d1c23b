// What a run is, apart from any environment: what it is given (a scenario or a trace, the
// policy and its queues, the seed), where its outputs go, and the workload those inputs load
// into. The simulator and the emulator take the same RunInputs; their own knobs are theirs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/results/output_options.hpp"
#include "pmixflow/results/run_info.hpp"
#include "pmixflow/trace/replay.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/trace/swf.hpp"

namespace pmixflow {

struct RunInputs {
  std::string scenario_file;                      // empty, with no trace: `scenario_text`
  std::string scenario_text;                      // the built-in demo
  std::string trace_file;                         // SWF (.swf or .swf.gz) to replay instead of a scenario
  bool lenient = false;                           // skip and count malformed SWF lines instead of failing
  EstimateRule estimates = EstimateRule::Raised;  // a missing or short SWF estimate: raised, or as recorded
  double via_daemon = 0.5;                        // share of replayed jobs submitted through a daemon
  bool compare_recorded = false;
  // Random node failures of a replay (node_failures.hpp): mean seconds up, and down; none: none.
  std::optional<double> node_mtbf;
  std::optional<double> node_mttr;  // none: a failed node never returns
  std::string policy;               // overrides the scenario's
  bool exclusive_nodes = false;
  bool head_computes = false;                    // the controller's node is a compute node as well
  std::optional<double> batch_delay;             // overrides the scenario's
  std::map<std::string, int> queue_priorities;   // added to (and overriding) the scenario's
  std::vector<std::int64_t> preemptible_queues;  // replayed jobs of these SWF queues are preemptible
  bool all_preemptible = false;
  std::uint64_t seed = 0;
  // The DVM's hosts at start-up, as prte's --host and --hostfile give them, instead of the
  // scenario's controller.dvm or a replay's every node (dvm_hosts.hpp); empty: not given.
  std::string dvm_host;
  std::string dvm_hostfile;
  OutputOptions outputs;
};

// The inputs, read and checked before anything runs.
struct Workload {
  Scenario scenario;              // for a trace, made by plan_replay() once the machine is known, without calls
  std::vector<ReplayJob> replay;  // a trace's jobs, by plan_replay(): its calls, made when due
  std::optional<SwfTrace> trace;
  std::string policy;  // the one that decides: the option, else the scenario's (fcfs for a trace)
  // A trace's own machine when its header gives it: MaxNodes nodes of MaxProcs / MaxNodes slots.
  std::optional<std::uint32_t> trace_nodes;
  std::optional<std::uint32_t> trace_slots;
  // The controller's node runs jobs as well (the option, or the scenario's header): PRRTE maps
  // onto its own node unless told not to; pmixflow keeps it for the controller by default.
  bool head_computes = false;
};

// Throws InputError naming the file, line and field: a missing or malformed scenario or trace,
// an unknown or unloadable policy.
Workload load_workload(const RunInputs& in);

// A replay's calls on a machine of `compute_nodes`: every job a PMIx_Allocation_request.
// They are kept as jobs (`replay`), each call built by its requestor only when it is due.
void plan_replay(Workload& workload, const RunInputs& in, std::uint32_t compute_nodes);

// The machine as an environment describes it: for people (`platform`), where its node shape
// came from, and the slots of each compute node.
struct MachineFacts {
  std::string platform;
  std::string topology;
  std::uint32_t slots_per_node = 0;
};

// What the log's header and the summary say of a run, the same in every environment (`env`:
// "sim", "emul").
RunInfo describe_run(std::string env, const Workload& w, const RunInputs& in, const Cluster& cluster,
                     MachineFacts machine);

}  // namespace pmixflow
