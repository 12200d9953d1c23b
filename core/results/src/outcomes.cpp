#include "pmixflow/results/outcomes.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {

std::string_view final_state(const RequestFate& f) {
  if (f.accounted && f.started) {
    if (!f.ended) return "RUNNING";  // still running when the run ended
    // The RM could not instantiate it (its launch failed): it ran, and failed.
    if (f.account_status != Status::Success) return "COMPLETED_FAILED";
    // Its jobs were still running when the DVM went with the controller: nobody reports their
    // end, but they ended there.
    if (f.lost_with_rm && !f.first_job) return "COMPLETED_KILLED";
    switch (f.first_job.value_or(Status::Success)) {  // a reservation without jobs ended as asked
      case Status::Success: return "COMPLETED_SUCCESSFULLY";
      case Status::ErrTimeout: return "COMPLETED_WALLTIME_REACHED";
      case Status::ErrJobKilledByCmd:
      case Status::ErrJobAbortedBySig:
      case Status::ErrJobAbortedBySysEvent: return "COMPLETED_KILLED";
      default: return "COMPLETED_FAILED";
    }
  }
  // Never started: why not, from what the scheduler (or the RM) said of it, else its answer.
  const Status why = f.accounted && f.account_status != Status::Success ? f.account_status
                     : f.answer                                         ? *f.answer
                                                                        : Status::Success;
  if (why == Status::Success) return "SUBMITTED";  // still waiting when the run ended
  if (why == Status::ErrJobCanceled) return "CANCELLED";
  if (why == Status::ErrUnreach) return "LOST";
  return "REJECTED";
}

double nearest_rank(const std::vector<double>& sorted, unsigned percent) {
  if (sorted.empty() || percent == 0 || percent > 100) throw std::invalid_argument("nearest_rank: no such rank");
  // The rank is ceil(percent/100 x n), in whole numbers: 0.9 x 10 in doubles is not 9.
  const std::size_t rank = (percent * sorted.size() + 99) / 100;
  return sorted[rank - 1];
}

std::optional<Percentiles> percentiles(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return Percentiles{nearest_rank(values, 50), nearest_rank(values, 90), nearest_rank(values, 99)};
}

Metrics compute_metrics(const JobOutcomes& jobs, std::uint64_t resources) {
  Metrics m;
  double first_submit = std::numeric_limits<double>::infinity(), last_end = 0;
  double wait_sum = 0, slowdown_sum = 0, work = 0;
  std::vector<double> waits, slowdowns;
  for (const auto& j : jobs) {
    first_submit = std::min(first_submit, j.submitted);
    m.preemptions += j.preemptions;
    m.lost_cpu_s += j.lost_cpu_s;
    ++m.final_states[std::string(j.final_state)];
    if (j.final_state == "REJECTED") ++m.rejected;
    if (!j.ran()) continue;
    const double wait = j.started - j.submitted;
    const double run = j.finished - j.started;
    ++m.jobs;
    const double slowdown = std::max(1.0, (wait + run) / std::max(run, 10.0));
    wait_sum += wait;
    waits.push_back(wait);
    m.max_wait_s = std::max(m.max_wait_s, wait);
    slowdown_sum += slowdown;
    slowdowns.push_back(slowdown);
    // What it held, as evalys counts it: the resources jobs.csv lists for it.
    work += run * static_cast<double>(j.allocated_count);
    last_end = std::max(last_end, j.finished);
  }
  if (m.jobs == 0) return m;
  m.mean_wait_s = wait_sum / static_cast<double>(m.jobs);
  m.mean_bounded_slowdown = slowdown_sum / static_cast<double>(m.jobs);
  m.wait_percentiles = percentiles(std::move(waits));
  m.slowdown_percentiles = percentiles(std::move(slowdowns));
  m.makespan_s = last_end - first_submit;
  if (resources > 0 && m.makespan_s > 0) m.utilization = work / (static_cast<double>(resources) * m.makespan_s);
  return m;
}

namespace {

void csv_field(std::string& out, std::string_view s) {
  // Quoted only when it must be (Batsim writes plain values; interval sets have spaces only).
  if (s.find_first_of(",\"\n") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  out += '"';
}

}  // namespace

void write_jobs_csv(const JobOutcomes& jobs, std::string_view workload,
                    const std::function<void(std::string_view)>& write) {
  // Handed on in blocks of about this many bytes: a trace of a million jobs is never one string.
  constexpr std::size_t kBlock = 1 << 20;
  std::string out =
      "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
      "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
      "allocated_resources,consumed_energy,metadata\n";
  out.reserve(kBlock + 4096);
  for (const auto& j : jobs) {
    if (out.size() >= kBlock) {
      write(out);
      out.clear();
    }
    csv_field(out, j.job_id);
    out += ',';
    csv_field(out, workload);
    out += ',';
    csv_field(out, j.profile);
    out += ',';
    json_number_into(out, j.submitted);
    out += ',' + std::to_string(j.requested) + ',';
    json_number_into(out, j.requested_time);
    out += j.final_state == "COMPLETED_SUCCESSFULLY" ? ",1," : ",0,";
    out += j.final_state;
    out += ',';
    // As Batsim: the times a job does not have are left empty (one still running has started).
    if (j.started >= 0) json_number_into(out, j.started);
    out += ',';
    if (j.ran()) json_number_into(out, j.finished - j.started);
    out += ',';
    if (j.ran()) json_number_into(out, j.finished);
    out += ',';
    if (j.started >= 0) json_number_into(out, j.started - j.submitted);
    out += ',';
    if (j.ran()) json_number_into(out, j.finished - j.submitted);
    out += ',';
    if (j.ran()) {
      const double exec = j.finished - j.started;
      json_number_into(out, exec > 0 ? (j.finished - j.submitted) / exec : 0);
    }
    out += ',';
    csv_field(out, j.allocated);
    // Energy is not modelled: Batsim's -1 for a job that ran, nothing for one that did not.
    out += j.started >= 0 ? ",-1," : ",,";
    // Batsim's metadata is free text; preempted jobs say how often and how much work was lost
    // (no comma, so that naive CSV readers still see 17 columns).
    if (j.preemptions > 0) {
      out += "preemptions=" + std::to_string(j.preemptions) + ";lost_cpu_s=";
      json_number_into(out, j.lost_cpu_s);
    }
    out += '\n';
  }
  write(out);
}

}  // namespace pmixflow
