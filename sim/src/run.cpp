#include "pmixflow/sim/run.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>

#include "pmixflow/log/sink.hpp"
#include "pmixflow/policies/policy.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/results/output_file.hpp"
#include "pmixflow/results/run_outcomes.hpp"
#include "pmixflow/roles/controller.hpp"
#include "pmixflow/roles/daemon.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/sim/world.hpp"
#include "pmixflow/trace/replay.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/trace/swf.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/json_text.hpp"

namespace sg4 = simgrid::s4u;
using json = nlohmann::json;

namespace pmixflow::sim {
namespace {

// What SimGrid is told on its own command line: quiet, small actor stacks (an idle daemon
// should cost almost nothing), and the context factory (threads under the sanitizers).
// Every daemon starting at once needs its own stack: past ~16k of them, guard pages would
// exceed the kernel's mapping limit (vm.max_map_count), so very large machines run with
// smaller stacks and no guard pages.
std::vector<std::string> engine_args(const SimOptions& o, std::size_t compute_nodes) {
  std::vector<std::string> args{"pmixflow", "--log=root.thres:critical"};
  std::string contexts = o.contexts;
  if (contexts.empty())
    if (const char* env = std::getenv("PMIXFLOW_SIM_CONTEXTS")) contexts = env;
  if (!contexts.empty()) args.push_back("--cfg=contexts/factory:" + contexts);
  constexpr std::size_t kGuardedNodes = 16384;
  if (compute_nodes > kGuardedNodes && contexts != "thread") {
    args.push_back("--cfg=contexts/stack-size:64");
    args.push_back("--cfg=contexts/guard-size:0");
  } else {
    args.push_back("--cfg=contexts/stack-size:256");
  }
  for (const auto& extra : o.simgrid_cfg) args.push_back("--cfg=" + extra);
  return args;
}

NodeShape node_shape(const SimOptions& o) {
  if (!o.topology_file.empty()) return load_topology(o.topology_file, o.slot_unit);
  NodeShape builtin;  // the shape of topologies/small-node.xml, for a binary run away from its sources
  builtin.source = "built-in (2 packages x 4 cores)";
  builtin.packages = 2;
  builtin.numa_nodes = 1;
  builtin.cores = builtin.pus = builtin.slots = 8;
  return builtin;
}

Address resolve_via(const ScenarioCall& c, const Scenario& sc, const Cluster& cluster,
                    const std::vector<std::string>& names) {
  if (c.via == "controller") return Address::controller();
  if (c.via == "scheduler") return Address::scheduler();
  // A node by name, or by its place among the compute nodes (`+nK`, as in a --host list),
  // so that one scenario runs on any platform.
  const std::string node = c.via.substr(7);
  std::string name;
  try {
    const auto chosen = resolve_hosts(parse_host_list(node, HostUse::Activate, "via"), names, "via");
    if (chosen.size() != 1) throw InputError("via", 0, "", "names " + std::to_string(chosen.size()) + " nodes");
    name = chosen.front();
  } catch (const InputError& e) {
    if (cluster.find(node) == Cluster::kHead)
      throw InputError(sc.origin, c.line, "via",
                       "'" + node + "' is the head node: its daemon is the controller (use \"controller\")");
    const auto& nodes = cluster.nodes();
    throw InputError(sc.origin, c.line, "via",
                     "no single compute node '" + node + "': " + e.detail() + " (nodes are " + nodes[1].name + " .. " +
                         nodes.back().name + ", or +n0 .. +n" + std::to_string(nodes.size() - 2) + ")");
  }
  return Address::daemon(*cluster.find(name));
}

std::vector<NodeId> initial_dvm(const Scenario& sc, const Cluster& cluster) {
  if (sc.dvm == "head") return {};
  const auto names = cluster.schedulable_names();
  std::vector<std::string> chosen;
  if (sc.dvm == "all") {
    chosen = names;
  } else {
    try {
      chosen = resolve_hosts(parse_host_list(sc.dvm, HostUse::Host, "controller.dvm"), names, "controller.dvm");
    } catch (const InputError& e) {
      throw InputError(sc.origin, 1, "controller.dvm", e.detail());
    }
  }
  std::vector<NodeId> out;
  for (const auto& n : chosen) out.push_back(*cluster.find(n));
  return out;
}

std::string fmt_seconds(double s) {
  std::ostringstream o;
  o << std::setprecision(3);
  if (s < 1e-3)
    o << s * 1e6 << " us";
  else if (s < 1)
    o << s * 1e3 << " ms";
  else
    o << std::setprecision(6) << s << " s";
  return o.str();
}

}  // namespace

int run_simulation(const SimOptions& o, std::ostream& out) {
  // Inputs first: nothing is simulated or written until all of them are known to be good.
  Scenario sc;
  std::optional<SwfTrace> trace;
  SimOptions opts = o;
  NodeShape shape;
  if (!o.trace_file.empty()) {
    trace = read_swf(o.trace_file, SwfOptions{o.lenient});
    // Without a machine of its own, a trace gets the one it was recorded on: MaxNodes nodes
    // of MaxProcs / MaxNodes slots.
    if (opts.platform.platform_file.empty() && opts.platform.nodes == 0) {
      if (!trace->max_nodes || *trace->max_nodes <= 0)
        throw InputError(o.trace_file, 0, "MaxNodes",
                         "the header has no MaxNodes: give the machine with --nodes or --platform");
      opts.platform.nodes = static_cast<std::uint32_t>(*trace->max_nodes);
    }
    if (o.topology_is_default && trace->max_procs && trace->max_nodes && *trace->max_nodes > 0) {
      shape.source = "trace header (MaxProcs / MaxNodes)";
      shape.slots = shape.cores = shape.pus =
          static_cast<unsigned>(std::max<std::int64_t>(1, *trace->max_procs / *trace->max_nodes));
    } else {
      shape = node_shape(o);
    }
  } else {
    if (o.scenario_file.empty()) {
      std::istringstream text(o.scenario_text);
      sc = parse_scenario(text, "built-in demo scenario");
    } else {
      sc = load_scenario(o.scenario_file);
    }
    shape = node_shape(o);
  }
  const std::string policy_name = o.policy.empty() ? (trace ? std::string("fcfs") : sc.policy) : o.policy;
  try {
    make_policy(policy_name);  // known (or loadable) before anything runs
  } catch (const InputError& e) {
    if (!o.policy.empty()) throw;
    throw InputError(sc.origin, 1, "policy", e.detail());
  }

  // SimGrid is configured before the platform exists: size it from what was asked for.
  auto args = engine_args(
      o, opts.platform.platform_file.empty() ? (opts.platform.nodes ? opts.platform.nodes : 8) : opts.platform.nodes);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());
  Machine machine = build_platform(engine, opts.platform);

