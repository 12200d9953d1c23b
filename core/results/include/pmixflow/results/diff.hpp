// Comparing two runs (`pmixflow diff`): the first diverging event, each job's start delta and
// the summary metrics' deltas. The result is a plain value, rendered as text or JSON, so that
// regressions between runs can be checked without the command line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/log/run_files.hpp"

namespace pmixflow {

// What one argument of `pmixflow diff` stands for, found as every reader of runs finds it.
using log::RunFiles;

// A named value in each run, as JSON text; nullopt where the run does not have it.
struct ValueDiff {
  std::string name;
  std::optional<std::string> a;
  std::optional<std::string> b;
};

// The first line (1-based, the header being line 1) at which two event logs differ.
struct EventDivergence {
  std::uint64_t line = 0;
  std::optional<std::string> a;  // the line in A; nullopt: A ended before it
  std::optional<std::string> b;
  // When both lines parse as JSON objects: the first field, in order, that differs (a field
  // missing on one side, or present on both with different values), with its values.
  // Empty when the lines are not both JSON objects, or have the same fields and values but
  // are spelled differently.
  std::string field;
  std::optional<std::string> field_a;
  std::optional<std::string> field_b;
};

struct EventsDiff {
  bool compared = false;      // both runs have an event log
  bool identical = false;     // line for line, header included; the closing lines' wall_s is not compared
  std::uint64_t lines_a = 0;  // lines in each log, the header included
  std::uint64_t lines_b = 0;
  std::uint64_t within_tolerance = 0;    // event lines that differ only in their times (t, latency, until), or
                                         // in their order among events of one instant, within the tolerance
  std::vector<ValueDiff> header;         // header fields other than "inputs" that differ (env, seed, ...)
  std::vector<ValueDiff> inputs;         // the header's "inputs" that differ, by key
  std::optional<EventDivergence> first;  // the first diverging event line (line >= 2), if any
};

// A job whose outcome differs between the runs, or which is in one run only.
struct JobDelta {
  std::string job_id;
  bool in_a = true;
  bool in_b = true;
  std::optional<double> start_a;  // starting_time; nullopt: never started (left empty)
  std::optional<double> start_b;
  std::string state_a;  // final_state
  std::string state_b;
  std::vector<std::string> other_columns;  // further jobs.csv columns whose values differ beyond the tolerance
  bool start_moved = false;                // started in one run only, or starts further apart than the tolerance
  bool nudged = false;                     // some time of it differs, by no more than the tolerance

  bool start_differs() const { return in_a && in_b && start_a != start_b; }
  bool state_differs() const { return in_a && in_b && state_a != state_b; }
  // B - A, when the job started in both runs.
  std::optional<double> start_delta() const;
};

struct JobsDiff {
  bool compared = false;  // both runs have a jobs.csv
  std::size_t jobs_a = 0;
  std::size_t jobs_b = 0;
  std::vector<JobDelta> changed;           // A's order, then the jobs only in B in B's order
  std::size_t start_differs = 0;           // jobs in both runs whose starting_time differs beyond the tolerance
  std::size_t start_within_tolerance = 0;  // jobs whose starting_time differs, but by no more than the tolerance
  std::size_t within_tolerance = 0;        // jobs not changed, but with some time that differs within the tolerance
  std::size_t only_in_a = 0;
  std::size_t only_in_b = 0;
  std::size_t state_changes = 0;
  std::size_t started_in_both = 0;  // the jobs the start deltas below are over
  double max_abs_start_delta = 0;
  double mean_abs_start_delta = 0;
};

struct MetricDelta {
  std::string name;
  std::optional<double> a;  // nullopt: the run's summary.json does not have it
  std::optional<double> b;

  bool within_tolerance = false;  // differs, but no more than the tolerance allows (see DiffOptions)

  bool differs() const { return a != b && !within_tolerance; }
  std::optional<double> delta() const;     // B - A
  std::optional<double> relative() const;  // (B - A) / |A|; nullopt when A is 0 (and B is not) or either is absent
};

struct SummaryDiff {
  bool compared = false;             // both runs have a summary.json
  std::vector<MetricDelta> metrics;  // every metric of kDiffMetrics either run has, in that order
};

// The summary metrics compared; wall-clock fields (wall_s, ...) are not among them, as they
// differ between identical runs.
inline constexpr const char* kDiffMetrics[] = {"jobs",
                                               "rejected",
                                               "mean_wait_s",
                                               "p50_wait_s",
                                               "p90_wait_s",
                                               "p99_wait_s",
                                               "max_wait_s",
                                               "mean_bounded_slowdown",
                                               "p50_bounded_slowdown",
                                               "p90_bounded_slowdown",
                                               "p99_bounded_slowdown",
                                               "utilization",
                                               "makespan_s",
                                               "preemptions",
                                               "lost_work_cpu_s",
                                               "messages",
                                               "sim_time_s"};

// Differences in time at or below this many seconds are not differences by default: the flow's own
// messages cross a link in a microsecond, and a request relayed daemon -> controller -> scheduler is
// answered within a millisecond or two, so sub-millisecond deltas (rounding, a start-up's jitter)
// say nothing about a policy.
inline constexpr double kDefaultDiffTolerance = 1e-3;

// "1ms", "500us", "2s", "1.5min", "0" (a bare number: seconds) as seconds; nullopt when the text is
// not a duration, negative, or not finite.
std::optional<double> parse_duration(std::string_view text);

struct DiffReport {
  RunFiles a;
  RunFiles b;
  double tolerance_s = 0;  // as DiffOptions gave it
  // The inputs in which the runs differ (policy, seed, options such as batch_delay), from the
  // summaries and the logs' headers (the summary's word where both say); values as JSON text.
  std::vector<ValueDiff> inputs;
  std::string workload;  // the workload both runs replayed; empty when it differs or is unknown
  EventsDiff events;
  JobsDiff jobs;
  SummaryDiff summary;
  std::vector<std::string> notes;  // what could not be compared, and why

  // What happened is the same within the tolerance: no diverging event (when both runs have a
  // log), no job and no metric difference. Inputs that differ are named, not counted: two runs of
  // different seeds or policies that come out the same are equal.
  bool equal() const;
};

struct DiffOptions {
  // Compare an event log without its closing line (a run that was stopped or is still going)
  // as far as it goes, instead of refusing it.
  bool partial = false;
  // Times (event times, job starts and the other times of jobs.csv, summary times) at most this
  // many seconds apart count as equal; figures computed from times (utilization, slowdown,
  // stretch, lost work) count as equal within a relative difference of tolerance / 10 s, the
  // least time bounded slowdown divides by. 0: exact.
  double tolerance_s = kDefaultDiffTolerance;
};

// Compares two runs. InputError (naming the file, and line where there is one) for a path
// that does not exist, a file that cannot be read or parsed, a cut event log (unless
// options.partial), or two runs with nothing in common to compare.
DiffReport diff_runs(const std::string& run_a, const std::string& run_b, const DiffOptions& options = {});

// For people: equal or not, then what differs. At most `max_jobs` jobs are listed, those that
// moved most first.
std::string render_diff_text(const DiffReport& report, std::size_t max_jobs = 20);

// For programs: the whole report as a JSON object (pretty-printed, with a final newline).
std::string render_diff_json(const DiffReport& report);

}  // namespace pmixflow
