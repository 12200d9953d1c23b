// The simulator's process runner behind a real daemon, on a scripted clock: local processes
// start after the fork/exec delay, run as the app says (`sleep N`, or the description in its
// environment), stop and continue without losing their remaining time, and end once.
#include "pmixflow/sim/timed_processes.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"
#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/roles/daemon.hpp"

namespace pmixflow::sim {
namespace {

using test::all_of;
using test::FakeEnv;
using test::only;

constexpr NodeId kNode = 2;

class TimedProcessesTest : public ::testing::Test {
 protected:
  FakeEnv env{Address::daemon(kNode)};
  Daemon daemon{env, kNode, std::make_unique<TimedProcesses>(env, kNode, ProcessTiming{0.5})};

  // `sleep 10` as job-1.1, launched at t = 0: running from 0.5, due to end at 10.5. Outbox empty.
  void start_sleep10() {
    daemon.handle(Address::controller(), launch_sleep("job-1.1", 10));
    env.advance(0.5);
    ASSERT_EQ(only<ProcsStarted>(env.take_sent(), Address::controller()).status, Status::Success);
  }
  static LaunchProcs launch_sleep(std::string nspace, int seconds) {
    return launch(std::move(nspace), "sleep", {std::to_string(seconds)});
  }
  static LaunchProcs launch(std::string nspace, std::string cmd, std::vector<std::string> argv, int exit_code = 0) {
    App app{std::move(cmd), std::move(argv), {}, 4};
    describe(app, AppBehaviour{100, exit_code, false});
    return LaunchProcs{std::move(nspace), 1, {app}, 4, 0, "a#1"};
  }
};

TEST_F(TimedProcessesTest, SleepRunsForItsSecondsAfterTheStartDelay) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"10"}));
  EXPECT_TRUE(env.take_sent().empty());  // fork/exec takes time
  env.advance(0.4);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  const auto started = only<ProcsStarted>(env.take_sent(), Address::controller());
  EXPECT_EQ(started.nspace, "job-1.1");
  EXPECT_EQ(started.node, kNode);
  EXPECT_EQ(started.status, Status::Success);

  env.advance(9.9);  // `sleep 10` wins over the 100 s described
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_DOUBLE_EQ(env.now(), 10.5);
  EXPECT_EQ(ended.nspace, "job-1.1");
  EXPECT_EQ(ended.node, kNode);
  EXPECT_EQ(ended.status, Status::Success);
  EXPECT_EQ(ended.exit_code, 0);
}

TEST_F(TimedProcessesTest, AnyOtherCommandRunsForItsRuntime) {
  daemon.handle(Address::controller(), launch("job-1.1", "a.out", {}));
  env.advance(0.5);
  env.take_sent();
  env.advance(99.9);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::Success);
}

TEST_F(TimedProcessesTest, NonZeroExitEndsWithNonZeroTermStatus) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"3"}, 2));
  env.advance(0.5 + 3);
  const auto ended = all_of<ProcsEnded>(env.take_sent());
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].second.status, Status::ErrJobNonZeroTerm);
  EXPECT_EQ(ended[0].second.exit_code, 2);
}

TEST_F(TimedProcessesTest, KillEndsTheProcsEarlyWithTheGivenReason) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"10"}));
  env.advance(2);
  env.take_sent();
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrTimeout});
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_EQ(ended.nspace, "job-1.1");
  EXPECT_EQ(ended.status, Status::ErrTimeout);
  env.advance(100);  // the natural end does not report a second time
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.timers_armed(), 0u);
}

TEST_F(TimedProcessesTest, KillBeforeTheProcsStartedNeverStartsThem) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"10"}));
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrJobKilledByCmd});
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::ErrJobKilledByCmd);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(TimedProcessesTest, SigstopKeepsTheRemainingRunTimeAndSigcontRearmsIt) {
  start_sleep10();
  env.advance(3);  // t = 3.5: 7 s left
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  EXPECT_TRUE(env.take_sent().empty());  // stopping is silent
  EXPECT_EQ(env.count_events("procs.signal", {"\"signal\":19"}), 1u);
  env.advance(100);  // t = 103.5: a stopped job makes no progress, however long
  EXPECT_TRUE(env.take_sent().empty());
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigCont});
  env.advance(6.9);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);  // paused 100 s, so it ends 100 s late
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_DOUBLE_EQ(env.now(), 110.5);
  EXPECT_EQ(ended.nspace, "job-1.1");
  EXPECT_EQ(ended.status, Status::Success);
  EXPECT_EQ(env.timers_armed(), 0u);
}

TEST_F(TimedProcessesTest, RepeatedStopsAndContinuesDoNotChangeTheEnd) {
  start_sleep10();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigCont});  // not stopped: no effect
  env.advance(2);                                                          // t = 2.5, 8 s left
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  env.advance(5);                                                          // t = 7.5
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});  // already stopped
  env.advance(5);                                                          // t = 12.5
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigCont});
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigCont});  // a second continue arms nothing more
  env.advance(7.9);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);  // t = 20.5: stopped for 10 s in all
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::Success);
  EXPECT_DOUBLE_EQ(env.now(), 20.5);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());  // reported once
}

TEST_F(TimedProcessesTest, TerminatingSignalsEndTheProcsAbortedBySignal) {
  for (int sig : {kSigHup, kSigInt, kSigKill, kSigTerm}) {
    SCOPED_TRACE("signal " + std::to_string(sig));
    const std::string nspace = "job-" + std::to_string(sig) + ".1";
    daemon.handle(Address::controller(), launch_sleep(nspace, 10));
    env.advance(1);
    env.take_sent();
    daemon.handle(Address::controller(), SignalProcs{nspace, sig});
    const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
    EXPECT_EQ(ended.nspace, nspace);
    EXPECT_EQ(ended.node, kNode);
    EXPECT_EQ(ended.status, Status::ErrJobAbortedBySig);
    EXPECT_EQ(ended.exit_code, 128 + sig);
    env.advance(20);
    EXPECT_TRUE(env.take_sent().empty());  // the natural end is not reported as well
  }
  EXPECT_EQ(env.timers_armed(), 0u);
}