  std::vector<Node> nodes;
  nodes.push_back(Node{machine.head->get_name(), shape.slots, false});
  for (auto* h : machine.compute) nodes.push_back(Node{h->get_name(), shape.slots, true});
  const Cluster cluster(std::move(nodes));

  if (trace)
    sc = scenario_from_trace(
        *trace, static_cast<std::uint32_t>(cluster.size() - 1),
        ReplayOptions{o.via_daemon, o.seed, policy_name, 1.0, o.preemptible_queues, o.all_preemptible});

  // Requestors, in order of first appearance; their calls resolved against the machine.
  std::map<std::string, std::uint32_t> requestor_index;
  std::vector<std::string> requestor_names;
  std::vector<std::vector<PlannedCall>> plans;
  const auto compute_names = cluster.schedulable_names();
  for (const auto& c : sc.calls) {
    auto [it, inserted] = requestor_index.emplace(c.requestor, static_cast<std::uint32_t>(requestor_names.size()));
    if (inserted) {
      requestor_names.push_back(c.requestor);
      plans.emplace_back();
    }
    plans[it->second].push_back(PlannedCall{c.at, resolve_via(c, sc, cluster, compute_names), c.call, CallNotes{c.line, c.expect_status, c.recorded_wait}});
  }
  ControllerConfig controller_config;
  controller_config.connect_to_scheduler = sc.connect_to_scheduler;
  controller_config.no_scheduler = sc.no_scheduler;
  controller_config.initial_dvm = initial_dvm(sc, cluster);

