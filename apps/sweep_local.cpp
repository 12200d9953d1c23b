#include "sweep_local.hpp"

#include <fcntl.h>
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

#include "sweep_io.hpp"
#include "sweep_table.hpp"

extern char** environ;

namespace pmixflow::cli {
namespace {

namespace fs = std::filesystem;

// Exit status recorded for a run whose process could not be started, or died by a signal (as a
// shell reports it): anything but 0 is a failed run.
constexpr int kSignalBase = 128;

// Starts `pmixflow sim ... --out runs/ID` with its output in runs/ID/sim.log.
pid_t start(const SweepRun& run, const LocalSetup& setup) {
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
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, argv[0], actions.get(), nullptr, argv.data(), environ);
  if (err != 0) {
    std::ofstream(log) << "pmixflow sweep: cannot start " << args[0] << ": " << std::strerror(err) << "\n";
    record_exit(dir, kSignalBase - 1);
    return -1;
  }
  return pid;
}

int exit_code(int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : kSignalBase + WTERMSIG(raw); }

int wait_for(pid_t pid) {
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  return exit_code(raw);
}

void show(const LocalSetup& setup, std::size_t ended, std::size_t total, std::size_t running, std::size_t failed) {
  if (!setup.progress) return;
  std::fprintf(stderr, "\r  sweep: %zu/%zu runs ended, %zu running, %zu failed  ", ended, total, running, failed);
  std::fflush(stderr);
}

}  // namespace

int run_one(const SweepRun& run, const LocalSetup& setup) {
  const pid_t pid = start(run, setup);
  if (pid < 0) return recorded_exit(run_dir(setup.out, run));
  const int status = wait_for(pid);
  record_exit(run_dir(setup.out, run), status);
  return status;
}

void run_locally(const std::vector<const SweepRun*>& runs, const LocalSetup& setup) {
  std::map<pid_t, const SweepRun*> running;
  std::size_t next = 0, ended = 0, failed = 0;
  while (next < runs.size() || !running.empty()) {
    while (next < runs.size() && running.size() < std::max(1u, setup.jobs)) {
      const SweepRun* run = runs[next++];
      const pid_t pid = start(*run, setup);
      if (pid < 0) {
        ++ended, ++failed;
        continue;
      }
      running.emplace(pid, run);
    }
    show(setup, ended, runs.size(), running.size(), failed);
    if (running.empty()) continue;
    int raw = 0;
    const pid_t pid = ::waitpid(-1, &raw, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of the runs (nothing else is started here)
    const int status = exit_code(raw);
    record_exit(run_dir(setup.out, *it->second), status);
    running.erase(it);
    ++ended;
    if (status != 0) ++failed;
  }
  show(setup, ended, runs.size(), 0, failed);
  if (setup.progress) std::fprintf(stderr, "\r%*s\r", 79, "");
}

}  // namespace pmixflow::cli
