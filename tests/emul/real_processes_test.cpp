// The emulator's process runner with real processes: each test runs an event loop on its own
// thread, launches jobs of the `pmixflow-job` payload, and checks what the daemon would be told
// and when, with the tolerance a shared machine needs (timings allow twice what they should take).
#include "pmixflow/emul/real_processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pmixflow/model/app_behaviour.hpp"

namespace pmixflow::emul {
namespace {

using namespace std::chrono_literals;

struct Ended {
  std::string nspace;
  ProcessExit exit;
  SteadyClock::time_point at;
};

class Recorder final : public ProcessEvents {
 public:
  void started(const std::string& nspace) override { started_.push_back(nspace); }
  void start_failed(const std::string& nspace, const std::string& detail) override {
    failed_.push_back(nspace + ": " + detail);
  }
  void exited(const std::string& nspace, const ProcessExit& exit) override {
    ended_.push_back(Ended{nspace, exit, SteadyClock::now()});
    if (ended_.size() == wanted_ && on_wanted_) on_wanted_();
  }
  void when_ended(std::size_t count, std::function<void()> fn) {
    wanted_ = count;
    on_wanted_ = std::move(fn);
  }
  const Ended* ended(const std::string& nspace) const {
    for (const auto& e : ended_)
      if (e.nspace == nspace) return &e;
    return nullptr;
  }

  std::vector<std::string> started_, failed_;
  std::vector<Ended> ended_;

