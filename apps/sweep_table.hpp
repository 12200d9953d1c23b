// What a sweep's run directories say, and sweep.csv made from them. A run is done when the
// sweep recorded its exit status 0 and its summary.json is there (written only once complete):
// the directories alone tell done from failed from not yet run, so a re-run, a Slurm task on
// another node and the gathering after it all read the same state.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sweep_spec.hpp"

namespace pmixflow::cli {

enum class RunState { done, failed, pending };

// runs/ID under the sweep's output directory.
std::filesystem::path run_dir(const std::filesystem::path& out, const SweepRun& run);

RunState run_state(const std::filesystem::path& dir);
// The exit status recorded for a run that ended; -1 when none was.
int recorded_exit(const std::filesystem::path& dir);
void record_exit(const std::filesystem::path& dir, int status);
void forget_exit(const std::filesystem::path& dir);

// Writes OUT/sweep.csv (atomically: a reader never sees half of it): a row per run, in the
// spec's order, the parameter columns, the run's state, then the summary metrics.
void write_sweep_csv(const std::filesystem::path& out, const std::vector<SweepRun>& runs);

}  // namespace pmixflow::cli
