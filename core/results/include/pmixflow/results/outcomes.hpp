// What became of each job, as researchers compare them: Batsim's jobs.csv (so evalys and the
// tools around Batsim read it) and the usual aggregate metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

struct JobOutcome {
  std::string job_id;
  std::string workload;
  std::string profile;
  double submitted = 0;  // when the requestor asked
  std::uint64_t procs = 0;
  double requested_time = 0;  // the estimate (PMIX_ALLOC_TIME); 0: none
  double started = -1;        // -1: never started
  double finished = -1;
  std::string final_state;        // COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED, ...
  std::string allocated;          // Batsim interval set of resource ids: "0-3 7"
  std::uint32_t preemptions = 0;  // sessions of it terminated by preemption before the one that ran
  double lost_cpu_s = 0;          // the work those sessions had done: run time x cpus
};

// Batsim's final state for a request answered `answer` whose (first) job ended `job_status`.
std::string batsim_final_state(Status answer, bool ran, Status job_status);

struct Metrics {
  std::size_t jobs = 0;  // finished jobs the means are over
  std::size_t rejected = 0;
  double mean_wait_s = 0;
  double max_wait_s = 0;
  double mean_bounded_slowdown = 0;  // max(1, (wait + run) / max(run, 10))
  double utilization = 0;            // sum(run * procs) / (total procs * makespan)
  double makespan_s = 0;             // last end - first submit
  std::size_t preemptions = 0;       // sessions terminated to make room (their jobs requeued)
  double lost_cpu_s = 0;             // work those sessions lost: sum of run time x cpus
};

Metrics compute_metrics(const std::vector<JobOutcome>& jobs, std::uint64_t total_procs);

// jobs.csv, Batsim's columns in Batsim's order.
std::string jobs_csv(const std::vector<JobOutcome>& jobs);

// "0-3 7" from resource ids (any order, duplicates allowed).
std::string interval_set(std::vector<std::uint32_t> ids);

}  // namespace pmixflow
