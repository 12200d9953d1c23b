// A `pmixflow` started in the background, for a test that acts on it while it runs (sends it
// Ctrl-C): its standard streams into files, waited for by what it writes rather than by fixed
// sleeps, and always killed and reaped when the test ends, however it ends.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pmixflow_run.hpp"

namespace pmixflow::test {

class BackgroundRun {
 public:
  // `pmixflow ARGS`, its output in DIR/stdout and DIR/stderr.
  BackgroundRun(const std::filesystem::path& dir, std::vector<std::string> args) : dir_(dir) {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);  // its own group: the test kills what it left, and nothing else
      const std::string o = (dir_ / "stdout").string(), e = (dir_ / "stderr").string();
      if (!std::freopen(o.c_str(), "w", stdout) || !std::freopen(e.c_str(), "w", stderr)) ::_exit(127);
      std::vector<char*> argv{const_cast<char*>(PMIXFLOW_BIN)};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(PMIXFLOW_BIN, argv.data());
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
    group_ = pid_;
  }
  // Kills its whole group, its children too, even once it has ended itself.
  ~BackgroundRun() {
    ::kill(-group_, SIGKILL);
    if (pid_ <= 0) return;
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  BackgroundRun(const BackgroundRun&) = delete;
  BackgroundRun& operator=(const BackgroundRun&) = delete;

  // Waits until `ready()` holds while the process still runs (up to `limit`): false when it
  // ended first or the limit passed.
  bool wait_while_running(const std::function<bool()>& ready, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (ended()) return false;
      if (ready()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Sends `signal` to the process alone (not its group: pmixflow passes it on itself).
  void signal(int signal) const {
    if (pid_ > 0) ::kill(pid_, signal);
  }

  // Its exit status once it has ended (up to `limit`; nullopt if it had not), as a shell says it.
  std::optional<int> wait(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!ended()) {
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return exit_;
  }

  std::string err() const { return slurp(dir_ / "stderr"); }
  std::string out() const { return slurp(dir_ / "stdout"); }

 private:
  bool ended() {
    if (pid_ <= 0) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    pid_ = -1;
    exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  pid_t group_ = -1;
  int exit_ = -1;
};

}  // namespace pmixflow::test
