// The daemon (prted) against a scripted Env: it relays, carries answers back, refuses a
// scheduler, and runs local processes on the clock.
#include "pmixflow/roles/daemon.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"

namespace pmixflow {
namespace {

using test::all_of;
using test::FakeEnv;
using test::only;

constexpr NodeId kNode = 2;

class DaemonTest : public ::testing::Test {
 protected:
  FakeEnv env{Address::daemon(kNode)};
  Daemon daemon{env, kNode, DaemonConfig{0.5}};

  static AllocRequest alloc(std::uint64_t id, std::string corr) {
    AllocRequest req;
    req.id = id;
    req.directive = Directive::New;
    req.info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4}).add(key::ALLOC_REQ_ID, std::string("r1"));
    req.caller = Proc{"tool-a", 3};
    req.corr = std::move(corr);
    return req;
  }
  static SessionCtrlRequest session_ctrl(std::uint64_t id, std::string corr) {
    SessionCtrlRequest req;
    req.id = id;
    req.session_id = 7;
    req.directives.add(key::SESSION_TERMINATE, true);
    req.caller = Proc{"tool-b", 0};
    req.corr = std::move(corr);
    return req;
  }
  // Relays `req` from `from` and returns the id the daemon gave it on the controller hop.
  std::uint64_t relay(Address from, Message req) {
    daemon.handle(from, std::move(req));
    auto sent = env.take_sent();
    EXPECT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent.at(0).to, Address::controller());
    return message_id(sent.at(0).msg);
  }
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
    LaunchProcs l;
    l.nspace = std::move(nspace);
    l.session_id = 1;
    l.app.cmd = std::move(cmd);
    l.app.argv = std::move(argv);
    l.app.exit_code = exit_code;
    l.app.runtime_s = 100;
    l.local_procs = 4;
    return l;
  }
};

TEST_F(DaemonTest, StartReportsReadyToTheController) {
  daemon.start();
  const auto ready = only<DaemonReady>(env.take_sent(), Address::controller());
  EXPECT_EQ(ready.node, kNode);
}

TEST_F(DaemonTest, AllocRequestIsRelayedUnchangedExceptItsId) {
  const AllocRequest original = alloc(41, "tool-a#1");
  daemon.handle(Address::requestor(3), original);
  const auto relayed = only<AllocRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(relayed.directive, original.directive);
  EXPECT_EQ(relayed.info, original.info);
  EXPECT_EQ(relayed.caller, original.caller);  // not replaced by the daemon's own identity
  EXPECT_EQ(relayed.corr, original.corr);
  EXPECT_FALSE(relayed.info.has(key::REQUESTOR));  // adding it is the controller's job
}

TEST_F(DaemonTest, AllocResponseGoesBackToTheRightRequestorWithItsOwnId) {
  const std::uint64_t first = relay(Address::requestor(3), alloc(41, "a#1"));
  const std::uint64_t second = relay(Address::requestor(5), alloc(41, "b#1"));  // same caller id, other caller
  ASSERT_NE(first, second);

  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-9")).add(key::SESSION_ID, std::uint32_t{9});
  daemon.handle(Address::controller(), AllocResponse{second, Status::ErrOutOfResource, info, "b#1"});
  const auto back = only<AllocResponse>(env.take_sent(), Address::requestor(5));
  EXPECT_EQ(back.id, 41u);
  EXPECT_EQ(back.status, Status::ErrOutOfResource);
  EXPECT_EQ(back.info, info);
  EXPECT_EQ(back.corr, "b#1");

  daemon.handle(Address::controller(), AllocResponse{first, Status::Success, {}, "a#1"});
  const auto other = only<AllocResponse>(env.take_sent(), Address::requestor(3));
  EXPECT_EQ(other.id, 41u);
  EXPECT_EQ(other.status, Status::Success);
}

