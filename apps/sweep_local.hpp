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

// Runs one run in the foreground and records its exit status; returns that status (130 when
// Ctrl-C or SIGTERM stopped it).
int run_one(const SweepRun& run, const LocalSetup& setup);

// What a local sweep did: how many runs it stopped, and the signal that made it stop them (0
// when every run ran to its end).
struct LocalEnd {
  int stopped_by = 0;
  std::size_t stopped = 0;
};

// Runs them all, `setup.jobs` at once; every one's status is recorded in its directory. Ctrl-C,
// SIGTERM or SIGHUP stop the sweep: no run starts any more, each one running is passed the
// signal (and killed at a second one), and its status (130) is recorded once it has stopped.
LocalEnd run_locally(const std::vector<const SweepRun*>& runs, const LocalSetup& setup);

}  // namespace pmixflow::cli