 private:
  std::size_t wanted_ = 0;
  std::function<void()> on_wanted_;
};

App app(AppBehaviour b, std::vector<std::string> env = {}) {
  App a{"a.out", {"in.dat"}, std::move(env), 1};
  describe(a, b);
  return a;
}

LocalLaunch job(std::string nspace, App a, std::uint32_t procs = 1) {
  return LocalLaunch{std::move(nspace), 1, {LocalApp{std::move(a), 0, procs}}};
}

double seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

bool gone(pid_t pid) {
  int status = 0;
  return ::kill(pid, 0) == -1 && errno == ESRCH && ::waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD;
}

bool no_child_left() {
  int status = 0;
  return ::waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

class RealProcessesTest : public ::testing::Test {
 protected:
  Loop loop;
  RunClock clock{SteadyClock::now(), 1.0};
  Recorder events;
  std::optional<RealProcesses> runner{std::in_place, loop, clock, PMIXFLOW_JOB_BIN};

  SteadyClock::time_point launch(const LocalLaunch& l) {
    const auto at = SteadyClock::now();
    runner->launch(l, events);
    return at;
  }
  // Runs the loop until `count` jobs have ended and `linger` more has passed (long enough for
  // a second report to show), failing the test if that takes longer than `limit`.
  void run(std::size_t count, SteadyClock::duration linger = 100ms, SteadyClock::duration limit = 5s) {
    loop.after(limit, [this, count] {
      ADD_FAILURE() << "timed out: " << events.ended_.size() << " of " << count << " jobs ended";
      loop.stop();
    });
    auto stop_soon = [this, linger] { loop.after(linger, [this] { loop.stop(); }); };
    if (count == 0) stop_soon();
    events.when_ended(count, stop_soon);
    loop.run();
  }
};

TEST_F(RealProcessesTest, AJobRunsItsRunTimeAtTheEmulationsSpeed) {
  clock.speed = 3;
  const auto at = launch(job("job-1.1", app(AppBehaviour{.runtime_s = 0.6})));
  EXPECT_EQ(events.started_, std::vector<std::string>{"job-1.1"});  // exec'd before launch() returned
  EXPECT_EQ(runner->pids("job-1.1").size(), 1u);
  run(1);
  ASSERT_EQ(events.ended_.size(), 1u);
  EXPECT_EQ(events.ended_[0].exit.code, 0);
  EXPECT_EQ(events.ended_[0].exit.signal, 0);
  const double took = seconds(events.ended_[0].at - at);
  // 0.6 scenario seconds at speed 3: 0.2 s, and far from the 0.6 s of speed 1 even on a loaded
  // machine (a sanitized build beside a parallel test run was seen to end it 80 ms late).
  EXPECT_GE(took, 0.195);
  EXPECT_LE(took, 0.45);
  EXPECT_TRUE(runner->pids("job-1.1").empty());
  EXPECT_TRUE(no_child_left());
  std::printf("[ timing   ] 0.6 s at speed 3 ended after %.3f s\n", took);
}

TEST_F(RealProcessesTest, TheProcessesExitCodeOrSignalIsTheJobs) {
  launch(job("code", app(AppBehaviour{.runtime_s = 0.05, .exit_code = 3})));
  launch(job("segv", app(AppBehaviour{.runtime_s = 0.05, .exit_signal = 11})));
  launch(job("term", app(AppBehaviour{.runtime_s = 0.05, .exit_code = 7, .exit_signal = 15})));
  run(3);
  ASSERT_EQ(events.ended_.size(), 3u);
  EXPECT_EQ(events.ended("code")->exit.code, 3);
  EXPECT_EQ(events.ended("code")->exit.signal, 0);
  EXPECT_EQ(events.ended("segv")->exit.code, 0);
  EXPECT_EQ(events.ended("segv")->exit.signal, 11);
  EXPECT_EQ(events.ended("term")->exit.signal, 15);  // a signal has no exit code to go with it
}

TEST_F(RealProcessesTest, AStoppedJobMakesNoProgress) {
  clock.speed = 3;
  const auto at = launch(job("job-1.1", app(AppBehaviour{.runtime_s = 0.6}), 2));  // 0.2 s of wall time
  const pid_t first = runner->pids("job-1.1").at(0);
  char state = '?';
  loop.after(50ms, [&] { runner->signal("job-1.1", SIGSTOP); });
  std::size_t going_while_stopped = 9;
  loop.after(300ms, [&] {
    going_while_stopped = runner->jobs_going();
    std::ifstream stat("/proc/" + std::to_string(first) + "/stat");
    std::string pid, comm;
    stat >> pid >> comm >> state;
  });
  loop.after(550ms, [&] { runner->signal("job-1.1", SIGCONT); });
  run(1);
  EXPECT_EQ(state, 'T');  // really stopped, not merely told
  // A stopped job waits on someone else: its daemon counts as idle, or a run whose session is
  // paused for good would never end.
  EXPECT_EQ(going_while_stopped, 0u);
  ASSERT_EQ(events.ended_.size(), 1u);
  EXPECT_EQ(events.ended_[0].exit.signal, 0);
  const double took = seconds(events.ended_[0].at - at);
  EXPECT_GE(took, 0.2 + 0.5 - 0.02);  // its run time and the time it was stopped
  EXPECT_LE(took, 1.4);
  std::printf("[ timing   ] 0.2 s of wall time, stopped for 0.5 s, ended after %.3f s\n", took);
}

TEST_F(RealProcessesTest, KillEndsEvenAStoppedJobOnceBySigkill) {
  const auto at = launch(job("job-1.1", app(AppBehaviour{.runtime_s = 30}), 3));
  runner->signal("job-1.1", SIGSTOP);
  loop.after(50ms, [&] { runner->kill("job-1.1"); });
  run(1, 200ms);
  ASSERT_EQ(events.ended_.size(), 1u);  // once for the job, not once per process
  EXPECT_EQ(events.ended_[0].exit.signal, SIGKILL);
  EXPECT_LT(seconds(events.ended_[0].at - at), 1.0);
  EXPECT_TRUE(no_child_left());
}

TEST_F(RealProcessesTest, ASignalReachesEveryProcessOfTheJobWhateverTheDaemonBlocksOrIgnores) {
  // A daemon hosting PMIx threads may block or ignore signals: its children must not inherit that.
  sigset_t term, before;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &term, &before), 0);
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGINT, &ignore, &old), 0);
  launch(job("term", app(AppBehaviour{.runtime_s = 30}), 3));
  launch(job("int", app(AppBehaviour{.runtime_s = 30}), 2));
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  sigaction(SIGINT, &old, nullptr);
  loop.after(50ms, [&] {
    runner->signal("term", SIGTERM);
    runner->signal("int", SIGINT);
  });
  run(2);
  ASSERT_EQ(events.ended_.size(), 2u);
  EXPECT_EQ(events.ended("term")->exit.signal, SIGTERM);
  EXPECT_EQ(events.ended("int")->exit.signal, SIGINT);
}

TEST_F(RealProcessesTest, AnAppThatCannotStartFailsForRealAndLeavesNothingRunning) {
  App fine = app(AppBehaviour{.runtime_s = 30});
  fine.maxprocs = 2;
  App broken = app(AppBehaviour{.runtime_s = 30, .fail_launch = true});
  broken.cmd = "bin/solver";
  launch(LocalLaunch{"job-1.1", 1, {LocalApp{fine, 0, 2}, LocalApp{broken, 2, 1}}});
  EXPECT_TRUE(events.started_.empty());
  ASSERT_EQ(events.failed_.size(), 1u);
  EXPECT_EQ(events.failed_[0], "job-1.1: exec /nonexistent/solver: No such file or directory");
  EXPECT_TRUE(runner->pids("job-1.1").empty());
  EXPECT_TRUE(no_child_left());  // the two that had started were killed and reaped
  run(0, 200ms);
  EXPECT_TRUE(events.ended_.empty());
  runner->kill("job-1.1");  // nothing to kill, nothing reported
  runner->signal("job-1.1", SIGTERM);
}

