#include "pmixflow/results/run_outcomes.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/interval_set.hpp"
#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {
namespace {

std::string job_id(const RunInfo& run, const std::string& corr) {
  return !run.trace.empty() && corr.rfind("job", 0) == 0 ? corr.substr(3) : corr;
}

// The slots a standalone RM's session held: the nodes its request named, and on each the
// first slots (Batsim's numbering: node-major over the compute nodes).
std::string standalone_resources(const RunInfo& run, const std::string& node_list) {
  std::vector<std::uint32_t> ids;
  try {
    for (const auto& h : parse_host_list(node_list, HostUse::NodeList, "node list").hosts)
      if (auto n = run.node_index(h.name))
        for (std::uint32_t k = 0; k < h.slots.value_or(run.slots_per_node); ++k)
          ids.push_back(*n * run.slots_per_node + k);
  } catch (const InputError&) {
    // A request that never got nodes has an empty list: no resources.
  }
  return interval_set(std::move(ids));
}

RequestFate fate(const CallRecord& call, const AllocationAccount* acc) {
  RequestFate f;
  if (call.answered) f.answer = call.status;
  if (!acc) return f;
  f.accounted = true;
  f.account_status = acc->status;
  f.started = acc->started >= 0;
  f.ended = acc->ended >= 0;
  if (!acc->jobs.empty()) f.first_job = acc->jobs.front().second;
  f.lost_with_rm = acc->lost_with_rm;
  // A standalone RM that could not serve it said so only in its answer.
  if (acc->standalone && !f.started && f.answer && *f.answer != Status::Success) f.account_status = *f.answer;
  return f;
}

JobOutcome outcome(const RunInfo& run, const CallRecord& call, const AllocationAccount* acc) {
  JobOutcome j;
  j.job_id = job_id(run, call.corr);
  const RequestAsked& a = call.asked;
  j.profile = a.profile;
  j.submitted = call.sent - run.time_origin;
  // Slots, the unit resources are counted in: whole nodes count all their slots.
  j.requested = a.nodes > 0 ? a.nodes * run.slots_per_node : a.cpus;
  // A request naming its nodes (a standalone NEW, as PRRTE's ras/hosts serves it) asks for their slots.
  if (j.requested == 0 && !a.node_list.empty())
    j.requested = interval_set_size(standalone_resources(run, std::string(a.node_list)));
  j.final_state = final_state(fate(call, acc));
  if (!acc) return j;
  if (!acc->standalone) j.requested = acc->cpus;
  j.requested_time = acc->time_limit;
  j.preemptions = acc->preemptions;
  j.lost_cpu_s = acc->lost_cpu_s;
  if (acc->started < 0) return j;
  j.started = acc->started - run.time_origin;
  if (acc->ended >= 0) j.finished = acc->ended - run.time_origin;
  j.allocated = acc->standalone ? standalone_resources(run, acc->node_list) : acc->resources;
  j.allocated_count = interval_set_size(j.allocated);
  return j;
}

}  // namespace

JobOutcomes job_outcomes(const RunInfo& run, const CallLedger& calls, const AllocationLedger& allocations) {
  std::vector<const CallRecord*> requests;
  for (const auto& c : calls.calls())
    if (c.directive == directive_name(Directive::New)) requests.push_back(&c);
  std::stable_sort(requests.begin(), requests.end(),
                   [](const CallRecord* a, const CallRecord* b) { return a->line < b->line; });
  JobOutcomes out;
  for (const CallRecord* c : requests) out.push_back(outcome(run, *c, allocations.find(c->corr)));
  return out;
}

std::map<std::string, double> recorded_waits(const RunInfo& run, const CallLedger& calls) {
  std::map<std::string, double> out;
  for (const auto& c : calls.calls())
    if (c.recorded_wait) out[job_id(run, c.corr)] = *c.recorded_wait;
  return out;
}

std::optional<RecordedComparison> compare_with_recording(const JobOutcomes& outcomes,
                                                         const std::map<std::string, double>& recorded_wait) {
  struct Pair {
    double simulated, recorded;
  };
  std::vector<Pair> pairs;
  RecordedComparison c;
  c.csv = "job_id,simulated_wait,recorded_wait\n";
  for (const auto& j : outcomes) {
    auto rec = recorded_wait.find(j.job_id);
    if (rec == recorded_wait.end() || rec->second < 0 || j.started < 0) continue;
    const Pair p{j.started - j.submitted, rec->second};
    c.csv += j.job_id + ",";
    json_number_into(c.csv, p.simulated);
    c.csv += ",";
    json_number_into(c.csv, p.recorded);
    c.csv += "\n";
    pairs.push_back(p);
  }
  if (pairs.empty()) return std::nullopt;
  const double n = static_cast<double>(pairs.size());
  double sum_sim = 0, sum_rec = 0, sum_abs = 0, within = 0;
  for (const auto& p : pairs) {
    sum_sim += p.simulated;
    sum_rec += p.recorded;
    sum_abs += std::abs(p.simulated - p.recorded);
    within += std::abs(p.simulated - p.recorded) <= 600 ? 1 : 0;
  }
  const double mean_sim = sum_sim / n, mean_rec = sum_rec / n;
  double sxx = 0, syy = 0, sxy = 0;
  for (const auto& p : pairs) {
    const double dx = p.simulated - mean_sim, dy = p.recorded - mean_rec;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  c.jobs_compared = pairs.size();
  c.mean_recorded_wait_s = mean_rec;
  c.mean_abs_deviation_s = sum_abs / n;
  c.correlation = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
  c.share_within_10_min = within / n;
  return c;
}

}  // namespace pmixflow
