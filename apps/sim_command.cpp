// `pmixflow sim`: a scenario or a trace on a simulated machine.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "pmixflow/sim/run.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow {
extern const char* const kDemoScenario;
}

namespace pmixflow::cli {
namespace {

std::string default_topology() {
  const std::string shipped = std::string(PMIXFLOW_SOURCE_DIR) + "/topologies/small-node.xml";
  std::error_code ec;
  return std::filesystem::is_regular_file(shipped, ec) ? shipped : std::string();
}

void parse_queue_options(const std::vector<std::string>& queue_priorities, const std::string& preemptible,
                         RunInputs& o) {
  for (const auto& entry : queue_priorities) {
    const auto eq = entry.find('=');
    const auto priority =
        eq == std::string::npos ? std::nullopt : parse_whole<int>(std::string_view(entry).substr(eq + 1));
    if (eq == 0 || !priority)
      throw InputError("--queue-priority", 0, "--queue-priority",
                       "expects NAME=PRIORITY with a whole-number priority, got '" + entry + "'");
    o.queue_priorities[entry.substr(0, eq)] = *priority;
  }
  if (preemptible.empty()) return;
  if (o.trace_file.empty())
    throw InputError("--preemptible", 0, "--preemptible",
                     "applies to --trace replays; a scenario's requests say PMIX_ALLOC_PREEMPTIBLE themselves");
  if (preemptible == "all") {
    o.all_preemptible = true;
    return;
  }
  std::string_view rest = preemptible;
  while (true) {
    const auto comma = rest.find(',');
    const auto queue = parse_whole<std::int64_t>(rest.substr(0, comma));
    if (!queue)
      throw InputError("--preemptible", 0, "--preemptible",
                       "expects \"all\" or SWF queue numbers separated by commas, got '" + preemptible + "'");
    o.preemptible_queues.push_back(*queue);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

class SimCommand final : public Command {
 public:
  explicit SimCommand(CLI::App& sim) : topology_(default_topology()) {
    RunInputs& o = in_;
    sim::SimKnobs& k = knobs_;
    std::string& slots = slots_;
    std::string& topology = topology_;
    CLI::Option*& topology_option = topology_option_;
    std::vector<std::string>& queue_priorities = queue_priorities_;
    std::string& preemptible = preemptible_;
    auto* scenario =
        sim.add_option("--scenario", o.scenario_file,
                       "Scenario file (JSON Lines, see the README). Without one (and no --trace): the built-in demo.");
    sim.add_option(
           "--trace", o.trace_file,
           "Replay an SWF production trace (.swf or .swf.gz): every job a PMIx_Allocation_request through the "
           "flow. Without --nodes/--platform the machine is the trace's: MaxNodes nodes of MaxProcs/MaxNodes slots.")
        ->excludes(scenario);
    sim.add_flag("--lenient", o.lenient, "Skip and count malformed SWF lines instead of stopping at the first.");
    sim.add_flag("--compare-recorded", o.compare_recorded,
                 "With --trace: write recorded.csv (each job's simulated wait beside the wait the machine really "
                 "imposed, SWF field 3) and add to summary.json the mean recorded wait, the mean absolute deviation, "
                 "the correlation and the share of jobs within 10 minutes of the recording.");
    sim.add_option("--via-daemon", o.via_daemon,
                   "Share of replayed jobs submitted through a daemon (relayed to the controller); the rest go "
                   "straight to the scheduler. Drawn from --seed.")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    sim.add_option(
        "--platform", k.platform.platform_file,
        "SimGrid platform XML. Hosts named head, sched and login take those roles; otherwise the first three "
        "hosts do, and the rest are compute nodes. Without one, a cluster is generated (--nodes, --network).");
    sim.add_option(
           "--nodes", k.platform.nodes,
           "Compute nodes: how many to generate (default 8), or how many of the platform's to use (default all).")
        ->check(CLI::PositiveNumber);
    sim.add_option("--network", k.platform.network,
                   "Generated network: star (a private 100 Gb/s link per host), fat-tree (two levels of 16-port "
                   "switches), or fat-tree:LEVELS;DOWN;UP;COUNT as SimGrid's topo_parameters.")
        ->capture_default_str();
    topology_option = sim.add_option("--topology", topology,
                                     "hwloc XML topology of every compute node (read with hwloc). Default: the shipped "
                                     "topologies/small-node.xml (8 cores).");
    sim.add_option("--slots", slots, "What a slot is: cores or pus.")
        ->check(CLI::IsMember({"cores", "pus"}))
        ->capture_default_str();
    sim.add_option("--policy", o.policy,
                   "Scheduling policy, overriding the scenario's: fcfs (first come, first served), easy (EASY "
                   "backfilling), conservative (conservative backfilling), priority-preempt (priority order, EASY "
                   "backfilling, preemption of PMIX_ALLOC_PREEMPTIBLE sessions), or the path of a policy library (see "
                   "examples/policies).");
    sim.add_flag("--exclusive-nodes", o.exclusive_nodes,
                 "Allocate whole nodes even to requests for a cpu count (default: slot granularity, nodes shared "
                 "by sessions as PRRTE allows).");
    sim.add_option("--queue-priority", queue_priorities,
                   "NAME=PRIORITY (repeatable): the priority of requests naming queue NAME in PMIX_ALLOC_QUEUE "
                   "(replayed SWF jobs name their queue number, field 15). Higher goes first with priority-preempt. "
                   "A queue named by a number has that number as its priority unless given here.");
    sim.add_option("--preemptible", preemptible,
                   "With --trace: which jobs ask for PMIX_ALLOC_PREEMPTIBLE: \"all\", or SWF queue numbers "
                   "separated by commas. priority-preempt may terminate them for a job of higher priority; they are "
                   "requeued and their lost work is counted. Default: none.");
    sim.add_option("--seed", o.seed, "Seed of every random choice; the same inputs and seed give the same event log.")
        ->capture_default_str();
    sim.add_option("--out", o.outputs.dir,
                   "Write DIR/events.jsonl, DIR/jobs.csv and DIR/summary.json (created if missing).");
    sim.add_flag(
        "--no-events", [&o](std::int64_t) { o.outputs.events = false; }, "Do not write events.jsonl (long runs).");
    sim.add_option("--events", o.outputs.events_to,
                   "Write the event log to FILE instead of DIR/events.jsonl, or to standard output with '-' (the "
                   "summary then goes to standard error). It is written as the run goes: it can be followed.");
    sim.add_option("--daemon-startup", k.daemon_startup_s,
                   "Seconds a daemon takes to start on its node once its launch has crossed the network.")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sim.add_option("--jitter", k.jitter,
                   "Relative spread of daemon and process start-up times, drawn from --seed: each takes up to this "
                   "fraction longer, as on a real machine where no two start at the same instant. 0: exact.")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sim.add_option("--idle-actors", k.idle_actors,
                   "How many idle daemons keep their SimGrid actor, waiting for their next message; past that, an idle "
                   "daemon lets its actor go (less memory on a large machine, more time to bring it back). A cost of "
                   "the simulator only: the simulated results do not depend on it.")
        ->capture_default_str();
    sim.add_option("--contexts", k.contexts,
                   "SimGrid context factory (thread, ucontext, boost, raw); default from $PMIXFLOW_SIM_CONTEXTS, else "
                   "SimGrid's own. Use thread under AddressSanitizer.");
    sim.add_option(
        "--cfg", k.simgrid_cfg,
        "Extra SimGrid setting KEY:VALUE, as SimGrid's own --cfg (repeatable), e.g. contexts/stack-size:64.");
    sim.add_flag("--quiet", o.outputs.quiet, "Print nothing but errors.");
  }

  int run() override {
    return guarded([&] {
      knobs_.topology_file = topology_;
      knobs_.topology_is_default = topology_option_->count() == 0;
      knobs_.slot_unit = slots_ == "pus" ? sim::SlotUnit::Pus : sim::SlotUnit::Cores;
      if (in_.scenario_file.empty() && in_.trace_file.empty()) in_.scenario_text = kDemoScenario;
      parse_queue_options(queue_priorities_, preemptible_, in_);
      return sim::run_simulation(in_, knobs_, std::cout, std::cerr);
    });
  }

 private:
  RunInputs in_;
  sim::SimKnobs knobs_;
  std::string slots_ = "cores";
  std::string topology_;
  CLI::Option* topology_option_ = nullptr;
  std::vector<std::string> queue_priorities_;
  std::string preemptible_;
};

}  // namespace

std::unique_ptr<Command> add_sim(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("sim", "Run a scenario on a simulated cluster (no arguments: the built-in demo).");
  return std::make_unique<SimCommand>(*sub);
}

}  // namespace pmixflow::cli
