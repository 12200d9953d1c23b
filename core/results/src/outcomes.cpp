#include "pmixflow/results/outcomes.hpp"

#include <algorithm>
#include <limits>

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {

std::string batsim_final_state(Status answer, bool ran, Status job_status) {
  if (answer != Status::Success && !ran) return "REJECTED";
  if (!ran) return "COMPLETED_KILLED";
  switch (job_status) {
    case Status::Success: return "COMPLETED_SUCCESSFULLY";
    case Status::ErrTimeout: return "COMPLETED_WALLTIME_REACHED";
    case Status::ErrJobKilledByCmd:
    case Status::ErrJobAbortedBySig:
    case Status::ErrJobAbortedBySysEvent: return "COMPLETED_KILLED";
    default: return "COMPLETED_FAILED";
  }
}

Metrics compute_metrics(const std::vector<JobOutcome>& jobs, std::uint64_t total_procs) {
  Metrics m;
  double first_submit = std::numeric_limits<double>::infinity(), last_end = 0;
  double wait_sum = 0, slowdown_sum = 0, work = 0;
  for (const auto& j : jobs) {
    first_submit = std::min(first_submit, j.submitted);
    m.preemptions += j.preemptions;
    m.lost_cpu_s += j.lost_cpu_s;
    if (j.started < 0 || j.finished < 0) {
      ++m.rejected;
      continue;
    }
    const double wait = j.started - j.submitted;
    const double run = j.finished - j.started;
    ++m.jobs;
    wait_sum += wait;
    m.max_wait_s = std::max(m.max_wait_s, wait);
    slowdown_sum += std::max(1.0, (wait + run) / std::max(run, 10.0));
    work += run * static_cast<double>(j.procs);
    last_end = std::max(last_end, j.finished);
  }
  if (m.jobs == 0) return m;
  m.mean_wait_s = wait_sum / static_cast<double>(m.jobs);
  m.mean_bounded_slowdown = slowdown_sum / static_cast<double>(m.jobs);
  m.makespan_s = last_end - first_submit;
  if (total_procs > 0 && m.makespan_s > 0) m.utilization = work / (static_cast<double>(total_procs) * m.makespan_s);
  return m;
}

std::string interval_set(std::vector<std::uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

namespace {

void csv_field(std::string& out, const std::string& s) {
  // Quoted only when it must be (Batsim writes plain values; interval sets have spaces only).
  if (s.find_first_of(",\"\n") == std::string::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  out += '"';
}

}  // namespace

std::string jobs_csv(const std::vector<JobOutcome>& jobs) {
  std::string out =
      "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
      "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
      "allocated_resources,consumed_energy,metadata\n";
  for (const auto& j : jobs) {
    const bool ran = j.started >= 0 && j.finished >= 0;
    const double exec = ran ? j.finished - j.started : 0;
    const double wait = ran ? j.started - j.submitted : 0;
    const double turnaround = ran ? j.finished - j.submitted : 0;
    csv_field(out, j.job_id);
    out += ',';
    csv_field(out, j.workload);
    out += ',';
    csv_field(out, j.profile);
    out += ',';
    json_number_into(out, j.submitted);
    out += ',' + std::to_string(j.procs) + ',';
    json_number_into(out, j.requested_time);
    out += j.final_state == "COMPLETED_SUCCESSFULLY" ? ",1," : ",0,";
    out += j.final_state + ',';
    // Batsim writes -1 for the times of a job that never ran.
    if (ran) {
      json_number_into(out, j.started);
      out += ',';
      json_number_into(out, exec);
      out += ',';
      json_number_into(out, j.finished);
      out += ',';
      json_number_into(out, wait);
      out += ',';
      json_number_into(out, turnaround);
      out += ',';
      json_number_into(out, exec > 0 ? turnaround / exec : 0);
    } else {
      out += "-1,-1,-1,-1,-1,-1";
    }
    out += ',';
    csv_field(out, j.allocated);
    out += ",-1,";
    // Batsim's metadata is free text; preempted jobs say how often and how much work was lost
    // (no comma, so that naive CSV readers still see 17 columns).
    if (j.preemptions > 0) {
      out += "preemptions=" + std::to_string(j.preemptions) + ";lost_cpu_s=";
      json_number_into(out, j.lost_cpu_s);
    }
    out += '\n';
  }
  return out;
}

}  // namespace pmixflow
