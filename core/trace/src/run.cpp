#include "pmixflow/trace/run.hpp"

#include <algorithm>
#include <sstream>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/trace/replay.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

Workload load_workload(const RunInputs& in) {
  Workload w;
  if (!in.trace_file.empty()) {
    w.trace = read_swf(in.trace_file, SwfOptions{in.lenient, in.estimates});
    if (w.trace->max_nodes && *w.trace->max_nodes > 0) {
      w.trace_nodes = static_cast<std::uint32_t>(*w.trace->max_nodes);
      if (w.trace->max_procs)
        w.trace_slots =
            static_cast<std::uint32_t>(std::max<std::int64_t>(1, *w.trace->max_procs / *w.trace->max_nodes));
    }
  } else if (in.scenario_file.empty()) {
    std::istringstream text(in.scenario_text);
    w.scenario = parse_scenario(text, "built-in demo scenario");
  } else {
    w.scenario = load_scenario(in.scenario_file);
  }
  w.head_computes = in.head_computes || w.scenario.head_computes;
  w.policy = !in.policy.empty() ? in.policy : w.trace ? std::string("fcfs") : w.scenario.policy;
  try {
    make_policy(w.policy);  // known (or loadable) before anything runs
  } catch (const InputError& e) {
    if (!in.policy.empty()) throw;
    throw InputError(w.scenario.origin, 1, "policy", e.detail());
  }
  return w;
}

void plan_replay(Workload& workload, const RunInputs& in, std::uint32_t compute_nodes) {
  if (!workload.trace) return;
  const ReplayOptions options{in.via_daemon, in.seed, workload.policy, 1.0, in.preemptible_queues, in.all_preemptible};
  workload.scenario = replay_scenario(*workload.trace, options);
  workload.replay = replay_jobs(*workload.trace, compute_nodes, options);
}

RunInfo describe_run(std::string env, const Workload& w, const RunInputs& in, const Cluster& cluster,
                     MachineFacts machine) {
  RunInfo r;
  r.env = std::move(env);
  r.seed = in.seed;
  r.scenario = w.scenario.origin;
  r.name = w.scenario.name;
  r.description = w.scenario.description;
  r.platform = std::move(machine.platform);
  r.topology = std::move(machine.topology);
  r.head = cluster.node(Cluster::kHead).name;
  r.compute_nodes = cluster.schedulable_names();
  r.nodes = static_cast<std::uint32_t>(r.compute_nodes.size());
  r.slots_per_node = machine.slots_per_node;
  r.policy = w.policy;
  r.time_origin = w.scenario.time_origin;
  r.assertions = w.scenario.assertions;
  r.host = in.dvm_host;
  r.hostfile = in.dvm_hostfile;
  r.options = {{"batch_delay", in.batch_delay.value_or(w.scenario.batch_delay.value_or(kDefaultBatchDelay))},
               {"exclusive_nodes", w.scenario.exclusive_nodes || in.exclusive_nodes},
               {"head_computes", w.head_computes}};
  if (!in.queue_priorities.empty()) r.options["queue_priorities"] = in.queue_priorities;
  if (w.trace) {
    r.options["via_daemon"] = in.via_daemon;
    r.options["estimates"] = estimate_rule_name(in.estimates);
    if (in.all_preemptible)
      r.options["preemptible"] = "all";
    else if (!in.preemptible_queues.empty())
      r.options["preemptible"] = in.preemptible_queues;
    r.trace = w.trace->path;
    for (const auto& [reason, count] : w.trace->skipped)
      r.skipped_by_reason[std::string(swf_skip_name(reason))] = count;
    for (const auto& [repair, count] : w.trace->repaired)
      r.repaired_by_reason[std::string(swf_repair_name(repair))] = count;
    r.estimates_by_case = {{"missing", w.trace->estimates_missing}, {"shorter", w.trace->estimates_shorter}};
    r.compare_recorded = in.compare_recorded;
    r.node_mtbf = in.node_mtbf;
    r.node_mttr = in.node_mttr;
    if (in.node_mtbf) r.options["node_mtbf"] = *in.node_mtbf;
    if (in.node_mttr) r.options["node_mttr"] = *in.node_mttr;
  }
  return r;
}

}  // namespace pmixflow