TEST_F(RealProcessesTest, APayloadThatCannotBeExecutedFailsTheLaunch) {
  runner.emplace(loop, clock, "/nonexistent/pmixflow-job");
  launch(job("job-1.1", app(AppBehaviour{.runtime_s = 1}), 2));
  ASSERT_EQ(events.failed_.size(), 1u);
  EXPECT_EQ(events.failed_[0], "job-1.1: exec /nonexistent/pmixflow-job: No such file or directory");
  EXPECT_TRUE(no_child_left());
}

TEST_F(RealProcessesTest, TheJobEndsWithItsLastProcessAndTheFirstFailure) {
  App quick = app(AppBehaviour{.runtime_s = 0.05, .exit_code = 4});
  App slow = app(AppBehaviour{.runtime_s = 0.3, .exit_code = 5});
  const auto at = launch(LocalLaunch{"job-1.1", 1, {LocalApp{quick, 0, 1}, LocalApp{slow, 1, 1}}});
  EXPECT_EQ(runner->pids("job-1.1").size(), 2u);
  run(1);
  ASSERT_EQ(events.ended_.size(), 1u);
  const double took = seconds(events.ended_[0].at - at);
  EXPECT_GE(took, 0.29);  // the slow rank's end, not the quick one's
  EXPECT_LE(took, 0.6);
  EXPECT_EQ(events.ended_[0].exit.code, 4);  // the first to end non-zero
  std::printf("[ timing   ] ranks of 0.05 s and 0.3 s ended after %.3f s\n", took);
}

TEST_F(RealProcessesTest, DestroyingTheRunnerLeavesNoProcess) {
  launch(job("job-1.1", app(AppBehaviour{.runtime_s = 30}), 2));
  launch(job("job-2.1", app(AppBehaviour{.runtime_s = 30})));
  runner->signal("job-2.1", SIGSTOP);
  std::vector<pid_t> pids = runner->pids("job-1.1");
  pids.push_back(runner->pids("job-2.1").at(0));
  runner.reset();
  for (pid_t pid : pids) EXPECT_TRUE(gone(pid)) << pid;
  EXPECT_TRUE(no_child_left());
  EXPECT_TRUE(events.ended_.empty());  // a runner going away reports nothing
}

TEST_F(RealProcessesTest, TickEndsTheJobOnTheRunClocksTick) {
  clock = RunClock{SteadyClock::now() - 250ms, 2};  // scenario time 0.5
  const auto at = launch(job("job-1.1", app(AppBehaviour{.runtime_s = 1, .tick_s = 1})));
  run(1);
  ASSERT_EQ(events.ended_.size(), 1u);
  const double took = seconds(events.ended_[0].at - at);
  EXPECT_GE(took, 0.23);  // at 1.0, the tick before 1.5: 0.5 scenario seconds, 0.25 s of wall time
  EXPECT_LE(took, 0.4);   // not 0.5 s
  std::printf("[ timing   ] 1 s from 0.5 at speed 2 on a 1 s tick ended after %.3f s\n", took);
}

