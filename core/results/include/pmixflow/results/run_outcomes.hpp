// From what the roles recorded to what researchers read: each request's fate in Batsim's
// terms and the comparison with a trace's recording. Independent of the environment, so the
// simulator and the emulator write the same jobs.csv and recorded.csv from the same run.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/trace/swf.hpp"

namespace pmixflow {

// One outcome per PMIX_ALLOC_NEW call of `sc`, in the scenario's order, matched by corr with
// the scheduler's record and the requestor's answer. Times are relative to the scenario's
// time origin; a replayed trace's jobs ("job<N>") are named by their SWF number.
std::vector<JobOutcome> job_outcomes(const Scenario& sc, const std::vector<AllocationRecord>& records,
                                     const std::map<std::string, const CallResult*>& answers, const Cluster& cluster,
                                     bool from_trace);

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

// Nothing when no job can be compared.
std::optional<RecordedComparison> compare_with_recording(const std::vector<JobOutcome>& outcomes,
                                                         const SwfTrace& trace);

}  // namespace pmixflow
