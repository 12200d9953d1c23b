// An emulation held up by `pmixflow emul --hold`, as a person attaches tools to it by hand: each
// test's own, started in the background and always stopped at the end, nothing of it left
// running; and running the hand tools (`pmixflow request`, `session`, `spawn`) against it.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {

// Two compute nodes, both with a daemon from the start, a scheduler attached: nothing else
// happens until a tool asks.
inline constexpr const char* kByHandScenario =
    R"({"format":"pmixflow-scenario","version":1,"name":"by-hand","description":"an emulation for tools run by hand","controller":{"dvm":"all"}})";

// A process's command line, its arguments separated by spaces.
inline std::string command_line(const std::filesystem::path& proc) {
  std::string text = slurp(proc / "cmdline");
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

// The `pmixflow-party` processes whose environment names `needle` (each party's TMPDIR lies
// under its emulation's): what an emulation left running.
inline std::vector<pid_t> parties_of(const std::string& needle) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (command_line(e.path()).find("pmixflow-party ") != std::string::npos &&
        slurp(e.path() / "environ").find(needle) != std::string::npos)
      found.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return found;
}

// `pmixflow emul --hold --nodes 2` in the background, in a process group of its own, with its
// own TMPDIR; stopped as Ctrl-C stops it (SIGINT to its group), killed if it has not gone a few
// seconds later, whatever way the test ends. `args` go on its command line as given
// (`--allow-user NAME`); `scenario` is the text of the scenario it runs before holding.
class HeldEmulation {
 public:
  explicit HeldEmulation(const std::string& name, std::vector<std::string> args = {},
                         const std::string& scenario = kByHandScenario)
      : scratch_(scratch_dir(name)) {
    std::filesystem::create_directories(tmpdir());
    std::ofstream(scratch_ / "scenario.jsonl") << scenario << "\n";
    const std::vector<std::string> fixed = {"emul",       "--hold",
                                            "--speed",    "20",
                                            "--nodes",    "2",
                                            "--scenario", (scratch_ / "scenario.jsonl").string(),
                                            "--out",      (scratch_ / "out").string()};
    args.insert(args.begin(), fixed.begin(), fixed.end());
    std::vector<char*> argv{const_cast<char*>(PMIXFLOW_BIN)};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = (scratch_ / "stdout").string(), err = (scratch_ / "stderr").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::setenv("TMPDIR", tmpdir().c_str(), 1);
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(127);
      ::execv(PMIXFLOW_BIN, argv.data());
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
  }
  ~HeldEmulation() {
    stop();
    // A failed test keeps what the emulation wrote (out/events.jsonl, written as it stops, and
    // its stderr): an intermittent failure is otherwise gone with its evidence.
    if (::testing::Test::HasFailure()) {
      std::cerr << "the emulation's outputs are kept in " << scratch_.string() << "\n";
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(scratch_, ec);
  }
  HeldEmulation(const HeldEmulation&) = delete;
  HeldEmulation& operator=(const HeldEmulation&) = delete;

  // Waits (bounded) until servers.json lists the controller, both daemons and the scheduler;
  // the emulation's directory then.
  std::string wait_until_up() {
    using namespace std::chrono_literals;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(tmpdir(), ec)) {
        const std::string servers = slurp(e.path() / "servers.json");
        if (servers.find("daemon:n02") != std::string::npos && servers.find("\"scheduler\"") != std::string::npos &&
            servers.find("\"controller\"") != std::string::npos)
          return e.path().string();
      }
      std::this_thread::sleep_for(20ms);
    }
    return {};
  }

  // SIGINT, then SIGKILL if it is still there after a few seconds; reaped. Idempotent.
  void stop() {
    using namespace std::chrono_literals;
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGINT);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (::waitpid(pid_, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(-pid_, SIGKILL);
      for (pid_t p : parties_of(scratch_.string())) ::kill(p, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  // The TMPDIR the emulation runs with: its run directory, and any party's own, are made in it.
  std::filesystem::path tmpdir() const { return scratch_ / "tmp"; }
  std::vector<pid_t> parties_left() const { return parties_of(scratch_.string()); }
  std::string err() const { return slurp(scratch_ / "stderr"); }
  // The process of one party, by the name it runs as (`pmixflow-party --as controller`).
  pid_t party_pid(const std::string& party) const {
    for (pid_t p : parties_of(scratch_.string()))
      if (command_line("/proc/" + std::to_string(p)).find("--as " + party) != std::string::npos) return p;
    return -1;
  }

 private:
  std::filesystem::path scratch_;
  pid_t pid_ = -1;
};

// Stops the emulation and checks that none of its parties outlived it.
inline void expect_stopped_cleanly(HeldEmulation& emulation) {
  emulation.stop();
  EXPECT_TRUE(emulation.parties_left().empty()) << "a pmixflow-party of the emulation is still running";
}

// Sets an environment variable for the tools this test runs, back as it was at the end of the scope.
class ToolEnv {
 public:
  ToolEnv(const char* name, const std::string& append) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, (old_ ? *old_ + ":" + append : append).c_str(), 1);
  }
  ~ToolEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ToolEnv(const ToolEnv&) = delete;
  ToolEnv& operator=(const ToolEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Runs a tool as the emulation runs its parties under AddressSanitizer (conductor.cpp): with the
// slow unwinder, without which OpenPMIx 4.2.2's own leaks are reported unnamed and so unsuppressed
// (emul/sanitizer_defaults.cpp). Without AddressSanitizer the option is ignored, and no report
// can appear; with it, none may.
inline RunResult run_tool(const std::vector<std::string>& args) {
  const ToolEnv slow_unwind("ASAN_OPTIONS", "fast_unwind_on_malloc=0");
  RunResult r = run_pmixflow(args);
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
  return r;
}

// `pmixflow COMMAND --emulation DIR --timeout 8 ARGS...`, `args` starting with the command.
inline RunResult tool(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin() + 1, {"--emulation", dir, "--timeout", "8"});
  return run_tool(args);
}

// The value of KEY=VALUE in a tool's one-line answer; empty when it is not there.
inline std::string value_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key + "=");
  if (at == std::string::npos) return {};
  const auto from = at + key.size() + 1;
  return text.substr(from, text.find_first_of(" \n", from) - from);
}

}  // namespace pmixflow::test
