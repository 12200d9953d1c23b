// Running a sweep's runs on this machine: each a `pmixflow sim` child process of the same
// binary (SimGrid allows one engine per process), up to a number at once, its output and
// errors in its own directory, its exit status recorded there when it ends.
#pragma once

#include <filesystem>
#include <vector>

#include "sweep_spec.hpp"

namespace pmixflow::cli {

struct LocalSetup {
  std::filesystem::path exe;  // the pmixflow binary to run
  std::filesystem::path out;  // the sweep's output directory
  unsigned jobs = 1;          // runs at once
  bool progress = false;      // a line of counts on the terminal, redrawn as runs end
};

// Runs one run in the foreground and records its exit status; returns that status.
int run_one(const SweepRun& run, const LocalSetup& setup);

// Runs them all, `setup.jobs` at once; every one's status is recorded in its directory.
void run_locally(const std::vector<const SweepRun*>& runs, const LocalSetup& setup);

}  // namespace pmixflow::cli
