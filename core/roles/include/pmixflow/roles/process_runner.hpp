// The seam between a daemon and the processes it runs: how a process runs - for how long,
// with which exit, whether it starts at all - is the environment's business. The simulator's
// runner plays the apps' description on timers (sim/timed_processes.hpp); the emulator's
// starts real processes. The daemon maps what the runner reports onto PMIx statuses.
//
// A runner reports through the ProcessEvents it was given with the launch, from the daemon's
// own thread (Env's contract): at once, inside the call, or later from a timer or whatever
// the environment turns a child's exit into.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// One app's processes on this node: ranks first_rank .. first_rank + procs - 1 of the job.
struct LocalApp {
  App app;
  std::uint32_t first_rank = 0;
  std::uint32_t procs = 0;
};

// A job's share of this node.
struct LocalLaunch {
  std::string nspace;
  std::uint32_t session = 0;
  std::vector<LocalApp> apps;  // in the job's app order; only those with ranks here
};

// How the local processes of a job ended, taken together: the first that did not exit 0.
struct ProcessExit {
  int code = 0;    // exit status of a process that exited
  int signal = 0;  // the signal that ended a process that was killed (0: none)
};

class ProcessEvents {
 public:
  virtual ~ProcessEvents() = default;
  // Every local process of the job is running.
  virtual void started(const std::string& nspace) = 0;
  // They could not be started (nothing of the job runs here); `detail` says why.
  virtual void start_failed(const std::string& nspace, const std::string& detail) = 0;
  // The last local process of the job is gone. Reported once per launch, also after a kill,
  // and never after start_failed.
  virtual void exited(const std::string& nspace, const ProcessExit& exit) = 0;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual void launch(const LocalLaunch& launch, ProcessEvents& events) = 0;
  // Delivers `signal` to the job's local processes, as kill(2) would: SIGSTOP/SIGCONT stop
  // and continue them, a terminating signal ends them; others are the application's.
  virtual void signal(const std::string& nspace, int signal) = 0;
  // Ends the job's local processes now, whatever state they are in (SIGKILL).
  virtual void kill(const std::string& nspace) = 0;
};

}  // namespace pmixflow