TEST_F(DaemonTest, AnAnswerIsCarriedBackOnlyOnce) {
  const std::uint64_t id = relay(Address::requestor(3), alloc(1, "a#1"));
  daemon.handle(Address::controller(), AllocResponse{id, Status::Success, {}, "a#1"});
  EXPECT_EQ(env.take_sent().size(), 1u);
  daemon.handle(Address::controller(), AllocResponse{id, Status::Success, {}, "a#1"});
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(DaemonTest, SessionControlIsRelayedAndAnsweredTheSameWay) {
  const SessionCtrlRequest original = session_ctrl(12, "b#2");
  daemon.handle(Address::requestor(4), original);
  const auto relayed = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(relayed.session_id, original.session_id);
  EXPECT_EQ(relayed.directives, original.directives);
  EXPECT_EQ(relayed.caller, original.caller);
  EXPECT_EQ(relayed.corr, original.corr);

  InfoList info;
  info.add(key::SESSION_ID, std::uint32_t{7});
  daemon.handle(Address::controller(), SessionCtrlResponse{relayed.id, Status::ErrNotFound, info, "b#2"});
  const auto back = only<SessionCtrlResponse>(env.take_sent(), Address::requestor(4));
  EXPECT_EQ(back.id, 12u);
  EXPECT_EQ(back.status, Status::ErrNotFound);
  EXPECT_EQ(back.info, info);
}

TEST_F(DaemonTest, RefusesASchedulerDeclaration) {
  InfoList info;
  info.add(key::SERVER_SCHEDULER, true);
  daemon.handle(Address::scheduler(), ConnectRequest{5, Proc{"scheduler", 0}, info});
  const auto resp = only<ConnectResponse>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(resp.id, 5u);
  EXPECT_EQ(resp.status, Status::ErrNotSupported);
  EXPECT_EQ(env.count_events("scheduler.refused"), 1u);
}

TEST_F(DaemonTest, SleepRunsForItsSecondsAfterTheStartDelay) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"10"}));
  EXPECT_TRUE(env.take_sent().empty());  // fork/exec takes time
  env.advance(0.4);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  const auto started = only<ProcsStarted>(env.take_sent(), Address::controller());
  EXPECT_EQ(started.nspace, "job-1.1");
  EXPECT_EQ(started.node, kNode);
  EXPECT_EQ(started.status, Status::Success);

  env.advance(9.9);  // `sleep 10` wins over runtime_s
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_DOUBLE_EQ(env.now(), 10.5);
  EXPECT_EQ(ended.nspace, "job-1.1");
  EXPECT_EQ(ended.node, kNode);
  EXPECT_EQ(ended.status, Status::Success);
  EXPECT_EQ(ended.exit_code, 0);
}

TEST_F(DaemonTest, AnyOtherCommandRunsForItsRuntime) {
  daemon.handle(Address::controller(), launch("job-1.1", "a.out", {}));
  env.advance(0.5);
  env.take_sent();
  env.advance(99.9);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::Success);
}

TEST_F(DaemonTest, NonZeroExitEndsWithNonZeroTermStatus) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"3"}, 2));
  env.advance(0.5 + 3);
  const auto ended = all_of<ProcsEnded>(env.take_sent());
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].second.status, Status::ErrJobNonZeroTerm);
  EXPECT_EQ(ended[0].second.exit_code, 2);
}

TEST_F(DaemonTest, KillEndsTheProcsEarlyWithTheGivenReason) {
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

TEST_F(DaemonTest, KillBeforeTheProcsStartedNeverStartsThem) {
  daemon.handle(Address::controller(), launch("job-1.1", "sleep", {"10"}));
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrJobKilledByCmd});
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::ErrJobKilledByCmd);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(DaemonTest, KillOfAnUnknownJobSaysNothing) {
  daemon.handle(Address::controller(), KillProcs{"job-9.9", Status::ErrJobKilledByCmd});
  EXPECT_TRUE(env.take_sent().empty());
}

// Every pending local caller is answered, with the response type its call expects.
void expect_all_failed(FakeEnv& env) {
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 2u);
  const auto allocs = all_of<AllocResponse>(sent);
  const auto ctrls = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(allocs.size(), 1u);
  ASSERT_EQ(ctrls.size(), 1u);
  EXPECT_EQ(allocs[0].first, Address::requestor(3));
  EXPECT_EQ(allocs[0].second.id, 41u);
  EXPECT_EQ(allocs[0].second.status, Status::ErrUnreach);
  EXPECT_EQ(allocs[0].second.corr, "a#1");
  EXPECT_EQ(ctrls[0].first, Address::requestor(4));
  EXPECT_EQ(ctrls[0].second.id, 12u);
  EXPECT_EQ(ctrls[0].second.status, Status::ErrUnreach);
  EXPECT_EQ(ctrls[0].second.corr, "b#2");
}

