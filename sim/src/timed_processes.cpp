#include "pmixflow/sim/timed_processes.hpp"

#include <algorithm>
#include <vector>

#include "pmixflow/model/app_behaviour.hpp"

namespace pmixflow::sim {
namespace {

// How a job's local processes end together: when the last one does, with the exit of the
// first to end killed by a signal or non-zero (in the order they end; apps ending together in
// the job's order). A process killed by a signal has no exit code: its signal is what it says.
ProcessExit combined_exit(const std::vector<AppBehaviour>& apps) {
  std::vector<const AppBehaviour*> by_end;
  for (const auto& b : apps) by_end.push_back(&b);
  std::stable_sort(by_end.begin(), by_end.end(), [](auto* a, auto* b) { return a->runtime_s < b->runtime_s; });
  for (const auto* b : by_end) {
    if (b->exit_signal != 0) return ProcessExit{0, b->exit_signal};
    if (b->exit_code != 0) return ProcessExit{b->exit_code, 0};
  }
  return {};
}

bool terminates(int signal) {
  return signal == kSigHup || signal == kSigInt || signal == kSigKill || signal == kSigTerm;
}

}  // namespace

TimedProcesses::~TimedProcesses() {
  for (auto& [nspace, job] : jobs_)
    if (job.timer) env_.cancel(job.timer);
}

void TimedProcesses::launch(const LocalLaunch& launch, ProcessEvents& events) {
  Local job;
  job.events = &events;
  std::vector<AppBehaviour> apps;
  for (const auto& local : launch.apps) apps.push_back(app_behaviour(local.app));
  for (const auto& b : apps) {
    job.runtime = std::max(job.runtime, b.runtime_s);
    job.tick = std::max(job.tick, b.tick_s);
    job.fails = job.fails || launch_fails_on(b, node_name_);
  }
  job.exit = combined_exit(apps);
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  const std::string nspace = launch.nspace;
  job.timer = env_.after(timing_.start_s * (1.0 + timing_.jitter * u), [this, nspace] { begin(nspace); });
  jobs_[nspace] = job;
}

void TimedProcesses::begin(const std::string& nspace) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  Local& job = it->second;
  job.timer = 0;
  ProcessEvents& events = *job.events;
  if (job.fails) {
    jobs_.erase(it);
    return events.start_failed(nspace, "the executable cannot be started");
  }
  job.running = true;
  events.started(nspace);
  // Stopped while still starting: it comes up stopped, its whole run still ahead.
  if (job.stopped) {
    job.remaining = job.runtime;
  } else {
    AppBehaviour run;
    run.runtime_s = job.runtime;
    run.tick_s = job.tick;
    arm_end(nspace, job, end_time(run, env_.now()) - env_.now());
  }
}

void TimedProcesses::arm_end(const std::string& nspace, Local& job, double after) {
  job.ends_at = env_.now() + after;
  job.timer = env_.after(after, [this, nspace] {
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) return;
    it->second.timer = 0;
    end(nspace, it->second.exit);
  });
}

void TimedProcesses::signal(const std::string& nspace, int signal) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  Local& job = it->second;
  if (terminates(signal)) return end(nspace, ProcessExit{0, signal});
  if (signal == kSigStop && !job.stopped) {
    // Stopped processes keep their memory and slots but make no progress.
    job.stopped = true;
    if (!job.running) return;  // still starting: it will come up stopped
    job.remaining = std::max(0.0, job.ends_at - env_.now());
    if (job.timer) env_.cancel(job.timer);
    job.timer = 0;
  } else if (signal == kSigCont && job.stopped) {
    job.stopped = false;
    if (job.running) arm_end(nspace, job, job.remaining);
  }
  // Any other signal is caught or ignored by the application.
}

void TimedProcesses::kill(const std::string& nspace) { end(nspace, ProcessExit{0, kSigKill}); }

void TimedProcesses::end(const std::string& nspace, const ProcessExit& exit) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  if (it->second.timer) env_.cancel(it->second.timer);
  ProcessEvents& events = *it->second.events;
  // Either argument may live in the job being erased (its end timer passes the job's own
  // exit): what is reported is copied out first.
  const std::string ended = nspace;
  const ProcessExit how = exit;
  jobs_.erase(it);
  events.exited(ended, how);
}

}  // namespace pmixflow::sim
