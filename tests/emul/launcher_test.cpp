// Starting a party's process: the program gets its arguments and the extra environment, finds
// its control line on descriptor 3, runs in a process group of its own that signal_child
// reaches, and its end is seen on the pidfd and by reap(); a program that cannot be executed
// ends with status 127 and its control line closing.
#include "pmixflow/emul/launcher.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

using namespace std::chrono_literals;
using testing_support::ScopedEnv;

constexpr int kWaitMs = 20000;  // generous: a loaded machine may be slow to fork and exec

// A launched child that is killed and reaped when the test ends, however it ends.
struct ChildGuard {
  explicit ChildGuard(Child c) : child(std::move(c)) {}
  ~ChildGuard() {
    if (child.pid <= 0 || reaped) return;
    ::kill(-child.pid, SIGKILL);
    ::kill(child.pid, SIGKILL);
    int status = 0;
    ::waitpid(child.pid, &status, 0);
  }
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;

  std::optional<int> reap_it() {
    const auto status = reap(child.pid);
    reaped = reaped || status.has_value();
    return status;
  }

  Child child;
  bool reaped = false;
};

bool readable_within(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1 && (p.revents & (POLLIN | POLLHUP)) != 0;
}

// Everything until the other end closes (or the time runs out).
std::string read_to_end(int fd) {
  std::string out;
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(kWaitMs);
  while (SteadyClock::now() < deadline) {
    if (!readable_within(fd, 100)) continue;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) return out;
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
  }
  ADD_FAILURE() << "the control line did not close; read so far: " << out;
  return out;
}

LaunchRequest shell(const std::string& script, std::vector<std::string> more_args = {}) {
  LaunchRequest r;
  r.program = "/bin/sh";
  r.args = {"-c", script, "party"};
  r.args.insert(r.args.end(), more_args.begin(), more_args.end());
  return r;
}

TEST(Launcher, ChildGetsItsArgumentsEnvironmentAndControlLineOnDescriptor3) {
  const ScopedEnv replaced("PMIXFLOW_UT_REPLACED", std::string("old"));
  const ScopedEnv kept("PMIXFLOW_UT_KEPT", std::string("inherited"));
  LaunchRequest r = shell(R"(printf '%s|%s|%s|%s|%s' "$$" "$1" "$PMIXFLOW_UT_EXTRA" "$PMIXFLOW_UT_REPLACED" )"
                          R"("$PMIXFLOW_UT_KEPT" >&3; exec 3>&-; exec sleep 300)",
                          {"an argument with spaces"});
  r.env = {"PMIXFLOW_UT_EXTRA=extra value", "PMIXFLOW_UT_REPLACED=new"};
  ChildGuard g(launch(r));
  ASSERT_GT(g.child.pid, 0);
  ASSERT_TRUE(g.child.control);
  ASSERT_TRUE(g.child.pidfd);
  EXPECT_EQ(read_to_end(g.child.control.get()),
            std::to_string(g.child.pid) + "|an argument with spaces|extra value|new|inherited");
}

TEST(Launcher, ControlLineCarriesBothWays) {
  ChildGuard g(launch(shell(R"(read line <&3; printf 'got %s' "$line" >&3)")));
  const std::string hello = "hello party\n";
  ASSERT_EQ(::send(g.child.control.get(), hello.data(), hello.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(hello.size()));
  EXPECT_EQ(read_to_end(g.child.control.get()), "got hello party");
}

TEST(Launcher, ChildRunsInAProcessGroupOfItsOwnThatSignalChildReaches) {
  ChildGuard g(launch(shell("printf up >&3; exec sleep 300")));
  const pid_t pid = g.child.pid;
  char buf[2] = {};
  ASSERT_TRUE(readable_within(g.child.control.get(), kWaitMs));
  ASSERT_EQ(::recv(g.child.control.get(), buf, 2, 0), 2);  // it has run: its group is set
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgid(0));  // not ours: a Ctrl-C at the terminal is not its

  EXPECT_FALSE(readable_within(g.child.pidfd.get(), 0)) << "the pidfd is readable while the child runs";
  EXPECT_EQ(g.reap_it(), std::nullopt);

  signal_child(pid, SIGTERM);
  ASSERT_TRUE(readable_within(g.child.pidfd.get(), kWaitMs)) << "the pidfd did not turn readable";
  const auto status = g.reap_it();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFSIGNALED(*status));
  EXPECT_EQ(WTERMSIG(*status), SIGTERM);
}

TEST(Launcher, ExitStatusIsReapedOnce) {
  ChildGuard g(launch(shell("exit 7")));
  ASSERT_TRUE(readable_within(g.child.pidfd.get(), kWaitMs));
  const auto status = g.reap_it();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 7);
  EXPECT_EQ(reap(g.child.pid), std::nullopt);  // gone: nothing more to reap
}

TEST(Launcher, MissingProgramEndsWithStatus127AndItsControlLineClosing) {
  LaunchRequest r;
  r.program = "/nonexistent/pmixflow-ut-no-such-program";
  ChildGuard g(launch(r));
  EXPECT_EQ(read_to_end(g.child.control.get()), "");
  ASSERT_TRUE(readable_within(g.child.pidfd.get(), kWaitMs));
  const auto status = g.reap_it();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 127);
}

}  // namespace
}  // namespace pmixflow::emul