  log::LogHeader header;
  header.env = "sim";
  header.seed = o.seed;
  header.inputs = json{{"scenario", sc.origin},       {"platform", machine.description}, {"topology", shape.source},
                       {"nodes", cluster.size() - 1}, {"slots_per_node", shape.slots},   {"policy", policy_name}};
  log::EventLog event_log(header);
  std::unique_ptr<log::LineSink> log_file;
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) throw InputError(o.out_dir, 0, "--out", "cannot create the output directory: " + ec.message());
    if (o.events) {
      log_file = std::make_unique<log::LineSink>(o.out_dir + "/events.jsonl");
      event_log.attach(*log_file);
    }
  }
  event_log.begin();

  WorldOptions world_options;
  world_options.daemon_startup_s = o.daemon_startup_s;
  world_options.jitter = o.jitter;
  world_options.seed = o.seed;
  world_options.idle_actors = o.idle_actors;
  World world(cluster, machine, world_options, log_file ? &event_log : nullptr);
  world.add_party(Address::controller(), "controller", machine.head,
                  [&](Env& env) { return std::make_unique<Controller>(env, cluster, controller_config); },
                  {{sc.controller_start, true}});
  std::vector<std::pair<double, bool>> scheduler_schedule;
  if (sc.scheduler_start) scheduler_schedule.emplace_back(*sc.scheduler_start, true);
  for (const auto& t : sc.scheduler_transitions) scheduler_schedule.emplace_back(t.at, t.up);
  SchedulerConfig scheduler_config;
  scheduler_config.attach_at_start = sc.scheduler_attaches;
  scheduler_config.exclusive_nodes = sc.exclusive_nodes || o.exclusive_nodes;
  scheduler_config.queue_priorities = sc.queue_priorities;
  for (const auto& [queue, priority] : o.queue_priorities) scheduler_config.queue_priorities[queue] = priority;
  world.add_party(
      Address::scheduler(), "scheduler", machine.scheduler,
      [&](Env& env) { return std::make_unique<Scheduler>(env, cluster, make_policy(policy_name), scheduler_config); },
      scheduler_schedule);
  std::vector<std::vector<std::pair<double, bool>>> requestor_schedule(requestor_names.size(), {{0.0, true}});
  for (const auto& exit : sc.requestor_exits) {
    auto it = requestor_index.find(exit.requestor);
    if (it == requestor_index.end())
      throw InputError(sc.origin, exit.line, "requestor", "no requestor named '" + exit.requestor + "' makes a call");
    requestor_schedule[it->second].emplace_back(exit.at, false);
  }
  for (std::uint32_t i = 0; i < requestor_names.size(); ++i) {
    world.add_party(
        Address::requestor(i), "requestor:" + requestor_names[i], machine.login,
        [&, i](Env& env) {
          return std::make_unique<Requestor>(env, Proc{requestor_names[i], 0}, std::move(plans[i]));
        },
        requestor_schedule[i]);
  }
  for (const auto& fault : sc.node_events) {
    std::string name;
    try {
      const auto chosen = resolve_hosts(parse_host_list(fault.node, HostUse::Activate, "node"), compute_names, "node");
      if (chosen.size() != 1) throw InputError("node", 0, "", "names " + std::to_string(chosen.size()) + " nodes");
      name = chosen.front();
    } catch (const InputError& e) {
      throw InputError(sc.origin, fault.line, "node", "no single compute node '" + fault.node + "': " + e.detail());
    }
    const NodeId node = *cluster.find(name);
    if (fault.fault == NodeFault::Dies)
      world.fail_node(fault.at, node);
    else
      world.fail_next_daemon_start(fault.at, node);
  }
  DaemonConfig daemon_config;
  daemon_config.jitter = o.jitter;
  daemon_config.seed = o.seed;
  world.set_daemon_factory(
      [daemon_config](Env& env, NodeId node) { return std::make_unique<Daemon>(env, node, daemon_config); });

  const auto wall_start = std::chrono::steady_clock::now();
  // A long run shows how far it is on a terminal, and stays quiet anywhere else.
  double horizon = 0;
  for (const auto& c : sc.calls) horizon = std::max(horizon, c.at);
  if (!o.quiet && horizon > 0 && ::isatty(STDERR_FILENO)) {
    sg4::Actor::create("pmixflow-progress", machine.login, [horizon, wall_start, &world] {
      sg4::Actor::self()->daemonize();
      constexpr int kSteps = 200;
      for (int step = 1;; ++step) {
        sg4::this_actor::sleep_until(horizon * step / kSteps);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        const double done = std::min(1.0, sg4::Engine::get_clock() / horizon);
        const int filled = static_cast<int>(done * 30);
        std::fprintf(stderr, "\r  [%.*s%*s] %3.0f%%  %.0f msg/s  ETA %.0f s  ", filled,
                     "==============================", 30 - filled, "", done * 100,
                     static_cast<double>(world.stats().messages) / std::max(wall, 1e-9),
                     done > 0 ? wall * (1 - done) / done : 0.0);
        std::fflush(stderr);
        if (step >= kSteps) break;
      }
    });
  }
  world.run();
  if (!o.quiet && horizon > 0 && ::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%*s\r", 79, "");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  {
    const auto& st = world.stats();
    const json stats{{"sim_time_s", st.end_time},
                     {"wall_s", wall},
                     {"messages", st.messages},
                     {"bytes", st.bytes},
                     {"daemons_started", st.daemons_started},
                     {"daemon_wakeups", st.actor_wakeups}};
    event_log.finish(st.end_time, "quiescent", stats.dump());
  }
  if (log_file && !log_file->failure().empty()) throw std::runtime_error(log_file->failure());

  // Outcomes: every call's answer, checked against what the scenario expects.
  std::map<std::string, const ScenarioCall*> by_corr;
  for (const auto& c : sc.calls) by_corr[std::visit([](const auto& x) { return x.corr; }, c.call)] = &c;
  json calls = json::array(), failures = json::array();
  std::size_t checked = 0, unanswered = 0;
  std::ostringstream call_lines;
  for (std::uint32_t i = 0; i < requestor_names.size(); ++i) {
    const auto* req = dynamic_cast<const Requestor*>(world.role(Address::requestor(i)));
    if (!req) continue;
    for (const auto& r : req->results()) {
      const ScenarioCall* c = by_corr.at(r.corr);
      json entry{{"corr", r.corr}, {"line", c->line}, {"what", r.what},
                 {"via", c->via},  {"sent", r.sent},  {"status", r.answered < 0 ? "none" : status_name(r.status)}};
      if (r.answered >= 0) entry["answered"] = r.answered;
      json info = json::object();
      for (const auto& item : r.info.items) info[item.key] = json::parse(value_to_json(item.value));
      entry["info"] = info;
      if (r.answered < 0) {
        ++unanswered;
        failures.push_back({{"corr", r.corr}, {"line", c->line}, {"problem", "never answered"}});
      }
      if (c->expect_status) {
        ++checked;
        entry["expected"] = status_name(*c->expect_status);
        if (r.answered >= 0 && r.status != *c->expect_status)
          failures.push_back({{"corr", r.corr},
                              {"line", c->line},
                              {"expected", status_name(*c->expect_status)},
                              {"got", status_name(r.status)}});
      }
      calls.push_back(entry);
      call_lines << "    " << std::left << std::setw(10) << r.corr << std::setw(26) << r.what << " via "
                 << std::setw(14) << c->via << " -> "
                 << (r.answered < 0 ? std::string("NO ANSWER")
                                    : status_name(r.status) + " after " + fmt_seconds(r.answered - r.sent));
      if (const auto* alloc = r.info.get<std::string>(key::ALLOC_ID)) call_lines << " (" << *alloc << ")";
      call_lines << "\n";
    }
  }
  const auto* scheduler = dynamic_cast<const Scheduler*>(world.role(Address::scheduler()));
  json allocations = json::array();
  std::size_t completed = 0;
  if (scheduler) {
    for (const auto& a : scheduler->records()) {
      json jobs = json::array();
      for (const auto& [ns, st] : a.jobs) jobs.push_back({{"nspace", ns}, {"status", status_name(st)}});
      if (a.ended >= 0 && a.started >= 0) ++completed;
      allocations.push_back({{"alloc_id", a.alloc_id},
                             {"session", a.session_id},
                             {"corr", a.corr},
                             {"requestor", a.requestor},
                             {"submitted", a.submitted},
                             {"started", a.started},
                             {"ended", a.ended},
                             {"cpus", a.cpus},
                             {"nodes", a.node_list},
                             {"status", status_name(a.status)},
                             {"jobs", jobs},
                             {"priority", a.priority},
                             {"preemptions", a.preemptions},
                             {"lost_cpu_s", a.lost_cpu_s}});
    }
  }
  // Each allocation request's fate, in Batsim's terms, for jobs.csv and the metrics.
  std::map<std::string, const CallResult*> answers;
  for (std::uint32_t i = 0; i < requestor_names.size(); ++i)
    if (const auto* req = dynamic_cast<const Requestor*>(world.role(Address::requestor(i))))
      for (const auto& r : req->results()) answers[r.corr] = &r;
  static const std::vector<AllocationRecord> kNoRecords;
  const std::vector<JobOutcome> outcomes =
      job_outcomes(sc, scheduler ? scheduler->records() : kNoRecords, answers, cluster, trace.has_value());
  const Metrics metrics = compute_metrics(outcomes, cluster.schedulable_slots());

  // Against the recording: the simulated wait of each job beside the wait SWF field 3 says
  // the machine really imposed.
  json recorded_summary;
  std::string recorded_csv;
  if (trace && o.compare_recorded) {
    if (const auto c = compare_with_recording(outcomes, *trace)) {
      recorded_csv = c->csv;
      recorded_summary = {{"jobs_compared", c->jobs_compared},
                          {"mean_recorded_wait_s", c->mean_recorded_wait_s},
                          {"mean_abs_deviation_s", c->mean_abs_deviation_s},
                          {"correlation", c->correlation},
                          {"share_within_10_min", c->share_within_10_min}};
    } else {
      recorded_csv = "job_id,simulated_wait,recorded_wait\n";
    }
  }

  const auto& stats = world.stats();
  json summary{{"format", "pmixflow-summary"},
               {"version", 1},
               {"env", "sim"},
               {"scenario", sc.name.empty() ? sc.origin : sc.name},
               {"seed", o.seed},
               {"policy", policy_name},
               {"platform", machine.description},
               {"topology", shape.source},
               {"nodes", cluster.size() - 1},
               {"slots_per_node", shape.slots},
               {"sim_time_s", stats.end_time},
               {"wall_s", wall},
               {"messages", stats.messages},
               {"bytes", stats.bytes},
               {"daemons_started", stats.daemons_started},
               {"daemon_wakeups", stats.actor_wakeups},
               {"events", event_log.events()},
               {"jobs", metrics.jobs},
               {"rejected", metrics.rejected},
               {"mean_wait_s", metrics.mean_wait_s},
               {"max_wait_s", metrics.max_wait_s},
               {"mean_bounded_slowdown", metrics.mean_bounded_slowdown},
               {"utilization", metrics.utilization},
               {"makespan_s", metrics.makespan_s},
               {"preemptions", metrics.preemptions},
               {"lost_work_cpu_s", metrics.lost_cpu_s},
               {"expectations", {{"checked", checked}, {"failed", failures.size()}, {"failures", failures}}}};
  if (trace) {
    // A trace's per-job detail is jobs.csv; the summary keeps the aggregates.
    json skipped = json::object();
    std::size_t total_skipped = 0;
    for (const auto& [reason, count] : trace->skipped) {
      skipped[std::string(swf_skip_name(reason))] = count;
      total_skipped += count;
    }
    summary["trace"] = trace->path;
    if (!recorded_summary.is_null()) summary["recorded"] = recorded_summary;
    summary["skipped"] = total_skipped;
    summary["skipped_by_reason"] = skipped;
  } else {
    summary["calls"] = calls;
    summary["allocations"] = allocations;
  }

  const bool ok = failures.empty();
  std::string written;
  if (!o.out_dir.empty()) {
    OutputFile summary_file(o.out_dir + "/summary.json");
    summary_file.write(summary.dump(2) + "\n");
    OutputFile jobs_file(o.out_dir + "/jobs.csv");
    jobs_file.write(jobs_csv(outcomes));
    std::unique_ptr<OutputFile> recorded_file;
    if (!recorded_csv.empty()) {
      recorded_file = std::make_unique<OutputFile>(o.out_dir + "/recorded.csv");
      recorded_file->write(recorded_csv);
    }
    jobs_file.commit();
    if (recorded_file) recorded_file->commit();
    summary_file.commit();
    written = "  outputs: " +
              (log_file ? o.out_dir + "/events.jsonl (" + std::to_string(event_log.events()) + " events), " : "") +
              o.out_dir + "/jobs.csv, " + o.out_dir + "/summary.json\n";
  }
  if (!o.quiet) {
    out << "pmixflow sim: " << (sc.name.empty() ? sc.origin : sc.name) << "\n";
    if (!sc.description.empty()) out << "  " << sc.description << "\n";
    out << "  machine: " << machine.description << "; " << cluster.size() - 1 << " compute nodes of " << shape.slots
        << " slots (" << shape.source << "), head " << cluster.node(0).name << "\n";
    out << "  simulated " << fmt_seconds(stats.end_time) << " in " << fmt_seconds(wall) << " wall; " << stats.messages
        << " messages, " << stats.daemons_started << " daemons started; policy " << policy_name << "\n";
    if (trace) {
      std::size_t skipped = 0;
      for (const auto& [reason, count] : trace->skipped) skipped += count;
      out << "  jobs: " << metrics.jobs << " run, " << metrics.rejected << " rejected, " << skipped
          << " skipped in the trace\n";
      out << std::setprecision(6) << "  mean wait " << metrics.mean_wait_s << " s (max " << metrics.max_wait_s
          << " s), mean bounded slowdown " << metrics.mean_bounded_slowdown << ", utilization " << metrics.utilization
          << ", makespan " << metrics.makespan_s << " s\n";
      if (metrics.preemptions > 0)
        out << "  preemptions " << metrics.preemptions << ", work lost " << metrics.lost_cpu_s << " cpu-s\n";
    } else {
      out << "  calls (requestor#n, what, entry point -> answer):\n" << call_lines.str();
      out << "  allocations: " << allocations.size() << " granted or refused, " << completed << " completed\n";
    }
    out << "  expectations: " << checked << " checked, " << failures.size() << " failed";
    if (unanswered) out << " (" << unanswered << " calls never answered)";
    out << "\n" << written;
    for (const auto& f : failures) out << "  FAILED: " << f.dump() << "\n";
  }
  return ok ? 0 : 1;
}

}  // namespace pmixflow::sim
