// Two runs of one workload side by side (two policies, two seeds, two machines): which jobs
// started at another time, by how much, and which ran in one run only. A job is its request's
// `corr` ("job42" in a replayed trace, "alice#1" in a scenario); its start is its first
// execution's and its end its last's, so a job preempted and run again spans both stretches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/view/run_model.hpp"

namespace pmixflow::view {

// Two starts are the same when they differ by at most kSameStartTolerance times the larger of
// 1 s and their magnitude: an absolute microsecond near t=0, a relative 1e-6 on a year-long
// trace, where the log's printed digits already differ by that much between runs.
inline constexpr double kSameStartTolerance = 1e-6;

// A job as one run executed it.
struct JobSpan {
  std::string job;  // the corr
  std::uint32_t request = kNone;
  double start = 0;
  std::optional<double> end;  // none while its last stretch still runs
};

// Every job that ran, in order of first start (then of corr).
std::vector<JobSpan> job_spans(const RunModel& run);

struct MovedJob {
  std::string job;
  std::uint32_t request_a = kNone;  // indices into each run's requests()
  std::uint32_t request_b = kNone;
  double start_a = 0, start_b = 0;
  std::optional<double> end_a, end_b;
  double delta() const { return start_b - start_a; }  // > 0: later in B
};

struct ComparisonSummary {
  std::size_t matched = 0;  // jobs that ran in both
  std::size_t moved = 0;
  std::size_t only_a = 0, only_b = 0;
  double mean_abs_delta = 0;        // mean |Δstart| over the matched jobs (0 when none)
  double mean_abs_delta_moved = 0;  // the same over the moved jobs only
  double max_abs_delta = 0;
  double mean_delta = 0;  // signed, over the matched jobs: > 0 when B starts jobs later
};

struct Comparison {
  std::vector<MovedJob> moved;          // by |Δstart|, largest first, then by job
  std::vector<JobSpan> only_a, only_b;  // in order of first start
  ComparisonSummary summary;
  // Per request of each run (indexed as its requests()): 1 when that job moved.
  std::vector<std::uint8_t> moved_in_a, moved_in_b;
};

bool same_start(double a, double b, double tolerance = kSameStartTolerance);
Comparison compare_runs(const RunModel& a, const RunModel& b, double tolerance = kSameStartTolerance);

}  // namespace pmixflow::view
