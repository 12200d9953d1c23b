// The pmixflow command line: thin. Each sub-command parses its options and hands over.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "pmixflow/log/reference.hpp"
#include "pmixflow/results/diff.hpp"
#include "pmixflow/sim/run.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"

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
                     CLI::Option*& topology_option, std::vector<std::string>& queue_priorities,
                     std::string& preemptible) {
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
  sim.add_option("--out", o.out_dir, "Write DIR/events.jsonl and DIR/summary.json (created if missing).");
  sim.add_flag(
      "--no-events", [&o](std::int64_t) { o.events = false; }, "Do not write events.jsonl (long runs).");
  sim.add_option("--daemon-startup", o.daemon_startup_s,
                 "Seconds a daemon takes to start on its node once its launch has crossed the network.")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sim.add_option("--jitter", o.jitter,
                 "Relative spread of daemon and process start-up times, drawn from --seed: each takes up to this "
                 "fraction longer, as on a real machine where no two start at the same instant. 0: exact.")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sim.add_option("--idle-actors", o.idle_actors,
                 "How many idle daemons keep their SimGrid actor, waiting for their next message; past that, an idle "
                 "daemon lets its actor go (less memory on a large machine, more time to bring it back). A cost of "
                 "the simulator only: the simulated results do not depend on it.")
      ->capture_default_str();
  sim.add_option("--contexts", o.contexts,
                 "SimGrid context factory (thread, ucontext, boost, raw); default from $PMIXFLOW_SIM_CONTEXTS, else "
                 "SimGrid's own. Use thread under AddressSanitizer.");
  sim.add_option("--cfg", o.simgrid_cfg,
                 "Extra SimGrid setting KEY:VALUE, as SimGrid's own --cfg (repeatable), e.g. contexts/stack-size:64.");
  sim.add_flag("--quiet", o.quiet, "Print nothing but errors.");
}

void parse_queue_options(const std::vector<std::string>& queue_priorities, const std::string& preemptible,
                         pmixflow::sim::SimOptions& o) {
  for (const auto& entry : queue_priorities) {
    const auto eq = entry.find('=');
    const auto priority =
        eq == std::string::npos ? std::nullopt : pmixflow::parse_whole<int>(std::string_view(entry).substr(eq + 1));
    if (eq == 0 || !priority)
      throw pmixflow::InputError("--queue-priority", 0, "--queue-priority",
                                 "expects NAME=PRIORITY with a whole-number priority, got '" + entry + "'");
    o.queue_priorities[entry.substr(0, eq)] = *priority;
  }
  if (preemptible.empty()) return;
  if (o.trace_file.empty())
    throw pmixflow::InputError(
        "--preemptible", 0, "--preemptible",
        "applies to --trace replays; a scenario's requests say PMIX_ALLOC_PREEMPTIBLE themselves");
  if (preemptible == "all") {
    o.all_preemptible = true;
    return;
  }
  std::string_view rest = preemptible;
  while (true) {
    const auto comma = rest.find(',');
    const auto queue = pmixflow::parse_whole<std::int64_t>(rest.substr(0, comma));
    if (!queue)
      throw pmixflow::InputError("--preemptible", 0, "--preemptible",
                                 "expects \"all\" or SWF queue numbers separated by commas, got '" + preemptible + "'");
    o.preemptible_queues.push_back(*queue);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

struct DiffArgs {
  std::string run_a;
  std::string run_b;
  bool json = false;
  bool partial = false;
};

void add_diff_options(CLI::App& diff, DiffArgs& d) {
  diff.add_option("RUN_A", d.run_a, "The first run: a directory written by `pmixflow sim --out`, or an events.jsonl.")
      ->required();
  diff.add_option("RUN_B", d.run_b, "The second run, compared with the first (deltas are B - A).")->required();
  diff.add_flag("--json", d.json, "Print the report as JSON instead of text.");
  diff.add_flag("--partial", d.partial,
                "Compare an event log that has no closing line (a run stopped, or still going) as far as it goes, "
                "instead of refusing it.");
}

// Exit status 0: equal, 1: different, 2: bad input.
int run_diff(const DiffArgs& d) {
  try {
    const pmixflow::DiffReport report = pmixflow::diff_runs(d.run_a, d.run_b, pmixflow::DiffOptions{d.partial});
    std::cout << (d.json ? pmixflow::render_diff_json(report) : pmixflow::render_diff_text(report));
    return report.equal() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  }
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
  std::vector<std::string> queue_priorities;
  std::string preemptible;
  add_sim_options(*sim, options, slots, topology, topology_option, queue_priorities, preemptible);
  DiffArgs diff_args;
  auto* diff = app.add_subcommand(
      "diff",
      "Compare two runs (output directories or event logs): the first diverging event, each job's start "
      "delta, the summary metrics' deltas. Exit status 0 when equal, 1 when not, 2 on bad input.");
  add_diff_options(*diff, diff_args);
  auto* events = app.add_subcommand(
      "events",
      "List the kinds of event the log holds (--markdown: the reference of docs/events.md, every kind and field).");
  bool markdown = false;
  events->add_flag("--markdown", markdown, "Print the whole reference as Markdown.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }
  if (*diff) return run_diff(diff_args);
  if (*events) {
    std::cout << (markdown ? pmixflow::log::reference_markdown() : pmixflow::log::reference_text());
    return 0;
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
    parse_queue_options(queue_priorities, preemptible, options);
    return pmixflow::sim::run_simulation(options, std::cout);
  } catch (const pmixflow::InputError& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  }
}
