#include "measure.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace pmixflow::bench {
namespace {

void redirect(int fd, const std::string& path) {
  const int to = ::open(path.empty() ? "/dev/null" : path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (to < 0) _exit(126);
  ::dup2(to, fd);
  ::close(to);
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

}  // namespace

ProcessCost run_process(const std::vector<std::string>& argv, const std::string& stdout_path,
                        const std::string& stderr_path, std::optional<double> limit_s) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    redirect(STDOUT_FILENO, stdout_path);
    redirect(STDERR_FILENO, stderr_path);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ProcessCost cost;
  int status = 0;
  rusage usage{};
  // A watcher kills the run at its limit; the wait itself blocks, so the wall time measured
  // ends when the process does.
  std::mutex m;
  std::condition_variable done_cv;
  bool done = false;
  std::thread watcher([&] {
    if (!limit_s) return;
    std::unique_lock lock(m);
    if (!done_cv.wait_for(lock, std::chrono::duration<double>(*limit_s), [&] { return done; })) {
      ::kill(pid, SIGKILL);
      cost.timed_out = true;
    }
  });
  while (::wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw std::runtime_error("wait4 failed");
  {
    const std::lock_guard lock(m);
    done = true;
  }
  done_cv.notify_one();
  watcher.join();
  cost.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cost.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  cost.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  cost.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return cost;
}

}  // namespace pmixflow::bench
