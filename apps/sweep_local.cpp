#include "sweep_local.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "pmixflow/vocab/stop_signals.hpp"
#include "sweep_io.hpp"
#include "sweep_table.hpp"

extern char** environ;

namespace pmixflow::cli {
namespace {

namespace fs = std::filesystem;

// Exit status recorded for a run whose process could not be started, or died by a signal (as a
// shell reports it): anything but 0 is a failed run.
constexpr int kSignalBase = 128;

class SpawnAttributes {
 public:
  SpawnAttributes() { ::posix_spawnattr_init(&attr_); }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawnattr_t* get() { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

// Starts `pmixflow sim ... --out runs/ID` with its output in runs/ID/sim.log, with the signal
// mask `mask` (the sweep's own holds back what the run must see).
pid_t spawn_run(const SweepRun& run, const LocalSetup& setup, const sigset_t& mask) {
  const fs::path dir = run_dir(setup.out, run);
  fs::create_directories(dir);
  forget_exit(dir);  // from here until it ends, the run is not done, whatever it held before
  std::vector<std::string> args{setup.exe.string(), "sim"};
  if (run.workload) {
    // Generated where the run is made (here, or on a Slurm node): the same shape and seed give
    // the same trace wherever that is.
    write_workload(*run.workload, dir / "workload.swf");
    args.insert(args.end(), {"--trace", (dir / "workload.swf").string()});
  }
  args.insert(args.end(), run.sim_args.begin(), run.sim_args.end());
  args.insert(args.end(), {"--quiet", "--out", dir.string()});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  FileActions actions;
  const std::string log = (dir / "sim.log").string();
  ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
  SpawnAttributes attributes;
  ::posix_spawnattr_setsigmask(attributes.get(), &mask);
  ::posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, argv[0], actions.get(), attributes.get(), argv.data(), environ);
  if (err != 0) {
    std::ofstream(log) << "pmixflow sweep: cannot start " << args[0] << ": " << std::strerror(err) << "\n";
    record_exit(dir, kSignalBase - 1);
    return -1;
  }
  return pid;
}

int exit_code(int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : kSignalBase + WTERMSIG(raw); }

void show(const LocalSetup& setup, std::size_t ended, std::size_t total, std::size_t running, std::size_t failed) {
  if (!setup.progress) return;
  std::fprintf(stderr, "\r  sweep: %zu/%zu runs ended, %zu running, %zu failed  ", ended, total, running, failed);
  std::fflush(stderr);
}

// The runs going, as processes: started, waited for, and stopped when the sweep is.
class LocalRuns {
 public:
  explicit LocalRuns(const LocalSetup& setup) : setup_(setup) {}

  // Starts `run`; false when its process could not start (its failure is recorded).
  bool start(const SweepRun& run) {
    const pid_t pid = spawn_run(run, setup_, stop_.previous_mask());
    if (pid < 0) return false;
    running_.emplace(pid, &run);
    return true;
  }

  std::size_t running() const { return running_.size(); }
  int stopped_by() const { return stopped_by_; }
  // A stop signal that came as the last run ended: the sweep was stopped all the same.
  void look() {
    if (const int signal = stop_.take()) stop(signal);
  }

  // Waits until a run ends or a stop signal comes; records the status of each run that ended,
  // and returns those statuses.
  std::vector<int> wait() {
    pollfd fds[2] = {{stop_.fd(), POLLIN, 0}, {child_ends_.fd(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (const int signal = stop_.take()) stop(signal);
    while (child_ends_.take() != 0) {
    }
    std::vector<int> ended;
    for (auto it = running_.begin(); it != running_.end();) {
      int raw = 0;
      if (::waitpid(it->first, &raw, WNOHANG) != it->first) {
        ++it;
        continue;
      }
      ended.push_back(exit_code(raw));
      record_exit(run_dir(setup_.out, *it->second), ended.back());
      it = running_.erase(it);
    }
    return ended;
  }

 private:
  // Each run is passed the signal, to stop as `pmixflow sim` does (its log cut, no report); a
  // second signal kills those still running.
  void stop(int signal) {
    const int passed = stopped_by_ == 0 ? signal : SIGKILL;
    if (stopped_by_ == 0) stopped_by_ = signal;
    for (const auto& [pid, run] : running_) ::kill(pid, passed);
  }

  const LocalSetup& setup_;
  StopSignals stop_;
  HeldSignals child_ends_{SIGCHLD};  // a run ended: wakes the wait as a stop signal does
  std::map<pid_t, const SweepRun*> running_;
  int stopped_by_ = 0;
};

}  // namespace

int run_one(const SweepRun& run, const LocalSetup& setup) {
  LocalRuns runs(setup);
  if (!runs.start(run)) return recorded_exit(run_dir(setup.out, run));
  while (true)
    if (const auto ended = runs.wait(); !ended.empty()) return ended.front();
}

LocalEnd run_locally(const std::vector<const SweepRun*>& runs, const LocalSetup& setup) {
  LocalRuns going(setup);
  LocalEnd end;
  std::size_t next = 0, ended = 0, failed = 0;
  while ((going.stopped_by() == 0 && next < runs.size()) || going.running() > 0) {
    while (going.stopped_by() == 0 && next < runs.size() && going.running() < std::max(1u, setup.jobs))
      if (!going.start(*runs[next++])) ++ended, ++failed;
    show(setup, ended, runs.size(), going.running(), failed);
    if (going.running() == 0) continue;
    for (const int status : going.wait()) {
      ++ended;
      if (status != 0) ++failed;
      if (status != 0 && going.stopped_by() != 0) ++end.stopped;
    }
  }
  going.look();
  show(setup, ended, runs.size(), 0, failed);
  if (setup.progress) std::fprintf(stderr, "\r%*s\r", 79, "");
  end.stopped_by = going.stopped_by();
  return end;
}

}  // namespace pmixflow::cli