// The payload's own path to run it: a shell script in a fresh directory that records the
// environment and arguments each process was given, then becomes the payload.
class ChildEnvironmentTest : public RealProcessesTest {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pmixflow-procs-" + std::to_string(getpid()));
  void SetUp() override {
    std::filesystem::create_directories(dir);
    const auto script = dir / "job.sh";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "env > '" << dir.string() << "/env.'$PMIX_RANK\n"
                          << "printf '%s\\n' \"$@\" > '" << dir.string() << "/args.'$PMIX_RANK\n"
                          << "leak=no; [ -e /proc/$$/fd/" << kLeaked << " ] && leak=yes\n"
                          << "echo $leak > '" << dir.string() << "/leak.'$PMIX_RANK\n"
                          << "exec '" << PMIXFLOW_JOB_BIN << "' \"$@\"\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    runner.emplace(loop, clock, script.string());
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::vector<std::string> lines(const std::string& name) const {
    std::ifstream in(dir / name);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  static constexpr int kLeaked = 57;  // a descriptor the daemon holds without O_CLOEXEC
};

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST_F(ChildEnvironmentTest, EachProcessKnowsItsNamespaceAndRankAndGetsTheAppsEnvironment) {
  ASSERT_EQ(::dup2(STDERR_FILENO, kLeaked), kLeaked);
  App a = app(AppBehaviour{.runtime_s = 0.05}, {"OMP_NUM_THREADS=4", "HOME=/elsewhere"});
  launch(LocalLaunch{"job-7.1", 1, {LocalApp{a, 2, 2}}});
  ::close(kLeaked);
  run(1);
  ASSERT_EQ(events.ended_.size(), 1u);
  EXPECT_EQ(events.ended_[0].exit.code, 0);
  for (const std::string rank : {"2", "3"}) {
    SCOPED_TRACE("rank " + rank);
    const auto env = lines("env." + rank);
    EXPECT_TRUE(has(env, "PMIX_NAMESPACE=job-7.1"));
    EXPECT_TRUE(has(env, "PMIX_RANK=" + rank));
    EXPECT_TRUE(has(env, "OMP_NUM_THREADS=4"));
    EXPECT_TRUE(has(env, "HOME=/elsewhere"));  // the app's value wins over the daemon's
    EXPECT_TRUE(has(env, "PMIXFLOW_RUNTIME=0.05"));
    EXPECT_EQ(lines("leak." + rank), std::vector<std::string>{"no"});
    // How long and how, then what the app would have run, for `ps`.
    const auto args = lines("args." + rank);
    ASSERT_GE(args.size(), 7u);
    EXPECT_EQ(args[0], "--runtime");
    EXPECT_EQ(args[2], "--speed");
    EXPECT_EQ(args[3], "1");
    EXPECT_EQ(std::vector<std::string>(args.end() - 3, args.end()),
              (std::vector<std::string>{"--", "a.out", "in.dat"}));
  }
}

// ---------------------------------------------------------------- the payload on its own

// The payload's wait status.
int payload_status(std::vector<std::string> args) {
  args.insert(args.begin(), PMIXFLOW_JOB_BIN);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  int status = -1;
  if (error == 0) waitpid(pid, &status, 0);
  return status;
}

int run_payload(std::vector<std::string> args) {
  const int status = payload_status(std::move(args));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

TEST(Payload, BadArgumentsExitWithStatus2) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"--speed", "2"},
      {"--runtime", "soon"},
      {"--runtime", "-1"},
      {"--runtime", "1", "--speed", "0"},
      {"--runtime", "1", "--exit-signal", "19"},
      {"--runtime", "1", "--exit-signal", "65"},
      {"--runtime", "1", "--exit-code"},
      {"--runtime", "1", "--colour", "blue"},
  };
  for (const auto& args : bad) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(run_payload(args), 2) << shown;
  }
  EXPECT_EQ(run_payload({"--runtime", "0", "--exit-code", "9", "--", "a.out", "--runtime", "x"}), 9);
}

TEST(Payload, DiesByItsSignalWithoutACoreFile) {
  const int status = payload_status({"--runtime", "0", "--exit-signal", "11"});
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), 11);
  EXPECT_FALSE(WCOREDUMP(status));  // a described end, not a crash to keep
}

// A daemon's job process knows its daemon by PMIXFLOW_DAEMON_PID; started by anyone else (its
// daemon gone before it could ask to die with it), it does not run.
TEST(Payload, StartedForADaemonThatIsGoneItDoesNotRun) {
  ::setenv("PMIXFLOW_DAEMON_PID", "1", 1);
  const int code = run_payload({"--runtime", "30"});
  ::unsetenv("PMIXFLOW_DAEMON_PID");
  EXPECT_EQ(code, 127);
}

// Whether `pid` still runs: present and not a zombie waiting for its new parent.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

TEST(Payload, ItDiesWithItsDaemon) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const pid_t daemon = ::fork();
  ASSERT_GE(daemon, 0);
  if (daemon == 0) {  // a daemon: starts one process as RealProcesses does, then waits to be killed
    ::setenv("PMIXFLOW_DAEMON_PID", std::to_string(::getpid()).c_str(), 1);
    char* argv[] = {const_cast<char*>(PMIXFLOW_JOB_BIN), const_cast<char*>("--runtime"), const_cast<char*>("60"),
                    nullptr};
    pid_t job = 0;
    if (::posix_spawn(&job, argv[0], nullptr, nullptr, argv, environ) != 0) ::_exit(1);
    [[maybe_unused]] const auto n = ::write(ends[1], &job, sizeof job);
    ::pause();
    ::_exit(0);
  }
  ::close(ends[1]);
  pid_t job = 0;
  ASSERT_EQ(::read(ends[0], &job, sizeof job), static_cast<ssize_t>(sizeof job));
  ::close(ends[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // it has asked to die with its daemon
  ASSERT_TRUE(running(job));
  ::kill(daemon, SIGKILL);
  ::waitpid(daemon, nullptr, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (running(job) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const bool outlived = running(job);
  if (outlived) ::kill(job, SIGKILL);
  EXPECT_FALSE(outlived) << "the job's process outlived its daemon";
}

}  // namespace
}  // namespace pmixflow::emul
