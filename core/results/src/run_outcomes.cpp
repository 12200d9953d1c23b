#include "pmixflow/results/run_outcomes.hpp"

#include <cmath>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {

std::vector<JobOutcome> job_outcomes(const Scenario& sc, const std::vector<AllocationRecord>& records,
                                     const std::map<std::string, const CallResult*>& answers, const Cluster& cluster,
                                     bool from_trace) {
  std::map<std::string, const AllocationRecord*> record_of;
  for (const auto& a : records) record_of[a.corr] = &a;
  std::vector<JobOutcome> outcomes;
  for (const auto& c : sc.calls) {
    const auto* req = std::get_if<AllocRequest>(&c.call);
    if (!req || req->directive != Directive::New) continue;
    JobOutcome j;
    j.job_id = from_trace && req->corr.rfind("job", 0) == 0 ? req->corr.substr(3) : req->corr;
    j.workload = sc.name.empty() ? sc.origin : sc.name;
    const auto* apps = req->info.get<std::vector<App>>(key::SESSION_APP);
    j.profile = apps && !apps->empty() ? apps->front().cmd : "reservation";
    j.submitted = c.at - sc.time_origin;
    j.procs = req->info.get_uint(key::ALLOC_NUM_CPUS).value_or(0);
    const auto rec = record_of.find(req->corr);
    const auto res = answers.find(req->corr);
    const Status answer = res != answers.end() && res->second->answered >= 0 ? res->second->status : Status::ErrUnreach;
    if (rec == record_of.end()) {
      j.final_state = batsim_final_state(answer, false, answer);
    } else {
      const AllocationRecord& a = *rec->second;
      j.procs = a.cpus;
      j.requested_time = a.time_limit;
      j.preemptions = a.preemptions;
      j.lost_cpu_s = a.lost_cpu_s;
      const bool ran = a.started >= 0 && a.ended >= 0;
      if (ran) {
        j.started = a.started - sc.time_origin;
        j.finished = a.ended - sc.time_origin;
      }
      j.final_state = batsim_final_state(a.status, ran, a.jobs.empty() ? Status::Success : a.jobs.front().second);
      // Batsim numbers resources from 0: compute nodes in the cluster's order, head excluded.
      std::vector<std::uint32_t> ids;
      try {
        for (const auto& h : parse_host_list(a.node_list, HostUse::NodeList, "node list").hosts)
          if (auto n = cluster.find(h.name)) ids.push_back(*n - 1);
      } catch (const InputError&) {
        // A request that never got nodes has an empty list: no resources.
      }
      j.allocated = interval_set(std::move(ids));
    }
    outcomes.push_back(std::move(j));
  }
  return outcomes;
}

std::optional<RecordedComparison> compare_with_recording(const std::vector<JobOutcome>& outcomes,
                                                         const SwfTrace& trace) {
  std::map<std::string, double> recorded_wait;
  for (const auto& j : trace.jobs) recorded_wait[std::to_string(j.record.job)] = j.record.wait;
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
