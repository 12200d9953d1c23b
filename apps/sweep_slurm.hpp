// Running a sweep's runs as a Slurm job array: a task per run, each task this same binary
// running `pmixflow sweep SPEC --task N`, which reads its run from the task list and writes into
// the run's directory. The sweep's directory, the spec, its traces and the binary must be on a
// filesystem the compute nodes share.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sweep_spec.hpp"

namespace pmixflow::cli {

struct SlurmSetup {
  std::filesystem::path exe;   // the pmixflow binary the tasks run
  std::filesystem::path spec;  // absolute
  std::filesystem::path out;   // absolute
  std::vector<std::string> sbatch_options;
  double poll_s = 5;  // between two looks at squeue
  bool progress = false;
};

// The task list's name under the sweep's directory: line N is the id of task N's run.
inline constexpr const char* kTaskList = "sweep-tasks.txt";

// Writes OUT/sweep-tasks.txt and OUT/sweep.sbatch, submits the array with sbatch and waits
// until none of its tasks is queued or running. Returns the job id. Throws std::runtime_error
// when sbatch refuses the job.
std::string run_on_slurm(const std::vector<const SweepRun*>& runs, const SlurmSetup& setup);

// The run id of task `task` in OUT/sweep-tasks.txt; throws InputError when there is none.
std::string task_run(const std::filesystem::path& out, std::size_t task);

}  // namespace pmixflow::cli
