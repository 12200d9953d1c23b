// summary.json: the run, its metrics, and for a scenario every call and allocation.
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/vocab.hpp"
#include "report_parts.hpp"

namespace pmixflow::report_detail {
namespace {

using json = nlohmann::json;

// A PMIx info list as the log writes it ([[key, value], ...]) as an object, the last value of
// a repeated key winning.
json info_object(std::string_view pairs) {
  json out = json::object();
  const json list = json::parse(pairs, nullptr, false);
  if (!list.is_array()) return out;
  for (const auto& item : list)
    if (item.is_array() && item.size() == 2 && item[0].is_string()) out[item[0].get<std::string>()] = item[1];
  return out;
}

json calls_json(const CallLedger& calls) {
  json out = json::array();
  for (const CallRecord* c : calls.by_requestor()) {
    json entry{{"corr", c->corr}, {"line", c->line}, {"what", c->what},
               {"via", c->via},   {"sent", c->sent}, {"status", c->answered ? status_name(c->status) : "none"}};
    if (c->answered) entry["answered"] = *c->answered;
    if (c->caller_gone) entry["caller_gone"] = *c->caller_gone;
    entry["info"] = info_object(c->answer_info());
    if (c->expect) entry["expected"] = status_name(*c->expect);
    out.push_back(std::move(entry));
  }
  return out;
}

json allocations_json(const AllocationLedger& scheduler) {
  json out = json::array();
  for (const auto& a : scheduler.accounts()) {
    json jobs = json::array();
    for (const auto& [ns, st] : a.jobs) jobs.push_back({{"nspace", ns}, {"status", status_name(st)}});
    out.push_back({{"alloc_id", a.alloc_id},
                   {"session", a.session},
                   {"corr", a.corr},
                   {"requestor", a.requestor},
                   {"submitted", a.submitted},
                   {"started", a.started},
                   {"ended", a.ended},
                   {"cpus", a.cpus},
                   {"nodes", a.node_list},
                   {"resources", a.resources},
                   {"status", status_name(a.status)},
                   {"jobs", jobs},
                   {"priority", a.priority},
                   {"preemptions", a.preemptions},
                   {"lost_cpu_s", a.lost_cpu_s}});
  }
  return out;
}

// What failures cost (failures.hpp), with the rates a replay drew them at when it did.
json failures_json(const Pieces& p) {
  const FailureFigures& f = p.failures;
  json out{{"node_failures", f.node_failures},
           {"node_repairs", f.node_repairs},
           {"jobs_killed", f.jobs_killed},
           {"lost_work_cpu_s", f.lost_cpu_s}};
  if (p.run.node_mtbf) out["node_mtbf_s"] = *p.run.node_mtbf;
  if (p.run.node_mttr) out["node_mttr_s"] = *p.run.node_mttr;
  return out;
}

// How jobs.csv numbers resources, so that its allocated_resources can be read back to nodes.
json resources_json(const RunInfo& run) {
  json r{{"unit", "slot"},
         {"count", run.total_slots()},
         {"numbering", "node-major: the slots of each compute node in turn, the nodes in the machine's order"}};
  if (run.total_slots() > 0)
    r["nodes"] = json::array({{{"nodes", compress_host_names(run.compute_nodes)},
                               {"slots_per_node", run.slots_per_node},
                               {"first", 0},
                               {"last", run.total_slots() - 1}}});
  return r;
}

// p50/p90/p99 of waits and of bounded slowdowns, null when no job ran (a mean of nothing is
// 0, but no job had a 0 wait to be its median).
void add_percentiles(json& s, const Metrics& m) {
  const auto put = [&s](const std::optional<Percentiles>& p, const std::string& metric) {
    s["p50_" + metric] = p ? json(p->p50) : json(nullptr);
    s["p90_" + metric] = p ? json(p->p90) : json(nullptr);
    s["p99_" + metric] = p ? json(p->p99) : json(nullptr);
  };
  put(m.wait_percentiles, "wait_s");
  put(m.slowdown_percentiles, "bounded_slowdown");
}

std::size_t by_case(const RunInfo& run, const char* name) {
  const auto it = run.estimates_by_case.find(name);
  return it == run.estimates_by_case.end() ? 0 : it->second;
}

std::size_t final_state_count(const Metrics& m, const char* state) {
  const auto it = m.final_states.find(state);
  return it == m.final_states.end() ? 0 : it->second;
}

}  // namespace

json estimates_json(const Pieces& p) {
  const std::string rule = p.run.estimate_rule();
  const std::size_t missing = by_case(p.run, "missing"), shorter = by_case(p.run, "shorter");
  return {{"rule", rule},
          {"missing", missing},
          {"shorter", shorter},
          {"raised", rule == "raised" ? missing + shorter : 0},
          {"ended_at_limit", final_state_count(p.metrics, "COMPLETED_WALLTIME_REACHED")}};
}

namespace {

void add_replay(json& s, const Pieces& p) {
  std::size_t skipped = 0;
  for (const auto& [reason, count] : p.run.skipped_by_reason) skipped += count;
  s["trace"] = p.run.trace;
  if (p.run.compare_recorded && p.recorded)
    s["recorded"] = {{"jobs_compared", p.recorded->jobs_compared},
                     {"mean_recorded_wait_s", p.recorded->mean_recorded_wait_s},
                     {"mean_abs_deviation_s", p.recorded->mean_abs_deviation_s},
                     {"correlation", p.recorded->correlation},
                     {"share_within_10_min", p.recorded->share_within_10_min}};
  s["skipped"] = skipped;
  s["skipped_by_reason"] = p.run.skipped_by_reason;
  // What --lenient changed rather than refused, never silent either; absent when nothing was.
  if (!p.run.repaired_by_reason.empty()) s["repaired_by_reason"] = p.run.repaired_by_reason;
  // What the run did with the trace's missing and short estimates (absent from a summary of a
  // log written before --estimates, which always raised them).
  if (!p.run.estimate_rule().empty()) s["estimates"] = estimates_json(p);
}

}  // namespace

json summary(const Pieces& p) {
  const Metrics& m = p.metrics;
  json s{{"format", "pmixflow-summary"},
         {"version", 1},
         {"env", p.run.env},
         {"scenario", p.run.workload()},
         {"seed", p.run.seed},
         {"policy", p.run.policy},
         {"platform", p.run.platform},
         {"topology", p.run.topology},
         {"nodes", p.run.nodes},
         {"slots_per_node", p.run.slots_per_node},
         {"resources", resources_json(p.run)},
         {"options", p.run.options},
         {"jobs", m.jobs},
         {"rejected", m.rejected},
         {"final_states", m.final_states},
         {"mean_wait_s", m.mean_wait_s},
         {"max_wait_s", m.max_wait_s},
         {"mean_bounded_slowdown", m.mean_bounded_slowdown},
         {"utilization", m.utilization},
         {"makespan_s", m.makespan_s},
         {"preemptions", m.preemptions},
         {"lost_work_cpu_s", m.lost_cpu_s},
         {"failures", failures_json(p)},
         {"expectations",
          {{"checked", p.expectations.checked},
           {"failed", p.expectations.failures.size()},
           {"abandoned", p.account.abandoned},  // kept where readers found it before call_account
           {"failures", p.expectations.failures}}}};
  add_percentiles(s, m);
  // Codes PMIx has no name for, by their named unknown; absent when there was none.
  if (!p.unnamed.counts().empty()) s["unnamed_statuses"] = p.unnamed.counts();
  // The environment's own figures, as the closing line gives them (a cut log has none).
  if (p.end) {
    for (const auto& [key, value] : p.end->stats.items()) s[key] = value;
    s["events"] = p.end->events;
    s["end"] = p.end->how;  // how the run ended: a stalled run is not a finished one
  } else {
    s["partial"] = true;
  }
  s["call_account"] = to_json(p.account);  // the log's own, recounted: the closing line's says the same
  // The DVM's hosts at start, when the command line gave them (absent otherwise).
  if (!p.run.host.empty()) s["host"] = p.run.host;
  if (!p.run.hostfile.empty()) s["hostfile"] = p.run.hostfile;
  if (!p.run.trace.empty()) {
    add_replay(s, p);  // a trace's per-job detail is jobs.csv; the summary keeps the aggregates
  } else {
    s["calls"] = calls_json(p.calls);
    s["allocations"] = allocations_json(p.scheduler);
  }
  return s;
}

void check_account(const CallAccount& account, Expectations& e) {
  if (account.never_made() > 0)
    e.failures.push_back({{"problem", std::to_string(account.never_made()) + " of the " +
                                          std::to_string(*account.planned) +
                                          " planned calls were never made (the log has no call event for them)"}});
  if (account.unplanned() > 0)
    e.failures.push_back({{"problem", std::to_string(account.unplanned()) +
                                          " calls in the log were not planned (its header plans " +
                                          std::to_string(*account.planned) + ")"}});
}

Expectations check_expectations(const CallLedger& calls) {
  Expectations e;
  for (const CallRecord* c : calls.by_requestor()) {
    // Abandoned calls (their requestor gone first) are no failure; how many, CallAccount says.
    if (!c->answered && !c->caller_gone)
      e.failures.push_back({{"corr", c->corr}, {"line", c->line}, {"problem", "never answered"}});
    if (!c->expect) continue;
    ++e.checked;
    if (c->answered && c->status != *c->expect)
      e.failures.push_back({{"corr", c->corr},
                            {"line", c->line},
                            {"expected", status_name(*c->expect)},
                            {"got", status_name(c->status)}});
  }
  return e;
}

}  // namespace pmixflow::report_detail