TEST_F(DaemonTest, LosingTheControllerAnswersEveryPendingCallUnreachable) {
  relay(Address::requestor(3), alloc(41, "a#1"));
  relay(Address::requestor(4), session_ctrl(12, "b#2"));
  daemon.handle(Address::controller(), PeerLost{Address::controller()});
  expect_all_failed(env);
  // They are answered once: a late answer from above finds no caller.
  daemon.handle(Address::controller(), PeerLost{Address::controller()});
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(DaemonTest, AnUnreachableControllerAnswersEveryPendingCallUnreachable) {
  const std::uint64_t id = relay(Address::requestor(3), alloc(41, "a#1"));
  relay(Address::requestor(4), session_ctrl(12, "b#2"));
  daemon.handle(Address::controller(), Unreachable{Address::controller(), MessageKind::AllocRequest, id, "a#1"});
  expect_all_failed(env);
}

TEST_F(DaemonTest, ShutdownAnswersEveryPendingCallUnreachable) {
  relay(Address::requestor(3), alloc(41, "a#1"));
  relay(Address::requestor(4), session_ctrl(12, "b#2"));
  daemon.handle(Address::controller(), DaemonShutdown{});
  expect_all_failed(env);
  EXPECT_EQ(env.count_events("daemon.exit"), 1u);
}

TEST_F(DaemonTest, LosingOneLocalCallerDoesNotFailAnotherCallersCall) {
  const std::uint64_t id = relay(Address::requestor(3), alloc(41, "a#1"));
  relay(Address::requestor(4), session_ctrl(12, "b#2"));
  daemon.handle(Address::requestor(4), PeerLost{Address::requestor(4)});
  // Only the controller hears of it (to end what was tied to that client), nobody is failed.
  EXPECT_EQ(only<Notification>(env.take_sent(), Address::controller()).code, Status::ErrLostConnection);
  daemon.handle(Address::controller(), AllocResponse{id, Status::Success, {}, "a#1"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(3)).status, Status::Success);
}

// ---------------------------------------------------------------- signals (FLOW.md §4)

TEST_F(DaemonTest, SigstopKeepsTheRemainingRunTimeAndSigcontRearmsIt) {
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

TEST_F(DaemonTest, RepeatedStopsAndContinuesDoNotChangeTheEnd) {
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

TEST_F(DaemonTest, TerminatingSignalsEndTheProcsAbortedBySignal) {
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

TEST_F(DaemonTest, ASignalEndsAStoppedJobToo) {
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

TEST_F(DaemonTest, AKillEndsAStoppedJobOnce) {
  start_sleep10();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrJobKilledByCmd});
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::ErrJobKilledByCmd);
  env.advance(100);
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.timers_armed(), 0u);
}

TEST_F(DaemonTest, OtherSignalsAreLeftToTheApplication) {
  start_sleep10();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", 10});  // SIGUSR1: caught or ignored
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("procs.signal", {"\"signal\":10"}), 1u);
  env.advance(10);
  EXPECT_EQ(only<ProcsEnded>(env.take_sent(), Address::controller()).status, Status::Success);
  EXPECT_DOUBLE_EQ(env.now(), 10.5);
}

TEST_F(DaemonTest, ASignalForAnUnknownJobSaysNothing) {
  for (int sig : {kSigStop, kSigCont, kSigTerm}) daemon.handle(Address::controller(), SignalProcs{"job-9.9", sig});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("procs.signal"), 0u);
}

