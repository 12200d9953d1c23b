// The simulator's process runner: a daemon's local processes played on its timers, as the
// apps' description says (model/app_behaviour.hpp). A start takes a moment of its own (fork
// and exec); stopped processes keep their slots and make no progress; a terminating signal or
// a kill ends them at once.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>

#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/process_runner.hpp"

namespace pmixflow::sim {

struct ProcessTiming {
  double start_s = 0.001;  // fork/exec of the local processes of one job
  // Real process starts vary: with jitter, a job's ranks on many nodes do not start (nor end)
  // at one instant. Each start takes start_s * (1 + jitter * u), u in [0, 1).
  double jitter = 0;
  std::uint64_t seed = 0;  // with the node id, seeds this daemon's own generator
};

class TimedProcesses final : public ProcessRunner {
 public:
  // `node_name`: where an app that fails to launch on some nodes only (PMIXFLOW_FAIL_LAUNCH)
  // fails.
  TimedProcesses(Env& env, NodeId node, ProcessTiming timing = {}, std::string node_name = {})
      : env_(env),
        timing_(timing),
        node_name_(std::move(node_name)),
        random_(timing.seed * 0x9E3779B97F4A7C15ULL + node) {}
  ~TimedProcesses() override;

  void launch(const LocalLaunch& launch, ProcessEvents& events) override;
  void signal(const std::string& nspace, int signal) override;
  void kill(const std::string& nspace) override;

 private:
  struct Local {
    ProcessEvents* events = nullptr;
    ProcessExit exit;    // how they end, when they end by themselves
    double runtime = 0;  // of the longest-running local process
    double tick = 0;     // they end on the clock's ticks (AppBehaviour::tick_s)
    bool fails = false;  // cannot be started here
    TimerId timer = 0;   // the start, then the end
    bool running = false;
    bool stopped = false;  // SIGSTOP: no progress
    double ends_at = 0;    // while running
    double remaining = 0;  // while stopped
  };
  void begin(const std::string& nspace);
  void arm_end(const std::string& nspace, Local& job, double after);
  void end(const std::string& nspace, const ProcessExit& exit);

  Env& env_;
  ProcessTiming timing_;
  std::string node_name_;
  std::mt19937_64 random_;
  std::unordered_map<std::string, Local> jobs_;
};

}  // namespace pmixflow::sim
