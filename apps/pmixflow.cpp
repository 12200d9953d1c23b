// The pmixflow command line: thin. Each sub-command parses its options and hands over.
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "pmixflow/errors.hpp"
#include "pmixflow/sim/run.hpp"

namespace pmixflow {
extern const char* const kDemoScenario;
}

namespace {

constexpr int kBadInput = 2;

std::string default_topology() {
  const std::string shipped = std::string(PMIXFLOW_SOURCE_DIR) + "/topologies/small-node.xml";
  std::error_code ec;
  return std::filesystem::is_regular_file(shipped, ec) ? shipped : std::string();
}

void add_sim_options(CLI::App& sim, pmixflow::sim::SimOptions& o, std::string& slots, std::string& topology,
                     CLI::Option*& topology_option) {
  auto* scenario = sim.add_option("--scenario", o.scenario_file,
                                  "Scenario file (JSON Lines, see the README). Without one (and no --trace): the built-in demo.");
  sim.add_option("--trace", o.trace_file,
                 "Replay an SWF production trace (.swf or .swf.gz): every job a PMIx_Allocation_request through the "
                 "flow. Without --nodes/--platform the machine is the trace's: MaxNodes nodes of MaxProcs/MaxNodes slots.")
      ->excludes(scenario);
  sim.add_flag("--lenient", o.lenient, "Skip and count malformed SWF lines instead of stopping at the first.");
  sim.add_option("--via-daemon", o.via_daemon,
                 "Share of replayed jobs submitted through a daemon (relayed to the controller); the rest go "
                 "straight to the scheduler. Drawn from --seed.")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sim.add_option("--platform", o.platform.platform_file,
                 "SimGrid platform XML. Hosts named head, sched and login take those roles; otherwise the first three "
                 "hosts do, and the rest are compute nodes. Without one, a cluster is generated (--nodes, --network).");
  sim.add_option("--nodes", o.platform.nodes,
                 "Compute nodes: how many to generate (default 8), or how many of the platform's to use (default all).")
      ->check(CLI::PositiveNumber);
  sim.add_option("--network", o.platform.network,
                 "Generated network: star (a private 100 Gb/s link per host), fat-tree (two levels of 16-port "
                 "switches), or fat-tree:LEVELS;DOWN;UP;COUNT as SimGrid's topo_parameters.")
      ->capture_default_str();
  topology_option = sim.add_option("--topology", topology,
                 "hwloc XML topology of every compute node (read with hwloc). Default: the shipped "
                 "topologies/small-node.xml (8 cores).");
  sim.add_option("--slots", slots, "What a slot is: cores or pus.")->check(CLI::IsMember({"cores", "pus"}))->capture_default_str();
  sim.add_option("--policy", o.policy, "Scheduling policy, overriding the scenario's: fcfs (first come, first served) or easy (EASY backfilling).");
  sim.add_option("--seed", o.seed, "Seed of every random choice; the same inputs and seed give the same event log.")
      ->capture_default_str();
  sim.add_option("--out", o.out_dir, "Write DIR/events.jsonl and DIR/summary.json (created if missing).");
  sim.add_flag("--no-events", [&o](std::int64_t) { o.events = false; }, "Do not write events.jsonl (long runs).");
  sim.add_option("--daemon-startup", o.daemon_startup_s,
                 "Seconds a daemon takes to start on its node once its launch has crossed the network.")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sim.add_option("--jitter", o.jitter,
                 "Relative spread of daemon and process start-up times, drawn from --seed: each takes up to this "
                 "fraction longer, as on a real machine where no two start at the same instant. 0: exact.")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sim.add_option("--contexts", o.contexts,
                 "SimGrid context factory (thread, ucontext, boost, raw); default from $PMIXFLOW_SIM_CONTEXTS, else "
                 "SimGrid's own. Use thread under AddressSanitizer.");
  sim.add_option("--cfg", o.simgrid_cfg,
                 "Extra SimGrid setting KEY:VALUE, as SimGrid's own --cfg (repeatable), e.g. contexts/stack-size:64.");
  sim.add_flag("--quiet", o.quiet, "Print nothing but errors.");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pmixflow: the PMIx allocation flow (RM <-> scheduler), simulated on SimGrid."};
  app.require_subcommand(0, 1);
  pmixflow::sim::SimOptions options;
  std::string slots = "cores";
  std::string topology = default_topology();
  auto* sim = app.add_subcommand("sim", "Run a scenario on a simulated cluster (no arguments: the built-in demo).");
  CLI::Option* topology_option = nullptr;
  add_sim_options(*sim, options, slots, topology, topology_option);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }
  if (!*sim) {
    std::cout << app.help();
    return 0;
  }
  options.topology_file = topology;
  options.topology_is_default = topology_option->count() == 0;
  options.slot_unit = slots == "pus" ? pmixflow::sim::SlotUnit::Pus : pmixflow::sim::SlotUnit::Cores;
  if (options.scenario_file.empty() && options.trace_file.empty()) options.scenario_text = pmixflow::kDemoScenario;
  try {
    return pmixflow::sim::run_simulation(options, std::cout);
  } catch (const pmixflow::InputError& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  }
}
