// What became of each job, as researchers compare them: Batsim's jobs.csv (so evalys and the
// tools around Batsim read it, and get right answers) and the usual aggregate metrics.
// docs/outputs.md is the user's reference for both.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/vocab/stable_vector.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

// One row of jobs.csv. A replay holds one per job at its end: what is the same for every row
// (the workload's name) is not repeated, and the state is a name from kFinalStates, not a copy.
struct JobOutcome {
  std::string job_id;
  std::string profile;
  double submitted = 0;               // when the requestor asked
  std::uint64_t requested = 0;        // resources (slots) asked for
  double requested_time = 0;          // the estimate (PMIX_ALLOC_TIME); 0: none
  double started = -1;                // -1: never started
  double finished = -1;               // -1: never finished (never started, or still running)
  std::string_view final_state;       // one of kFinalStates (a view of a literal)
  std::string allocated;              // Batsim interval set of resource ids: "0-3 7"
  std::uint64_t allocated_count = 0;  // how many resources that is
  std::uint32_t preemptions = 0;      // sessions of it terminated by preemption before the one that ran
  double lost_cpu_s = 0;              // the work those sessions had done: run time x cpus

  bool ran() const { return started >= 0 && finished >= 0; }
};

// A run's outcomes, in blocks: a million of them are not one array that must find a place
// of its own beside the memory the run has just let go.
using JobOutcomes = StableVector<JobOutcome>;

// Batsim's job states, and pmixflow's own where none fits: CANCELLED (withdrawn by its own
// requestor, PMIX_ERR_JOB_CANCELED) and LOST (never decided: PMIX_ERR_UNREACH, no scheduler
// reachable or the one holding it went away).
inline const std::vector<std::string> kFinalStates{"SUBMITTED",
                                                   "RUNNING",
                                                   "COMPLETED_SUCCESSFULLY",
                                                   "COMPLETED_FAILED",
                                                   "COMPLETED_WALLTIME_REACHED",
                                                   "COMPLETED_KILLED",
                                                   "REJECTED",
                                                   "CANCELLED",
                                                   "LOST"};

// The facts a request's final state is read from.
struct RequestFate {
  std::optional<Status> answer;             // how its call was answered; none: not (yet)
  bool accounted = false;                   // a scheduler queued it, or the RM served it itself
  Status account_status = Status::Success;  // the RM's answer to its instantiation, or why it left the queue
  bool started = false;                     // its resources were granted (and not taken back since)
  bool ended = false;                       // its session was reported complete
  std::optional<Status> first_job;          // how the first of its jobs to end ended (job.end)
  bool lost_with_rm = false;                // its session ended with the controller's death
};

std::string_view final_state(const RequestFate& fate);

// Nearest-rank percentiles: the smallest value with at least p % of the values at or below it,
// always one of the values (no interpolation), so that a p50 wait is a wait some job had.
struct Percentiles {
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
};

// `sorted` ascending and not empty; `percent` in 1..100.
double nearest_rank(const std::vector<double>& sorted, unsigned percent);
// Sorts `values`; nothing when there are none.
std::optional<Percentiles> percentiles(std::vector<double> values);

struct Metrics {
  std::size_t jobs = 0;                             // jobs that ran to their end: the means are over them
  std::size_t rejected = 0;                         // final state REJECTED
  std::map<std::string, std::size_t> final_states;  // how many of each
  double mean_wait_s = 0;
  double max_wait_s = 0;
  double mean_bounded_slowdown = 0;                 // max(1, (wait + run) / max(run, 10))
  std::optional<Percentiles> wait_percentiles;      // over the same jobs as the means; none when no job ran
  std::optional<Percentiles> slowdown_percentiles;  // of the bounded slowdown
  double utilization = 0;                           // sum(run * allocated resources) / (resources * makespan)
  double makespan_s = 0;                            // last end - first submit
  std::size_t preemptions = 0;                      // sessions terminated to make room (their jobs requeued)
  double lost_cpu_s = 0;                            // work those sessions lost: sum of run time x cpus
};

Metrics compute_metrics(const JobOutcomes& jobs, std::uint64_t resources);

// jobs.csv, Batsim's columns in Batsim's order (`workload` is every row's workload_name), handed
// to `write` a block of whole rows at a time: a trace of a million jobs is never one string in memory.
void write_jobs_csv(const JobOutcomes& jobs, std::string_view workload,
                    const std::function<void(std::string_view)>& write);

}  // namespace pmixflow