// A pause can reach the daemon between the launch and the processes' start (the controller
// signals every job that is not fenced, FLOW.md §4): the processes must not run while stopped.
TEST_F(DaemonTest, SigstopDuringTheStartStopsTheProcsOnceStarted) {
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

TEST_F(DaemonTest, AnAppThatCannotStartReportsAFailedLaunchAndNothingElse) {
  LaunchProcs l = launch_sleep("job-1.1", 10);
  l.app.fail_launch = true;
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

TEST_F(DaemonTest, SpawnIsRelayedAndItsAnswerCarriedBack) {
  SpawnRequest req;
  req.id = 33;
  App app;
  app.cmd = "sleep";
  app.argv = {"5"};
  app.maxprocs = 2;
  req.apps = {app};
  InfoList alloc;
  alloc.add(key::ALLOC_REQ_DIRECTIVE, Directive::New).add(key::ALLOC_NUM_CPUS, std::uint64_t{2});
  req.job_info.add(key::SPAWN_ALLOC, alloc);
  req.caller = Proc{"tool-c", 1};
  req.corr = "c#1";
  daemon.handle(Address::requestor(6), req);
  const auto relayed = only<SpawnRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(relayed.apps, req.apps);
  EXPECT_EQ(relayed.job_info, req.job_info);
  EXPECT_EQ(relayed.caller, req.caller);
  EXPECT_EQ(relayed.corr, "c#1");
  EXPECT_EQ(env.count_events("spawn.relay"), 1u);

  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-3")).add(key::SESSION_ID, std::uint32_t{3});
  daemon.handle(Address::controller(), SpawnResponse{relayed.id, Status::Success, "job-3.1", info, "c#1"});
  const auto back = only<SpawnResponse>(env.take_sent(), Address::requestor(6));
  EXPECT_EQ(back.id, 33u);
  EXPECT_EQ(back.status, Status::Success);
  EXPECT_EQ(back.nspace, "job-3.1");
  EXPECT_EQ(back.info, info);
  EXPECT_EQ(back.corr, "c#1");
}

TEST_F(DaemonTest, LosingTheControllerFailsAPendingSpawnWithASpawnAnswer) {
  SpawnRequest req;
  req.id = 4;
  req.apps = {App{}};
  req.caller = Proc{"tool-c", 0};
  req.corr = "c#2";
  relay(Address::requestor(6), req);
  daemon.handle(Address::controller(), PeerLost{Address::controller()});
  const auto back = only<SpawnResponse>(env.take_sent(), Address::requestor(6));
  EXPECT_EQ(back.id, 4u);
  EXPECT_EQ(back.status, Status::ErrUnreach);
  EXPECT_TRUE(back.nspace.empty());
  EXPECT_EQ(back.corr, "c#2");
}

TEST_F(DaemonTest, EventsFromTheControllerReachEveryLocalClient) {
  relay(Address::requestor(3), alloc(1, "a#1"));
  relay(Address::requestor(4), session_ctrl(2, "b#1"));
  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-1"));
  const Notification ready{Status::DvmIsReady, info, "a#1"};
  daemon.handle(Address::controller(), ready);
  auto sent = env.take_sent();
  auto notes = all_of<Notification>(sent);
  ASSERT_EQ(sent.size(), 2u);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].first, Address::requestor(3));
  EXPECT_EQ(notes[1].first, Address::requestor(4));
  for (const auto& [to, n] : notes) {
    EXPECT_EQ(n.code, Status::DvmIsReady);
    EXPECT_EQ(n.info, info);
    EXPECT_EQ(n.corr, "a#1");
  }
  // Only the controller's events are passed on.
  daemon.handle(Address::scheduler(), Notification{Status::EventNodeDown, {}, ""});
  EXPECT_TRUE(env.take_sent().empty());
  // A client that went away hears nothing more; the others still do.
  daemon.handle(Address::requestor(4), PeerLost{Address::requestor(4)});
  env.take_sent();
  daemon.handle(Address::controller(), Notification{Status::ErrDvmMod, info, "a#2"});
  EXPECT_EQ(only<Notification>(env.take_sent(), Address::requestor(3)).code, Status::ErrDvmMod);
}

TEST_F(DaemonTest, ALocalClientThatGoesAwayIsReportedToTheController) {
  relay(Address::requestor(3), alloc(1, "a#1"));  // caller tool-a.3
  daemon.handle(Address::requestor(3), PeerLost{Address::requestor(3)});
  const auto note = only<Notification>(env.take_sent(), Address::controller());
  EXPECT_EQ(note.code, Status::ErrLostConnection);
  ASSERT_NE(note.info.get<Proc>("pmix.procid"), nullptr);
  EXPECT_EQ(*note.info.get<Proc>("pmix.procid"), (Proc{"tool-a", 3}));
  // Once: and a peer that never was a client is nobody to report.
  daemon.handle(Address::requestor(3), PeerLost{Address::requestor(3)});
  daemon.handle(Address::requestor(8), PeerLost{Address::requestor(8)});
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(DaemonTest, EventsReachNobodyWhenNoClientIsAttached) {
  daemon.handle(Address::controller(), Notification{Status::DvmIsReady, {}, ""});
  EXPECT_TRUE(env.take_sent().empty());
}

}  // namespace
}  // namespace pmixflow