TEST_F(TimedProcessesTest, ASignalEndsAStoppedJobToo) {
  start_sleep10();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  env.advance(50);
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigKill});
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_EQ(ended.status, Status::ErrJobAbortedBySig);
  EXPECT_EQ(ended.exit_code, 128 + kSigKill);
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigCont});  // nothing left to continue
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(TimedProcessesTest, AKillEndsAStoppedJobOnce) {
  start_sleep10();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrJobKilledByCmd});
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::ErrJobKilledByCmd);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.timers_armed(), 0u);
}

TEST_F(TimedProcessesTest, OtherSignalsAreLeftToTheApplication) {
  start_sleep10();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", 10});  // SIGUSR1: caught or ignored
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("procs.signal", {"\"signal\":10"}), 1u);
  env.advance(10);
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::Success);
  EXPECT_DOUBLE_EQ(env.now(), 10.5);
}

TEST_F(TimedProcessesTest, SigstopDuringTheStartStopsTheProcsOnceStarted) {
  daemon.handle(Address::controller(), launch_sleep("job-1.1", 10));
  env.advance(0.2);
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  env.advance(19.8);  // t = 20
  EXPECT_TRUE(all_of<ProcsEnded>(env.take_sent()).empty()) << "a stopped job ran to its end";
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigCont});
  env.advance(10);
  const auto ended = all_of<ProcsEnded>(env.take_sent());
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].second.status, Status::Success);
}

// ---------------------------------------------------------------- failed launches

TEST_F(TimedProcessesTest, AnAppThatCannotStartReportsAFailedLaunchAndNothingElse) {
  LaunchProcs l = launch_sleep("job-1.1", 10);
  describe(l.apps[0], AppBehaviour{10, 0, true});
  daemon.handle(Address::controller(), std::move(l));
  env.advance(0.4);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);  // the exec fails when it is tried: after the start delay
  const auto started = only<ProcsStarted>(env.take_sent(), Address::controller());
  EXPECT_EQ(started.nspace, "job-1.1");
  EXPECT_EQ(started.node, kNode);
  EXPECT_EQ(started.status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(env.count_events("procs.failed"), 1u);
  EXPECT_EQ(env.count_events("procs.running"), 0u);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());  // nothing runs, so nothing ends
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrJobFailedToLaunch});
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigTerm});
  EXPECT_TRUE(env.take_sent().empty());
}

// ---------------------------------------------------------------- spawn relay and events

// ---------------------------------------------------------------- several apps on one node

TEST_F(TimedProcessesTest, SeveralAppsOnANodeEndWhenTheLastOneDoesWithTheFirstFailure) {
  App quick{"a.out", {}, {}, 2}, slow{"b.out", {}, {}, 2}, other{"c.out", {}, {}, 4};
  describe(quick, AppBehaviour{5, 3, false});
  describe(slow, AppBehaviour{20, 4, false});
  describe(other, AppBehaviour{500, 0, false});  // ranks 4-7: not on this node
  daemon.handle(Address::controller(), LaunchProcs{"job-1.1", 1, {quick, slow, other}, 4, 0, "a#1"});
  env.advance(0.5);
  EXPECT_EQ(only<ProcsStarted>(env.take_sent(), Address::controller()).status, Status::Success);
  env.advance(19.9);
  EXPECT_TRUE(env.take_sent().empty());  // a.out is done, b.out still runs
  env.advance(0.1);
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_DOUBLE_EQ(env.now(), 20.5);
  EXPECT_EQ(ended.status, Status::ErrJobNonZeroTerm);
  EXPECT_EQ(ended.exit_code, 3);  // a.out failed first
}

TEST_F(TimedProcessesTest, AnAppThatDiesByASignalEndsAbortedBySignal) {
  App crash{"a.out", {}, {}, 2}, slow{"b.out", {}, {}, 2};
  describe(crash, AppBehaviour{.runtime_s = 5, .exit_signal = 11});
  describe(slow, AppBehaviour{.runtime_s = 20, .exit_code = 4});
  daemon.handle(Address::controller(), LaunchProcs{"job-1.1", 1, {crash, slow}, 4, 0, "a#1"});
  env.advance(0.5);
  EXPECT_EQ(only<ProcsStarted>(env.take_sent(), Address::controller()).status, Status::Success);
  env.advance(19.9);
  EXPECT_TRUE(env.take_sent().empty());  // ends with the last process
  env.advance(0.1);
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_EQ(ended.status, Status::ErrJobAbortedBySig);  // a.out's segfault came first
  EXPECT_EQ(ended.exit_code, 128 + 11);
}

TEST_F(TimedProcessesTest, OneAppThatCannotStartFailsTheNodesShare) {
  App fine{"sleep", {"5"}, {}, 2}, broken{"/no/such/exe", {}, {}, 2};
  describe(broken, AppBehaviour{5, 0, true});
  daemon.handle(Address::controller(), LaunchProcs{"job-1.1", 1, {fine, broken}, 4, 0, "a#1"});
  env.advance(0.5);
  EXPECT_EQ(only<ProcsStarted>(env.take_sent(), Address::controller()).status, Status::ErrJobFailedToLaunch);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());
}

}  // namespace
}  // namespace pmixflow::sim
