// Running `pmixflow emul` from a test: in a temporary directory of its own (its TMPDIR), so that
// what it leaves behind - files, and processes whose environment names that directory - can be
// looked for afterwards; started in the background when a test must act on it while it runs,
// and always stopped and reaped when the test ends, however it ends.
#pragma once

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pmixflow_run.hpp"

namespace pmixflow::test {

// The processes whose environment holds `needle` (a run's TMPDIR): what a run left running.
inline std::vector<pid_t> processes_with_env(const std::string& needle) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (dirent* d = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(d->d_name));
    if (pid <= 0 || pid == ::getpid()) continue;
    std::ifstream env(std::string("/proc/") + d->d_name + "/environ", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
    if (text.find(needle) != std::string::npos) found.push_back(pid);
  }
  ::closedir(proc);
  return found;
}

// Entries under `dir` (recursively): what a run left on disk.
inline std::vector<std::string> leftovers(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec))
    out.push_back(it->path().string());
  return out;
}

// One emulation started in the background, with its own TMPDIR and output directory.
class EmulRun {
 public:
  explicit EmulRun(const std::string& name) : scratch_(scratch_dir(name)) {
    std::filesystem::create_directories(tmp());
  }
  ~EmulRun() {
    stop(SIGKILL);
    std::error_code ec;
    for (pid_t p : processes_with_env(tmp().string())) ::kill(p, SIGKILL);
    std::filesystem::remove_all(scratch_, ec);
  }
  EmulRun(const EmulRun&) = delete;
  EmulRun& operator=(const EmulRun&) = delete;

  std::filesystem::path tmp() const { return scratch_ / "tmp"; }
  std::filesystem::path out() const { return scratch_ / "out"; }

  // `pmixflow emul ARGS --out OUT`, its standard streams into files of the scratch directory.
  void start(std::vector<std::string> args) {
    args.insert(args.begin(), "emul");
    args.push_back("--out");
    args.push_back(out().string());
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::setenv("TMPDIR", tmp().c_str(), 1);
      const std::string o = (scratch_ / "stdout").string(), e = (scratch_ / "stderr").string();
      if (!std::freopen(o.c_str(), "w", stdout) || !std::freopen(e.c_str(), "w", stderr)) ::_exit(127);
      std::vector<char*> argv{const_cast<char*>(PMIXFLOW_BIN)};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(PMIXFLOW_BIN, argv.data());
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
  }

  // Waits for the emulation to end (up to `limit`); its exit status, or nullopt on a timeout.
  std::optional<int> wait(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (pid_ > 0) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return exit_;
  }

  // Sends `signal` to the emulation (the process, not its group: a terminal's Ctrl-C reaches
  // only the emulation, whose parties are in groups of their own).
  void signal(int signal) {
    if (pid_ > 0) ::kill(pid_, signal);
  }
  pid_t pid() const { return pid_; }

  // Waits until a file the emulation writes exists (its run directory's servers.json, say).
  bool wait_for(const std::function<bool()>& ready, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (ready()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // The emulation's private run directory, once it exists.
  std::optional<std::filesystem::path> run_dir() const {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(tmp(), ec))
      if (e.path().filename().string().rfind("pmixflow-emul-", 0) == 0 && e.is_directory() &&
          std::filesystem::exists(e.path() / "servers.json"))
        return e.path();
    return std::nullopt;
  }

  std::string err() const { return slurp(scratch_ / "stderr"); }
  std::string stdout_text() const { return slurp(scratch_ / "stdout"); }

 private:
  void stop(int signal) {
    if (pid_ <= 0) return;
    ::kill(-pid_, signal);
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::filesystem::path scratch_;
  pid_t pid_ = -1;
  int exit_ = -1;
};

}  // namespace pmixflow::test
