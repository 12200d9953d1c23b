// From the log's accounts to what researchers read: each allocation request's fate in Batsim's
// terms and the comparison with a trace's recording. The same for every environment.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/results/ledger.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/results/run_info.hpp"

namespace pmixflow {

// One outcome per PMIX_ALLOC_NEW call, in the order of the scenario's (or trace's) lines.
// Times are relative to the run's time origin; a replayed trace's jobs ("job<N>") are named
// by their SWF number.
JobOutcomes job_outcomes(const RunInfo& run, const CallLedger& calls, const AllocationLedger& scheduler);

// Each job's simulated wait beside the wait SWF field 3 says the machine imposed (jobs that
// ran and have a recorded wait), and how the two compare.
struct RecordedComparison {
  std::string csv;  // recorded.csv: job_id,simulated_wait,recorded_wait
  std::size_t jobs_compared = 0;
  double mean_recorded_wait_s = 0;
  double mean_abs_deviation_s = 0;
  double correlation = 0;          // Pearson; 0 when either side does not vary
  double share_within_10_min = 0;  // |simulated - recorded| <= 600 s
};

// The recorded waits of a replay's jobs, by job id, as their calls carried them.
std::map<std::string, double> recorded_waits(const RunInfo& run, const CallLedger& calls);

// Nothing when no job can be compared.
std::optional<RecordedComparison> compare_with_recording(const JobOutcomes& outcomes,
                                                         const std::map<std::string, double>& recorded_wait);

}  // namespace pmixflow
