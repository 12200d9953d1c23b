#include "run_options.hpp"

#include <climits>
#include <cstdint>

#include <filesystem>
#include <optional>
#include <string_view>

#include "install_layout.hpp"
#include "number_options.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/near_miss.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow {
extern const char* const kDemoScenario;
}

namespace pmixflow::cli {
namespace {

void parse_queue_priorities(const std::vector<std::string>& entries, RunInputs& o) {
  for (const auto& entry : entries) {
    const auto eq = entry.find('=');
    if (eq == 0 || eq == std::string::npos)
      throw InputError("--queue-priority", 0, "--queue-priority",
                       "expects NAME=PRIORITY with a whole-number priority, got " + quote_value(entry));
    const std::string_view text = std::string_view(entry).substr(eq + 1);
    int priority = 0;
    if (const NumberFault fault = read_whole(text, priority); fault != NumberFault::None)
      throw InputError("--queue-priority", 0, "--queue-priority",
                       "the priority of " + quote_value(entry.substr(0, eq)) + ": " +
                           number_refusal(fault, text, range_text(INT_MIN, INT_MAX)));
    o.queue_priorities[entry.substr(0, eq)] = priority;
  }
}

void parse_preemptible(const std::string& preemptible, RunInputs& o) {
  if (preemptible.empty()) return;
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
                       "expects \"all\" or SWF queue numbers separated by commas, got " + quote_value(preemptible));
    o.preemptible_queues.push_back(*queue);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

}  // namespace

void RunOptions::add_to(CLI::App& app, OptionRules& rules) {
  auto* trace = add_workload(app, rules);
  add_failures(app, rules, trace);
  add_dvm_hosts(app);
  add_policy(app, rules, trace);
  add_outputs(app, rules);
}

RunInputs& RunOptions::finish() {
  if (in_.scenario_file.empty() && in_.trace_file.empty()) in_.scenario_text = kDemoScenario;
  parse_queue_priorities(queue_priorities_, in_);
  parse_preemptible(preemptible_, in_);
  return in_;
}

CLI::Option* RunOptions::add_workload(CLI::App& app, OptionRules& rules) {
  auto* scenario =
      app.add_option("--scenario", in_.scenario_file,
                     "Scenario file (JSON Lines, see the README). Without one (and no --trace): the built-in demo.");
  auto* trace = app.add_option(
      "--trace", in_.trace_file,
      "Replay an SWF production trace (.swf or .swf.gz): every job a PMIx_Allocation_request through the "
      "flow. Without --nodes/--platform the machine is the trace's: MaxNodes nodes of MaxProcs/MaxNodes "
      "slots.");
  rules.excludes(trace, scenario, "a run plays a scenario or replays a trace, not both");
  auto* lenient =
      app.add_flag("--lenient", in_.lenient,
                   "Skip and count malformed SWF lines, sort jobs listed out of submit order and renumber repeated job "
                   "numbers (counted in summary.json), instead of stopping at the first.");
  rules.needs(lenient, trace, "a scenario's lines are never skipped, each is checked");
  add_estimates(app, rules, trace);
  auto* compare =
      app.add_flag("--compare-recorded", in_.compare_recorded,
                   "With --trace: write recorded.csv (each job's simulated wait beside the wait the machine really "
                   "imposed, SWF field 3) and add to summary.json the mean recorded wait, the mean absolute deviation, "
                   "the correlation and the share of jobs within 10 minutes of the recording.");
  rules.needs(compare, trace, "only a trace records the waits the machine imposed");
  auto* via_daemon =
      add_real(app, "--via-daemon", in_.via_daemon, 0.0, 1.0,
               "Share of replayed jobs submitted through a daemon (relayed to the controller); the rest go "
               "straight to the scheduler. Drawn from --seed.")
          ->default_str(number_text(in_.via_daemon));
  rules.needs(via_daemon, trace, "a scenario names each call's entry point itself");
  add_whole<std::uint64_t>(app, "--seed", in_.seed, 0, UINT64_MAX,
                           "Seed of every random choice; the same inputs and seed give the same event log.")
      ->default_str(std::to_string(in_.seed));
  return trace;
}

// What a replay does with a missing or short estimate is the user's choice, and the default
// is today's (README, "Estimates"): every output says which it was and what it changed.
void RunOptions::add_estimates(CLI::App& app, OptionRules& rules, CLI::Option* trace) {
  auto* estimates =
      app.add_option_function<std::string>(
             "--estimates",
             [this](const std::string& v) {
               const auto rule = parse_estimate_rule(v);
               if (!rule)
                 throw CLI::ValidationError("--estimates", quote_value(v) + " is not a rule" +
                                                               did_you_mean(v, {"raised", "recorded"}) +
                                                               ": raised or recorded");
               in_.estimates = *rule;
             },
             "With --trace: what a job's estimate (SWF field 9, its PMIX_ALLOC_TIME) is when the trace's is "
             "missing (-1) or shorter than its run time. raised (default): the run time, so that every job runs "
             "to its end. recorded: as the trace has it; a job that outlives it is ended at its limit "
             "(COMPLETED_WALLTIME_REACHED), as Slurm and Batsim do, and a missing one is no limit. Either way "
             "the jobs concerned are counted in summary.json and on the terminal.")
          ->type_name("raised|recorded")
          ->default_str("raised");
  rules.needs(estimates, trace, "a scenario's requests give their PMIX_ALLOC_TIME themselves");
}

void RunOptions::add_failures(CLI::App& app, OptionRules& rules, CLI::Option* trace) {
  // A scenario places its faults itself (node_fail, node_return); random ones need the span a
  // trace gives them (core/trace/node_failures.hpp).
  auto* mtbf = add_positive_real(app, "--node-mtbf", in_.node_mtbf, kMaxSeconds,
                                 "With --trace: random node failures. Each compute node fails after an exponential "
                                 "time up of this mean (seconds), from the trace's first submission to its last "
                                 "submission plus its longest requested time; its jobs are aborted "
                                 "(PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT) and the lost work counted. Drawn from --seed, "
                                 "apart from the workload's other draws.");
  rules.needs(mtbf, trace, "a scenario places its faults itself (node_fail, node_return)");
  auto* mttr =
      add_positive_real(app, "--node-mttr", in_.node_mttr, kMaxSeconds,
                        "With --node-mtbf: a failed node is repaired after an exponential time of this mean (seconds), "
                        "and its daemon rejoins the DVM. Without it a failed node never returns.");
  rules.needs(mttr, mtbf, "without random failures there is no node to repair");
}

// prte's own options for the DVM's initial hosts, read by the same reader as a scenario's
// controller.dvm and hostfiles (core/trace/dvm_hosts.hpp).
void RunOptions::add_dvm_hosts(CLI::App& app) {
  app.add_option("--host", in_.dvm_host,
                 "The DVM's hosts at start-up, as prte's --host: nodes whose daemons start before any "
                 "request, instead of the scenario's controller.dvm (or, in a --trace replay, every "
                 "node). Names and Slurm host lists (n01,n[02-04]), +nK, +all; NAME:N only with the "
                 "node's own slot count.")
      ->type_name("LIST");
  app.add_option("--hostfile", in_.dvm_hostfile,
                 "The same from a hostfile, as prte's --hostfile: a node or a Slurm host list per line, slots=N "
                 "(the node's own count), '#' comments, ^NODE to leave one out. With --host, as prte: the "
                 "file's hosts that --host names (+nK and +all count the file's hosts).")
      ->type_name("FILE");
}

void RunOptions::add_policy(CLI::App& app, OptionRules& rules, CLI::Option* trace) {
  app.add_option("--policy", in_.policy,
                 "Scheduling policy, overriding the scenario's: fcfs (first come, first served), easy (EASY "
                 "backfilling), conservative (conservative backfilling), priority-preempt (priority order, EASY "
                 "backfilling, preemption of PMIX_ALLOC_PREEMPTIBLE sessions), or the path of a policy library (see "
                 "examples/policies).");
  app.add_flag("--exclusive-nodes", in_.exclusive_nodes,
               "Allocate whole nodes even to requests for a cpu count (default: slot granularity, nodes shared by "
               "sessions as PRRTE allows).");
  add_real(app, "--batch-delay", in_.batch_delay, 0.0, kMaxSeconds,
           "Seconds a scheduling pass waits after the event that calls for it, so that it sees every event "
           "arriving meanwhile, as Slurm's batch_sched_delay and sched_min_interval do; overrides the "
           "scenario's scheduler.batch_delay. 0: a pass on every message. Default 0.01: what a trace says "
           "happens in one second is decided together, as a bare policy loop decides it.");
  app.add_flag("--head-computes", in_.head_computes,
               "The controller's node runs jobs as well, as PRRTE maps onto its own node unless told not to "
               "(default: it only hosts the controller). It never leaves the DVM, whatever a session's inheritance.");
  app.add_option("--queue-priority", queue_priorities_,
                 "NAME=PRIORITY (repeatable): the priority of requests naming queue NAME in PMIX_ALLOC_QUEUE "
                 "(replayed SWF jobs name their queue number, field 15). Higher goes first with priority-preempt. "
                 "A queue named by a number has that number as its priority unless given here.");
  auto* preemptible = app.add_option(
      "--preemptible", preemptible_,
      "With --trace: which jobs ask for PMIX_ALLOC_PREEMPTIBLE: \"all\", or SWF queue numbers separated "
      "by commas. priority-preempt may terminate them for a job of higher priority; they are requeued and "
      "their lost work is counted. Default: none.");
  rules.needs(preemptible, trace, "a scenario's requests say PMIX_ALLOC_PREEMPTIBLE themselves");
}

void RunOptions::add_outputs(CLI::App& app, OptionRules& rules) {
  auto* out = app.add_option("--out", in_.outputs.dir,
                             "Write DIR/events.jsonl, DIR/jobs.csv and DIR/summary.json, and DIR/recorded.csv with "
                             "--compare-recorded (DIR is created if missing).");
  auto* level =
      app.add_option_function<std::string>(
             "--events",
             [this](const std::string& v) {
               const auto parsed = log::parse_level(v);
               if (!parsed)
                 throw CLI::ValidationError(
                     "--events", quote_value(v) + " is not a level" + did_you_mean(v, {"all", "state", "none"}) +
                                     ": all, state or none (to write the log to a file: --events-to FILE)");
               in_.outputs.events = *parsed;
             },
             "How much the event log keeps: all (every message's send and receipt too; default), state "
             "(what happened, without the hops: what report, diff and the viewer need, a fraction of the "
             "size), none (no log).")
          ->type_name("all|state|none");
  auto* no_events = app.add_flag(
      "--no-events", [this](std::int64_t) { in_.outputs.events = log::Level::None; },
      "No event log (as --events none).");
  rules.excludes(no_events, level, "the two say how much of the log to keep: one of them is enough");
  auto* to = app.add_option(
      "--events-to", in_.outputs.events_to,
      "Write the event log to FILE instead of DIR/events.jsonl (compressed when FILE ends in .gz), or to "
      "standard output with '-' (the summary then goes to standard error). It is written as the run "
      "goes: it can be followed.");
  rules.excludes_when(
      to, [this] { return in_.outputs.events == log::Level::None; }, "--events none or --no-events",
      "there is no log to write");
  auto* gzip =
      app.add_flag("--gzip-events", in_.outputs.gzip_events,
                   "Write DIR/events.jsonl.gz, gzip-compressed: every reader of pmixflow (report, diff, the viewer) "
                   "opens it as it is.");
  rules.needs(gzip, out, "it compresses DIR/events.jsonl");
  rules.excludes(gzip, to, "FILE says itself whether it is compressed (a name ending in .gz is)");
  app.add_flag("--quiet", in_.outputs.quiet, "Print nothing but errors.");
}

NodeShapeOptions::NodeShapeOptions() {
  // The shipped shape, installed or in the sources; the same shape built in otherwise.
  if (const auto shipped = find_data_file("topologies/small-node.xml")) topology_ = shipped->string();
}

void NodeShapeOptions::add_to(CLI::App& app, const std::string& nodes) {
  topology_option_ = app.add_option("--topology", topology_,
                                    "hwloc XML topology of every " + nodes +
                                        " (read with hwloc). Default: the shipped topologies/small-node.xml (8 "
                                        "cores).");
  app.add_option_function<std::string>(
         "--slots",
         [this](const std::string& v) {
           if (v != "cores" && v != "pus")
             throw CLI::ValidationError(
                 "--slots", quote_value(v) + " is not a slot" + did_you_mean(v, {"cores", "pus"}) + ": cores or pus");
           slots_ = v;
         },
         "What a slot is: cores or pus.")
      ->type_name("cores|pus")
      ->default_str(slots_);
}

NodeShapeChoice NodeShapeOptions::finish() const {
  return NodeShapeChoice{topology_, topology_option_->count() == 0, slots_ == "pus" ? SlotUnit::Pus : SlotUnit::Cores};
}

}  // namespace pmixflow::cli
