// Running PMIx peers for a test: PMIx allows one init per process, so every server, launcher and
// tool of a test is a forked child; the test process itself never initialises PMIx. A child
// reports to the test line by line and takes its commands line by line, over two pipes. Every
// wait has a deadline; a child that outlives its test is killed and always reaped; a child
// whose test process dies is killed with it (PR_SET_PDEATHSIG) and none lives past its alarm.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace pmixflow::emul::peers {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A fresh directory (mkdtemp) for one server's rendezvous files, removed with its content.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pmixflow-compat-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One end of a line-oriented pipe pair.
class LineReader {
 public:
  explicit LineReader(int fd = -1) : fd_(fd) {}
  // The next line, or nothing when the deadline passes or the writer has gone.
  std::optional<std::string> next(Clock::duration timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0 || fd_ < 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return std::nullopt;
      char chunk[4096];
      const ssize_t got = ::read(fd_, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(got));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

inline void write_line(int fd, std::string_view line) {
  std::string out(line);
  out += '\n';
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the test has gone: nothing to tell
    done += static_cast<std::size_t>(n);
  }
}

// The child's side: report() from any thread (PMIx calls back on its own), wait() for commands.
class Channel {
 public:
  Channel(int report_fd, int command_fd) : report_fd_(report_fd), commands_(command_fd) {}
  void report(std::string_view line) {
    std::lock_guard lock(mutex_);
    write_line(report_fd_, line);
  }
  std::optional<std::string> wait(Clock::duration timeout = 10s) { return commands_.next(timeout); }
  // This peer leaks what the library allocates on a path the test drives on purpose, where no
  // suppression can name the frame (docs/pmix-compat.md, "OpenPMIx 4.2.2's own leaks"): its
  // leak check still runs and prints, but does not fail it.
  void leaks_by_the_library(std::string_view why) {
    report(std::string("leak check informative: ") + std::string(why));
    leak_check_fails_ = false;
  }
  bool leak_check_fails() const { return leak_check_fails_; }

 private:
  bool leak_check_fails_ = true;
  std::mutex mutex_;
  int report_fd_;
  LineReader commands_;
};

// A value set once from a PMIx thread and awaited, with a deadline, by the child's main thread.
template <class T>
class Awaited {
 public:
  void set(T v) {
    std::lock_guard lock(mutex_);
    if (!value_) value_ = std::move(v);
    cv_.notify_all();
  }
  std::optional<T> wait(Clock::duration timeout = 10s) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return value_.has_value(); });
    return value_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<T> value_;
};

// A forked child running `body`, whose return value is its exit code.
class Peer {
 public:
  static constexpr int kThrew = 90;
  static constexpr int kLeaked = 91;

  Peer(std::string name, const std::function<int(Channel&)>& body) : name_(std::move(name)) {
    int up[2], down[2];
    if (::pipe2(up, O_CLOEXEC) != 0 || ::pipe2(down, O_CLOEXEC) != 0)
      throw std::system_error(errno, std::generic_category(), "pipe");
    ::signal(SIGPIPE, SIG_IGN);  // telling a child that has gone is not the test's death
    std::fflush(nullptr);        // nothing buffered is written twice
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "fork");
    if (pid_ == 0) {
      ::close(up[0]);
      ::close(down[1]);
      run_child(parent, body, up[1], down[0]);
    }
    ::close(up[1]);
    ::close(down[0]);
    reports_ = LineReader(up[0]);
    report_fd_ = up[0];
    command_fd_ = down[1];
  }

  ~Peer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(report_fd_);
    ::close(command_fd_);
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  std::optional<std::string> next(Clock::duration timeout = 10s) { return reports_.next(timeout); }
  void tell(std::string_view line) { write_line(command_fd_, line); }

  // The child's exit code once it exits (-signal if killed); killed when the deadline passes.
  int finish(Clock::duration timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      ::usleep(5000);
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

 private:
  [[noreturn]] static void run_child(pid_t parent, const std::function<int(Channel&)>& body, int report_fd,
                                     int command_fd) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(99);
    ::alarm(30);  // a backstop: no peer outlives a hung test by long
    ::setenv("PMIX_MCA_gds", "hash", 1);
    int rc = kThrew;
    Channel channel(report_fd, command_fd);
    try {
      rc = body(channel);
    } catch (const std::exception& e) {
      channel.report(std::string("threw: ") + e.what());
    } catch (...) {
      channel.report("threw");
    }
#if defined(__SANITIZE_ADDRESS__)
    // _exit skips LeakSanitizer's check at exit: run it here, so a peer's leaks are seen too.
    if (__lsan_do_recoverable_leak_check() != 0 && rc == 0 && channel.leak_check_fails()) rc = kLeaked;
#endif
    ::_exit(rc);  // not exit(): the test process's atexit handlers and destructors are not ours
  }

  std::string name_;
  pid_t pid_ = -1;
  int report_fd_ = -1;
  int command_fd_ = -1;
  LineReader reports_;
};

}  // namespace pmixflow::emul::peers
