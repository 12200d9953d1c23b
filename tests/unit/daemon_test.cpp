// The daemon (prted) against a scripted Env and a scripted process runner: it relays, carries
// answers back, refuses a scheduler, hands each launch's local share to its runner, and
// reports what the runner saw in PMIx terms.
#include "pmixflow/roles/daemon.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"

namespace pmixflow {
namespace {

using test::all_of;
using test::FakeEnv;
using test::only;

constexpr NodeId kNode = 2;

// What the daemon asked of its runner; the test plays the processes' side.
struct RunnerScript {
  std::vector<LocalLaunch> launches;
  std::vector<std::pair<std::string, int>> signals;
  std::vector<std::string> kills;
  ProcessEvents* events = nullptr;
};

class ScriptedRunner final : public ProcessRunner {
 public:
  explicit ScriptedRunner(RunnerScript& script) : script_(script) {}
  void launch(const LocalLaunch& launch, ProcessEvents& events) override {
    script_.launches.push_back(launch);
    script_.events = &events;
  }
  void signal(const std::string& nspace, int signal) override { script_.signals.emplace_back(nspace, signal); }
  void kill(const std::string& nspace) override {
    script_.kills.push_back(nspace);
    script_.events->exited(nspace, ProcessExit{0, kSigKill});  // gone at once, as SIGKILL does
  }

 private:
  RunnerScript& script_;
};

class DaemonTest : public ::testing::Test {
 protected:
  FakeEnv env{Address::daemon(kNode)};
  RunnerScript runner;
  Daemon daemon{env, kNode, std::make_unique<ScriptedRunner>(runner)};

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
  static LaunchProcs launch(std::string nspace, std::vector<App> apps, std::uint32_t local, std::uint32_t first) {
    return LaunchProcs{std::move(nspace), 1, std::move(apps), local, first, "a#1"};
  }
  // job-1.1, `sleep 10` on 4 ranks, all here, started by the runner. Outbox empty.
  void run_job() {
    daemon.handle(Address::controller(), launch("job-1.1", {App{"sleep", {"10"}, {}, 4}}, 4, 0));
    runner.events->started("job-1.1");
    ASSERT_EQ(only<ProcsStarted>(env.take_sent(), Address::controller()).status, Status::Success);
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

// A pause can reach the daemon between the launch and the processes' start (the controller
// signals every job that is not fenced, FLOW.md §4): the processes must not run while stopped.
// ---------------------------------------------------------------- local processes (FLOW.md §6)

TEST_F(DaemonTest, EachDaemonRunsTheRanksOfEveryAppThatFallOnIt) {
  // Ranks are numbered across the apps: a.out 0-2, b.out 3-8, c.out 9. This node holds 2-6.
  const std::vector<App> apps{App{"a.out", {}, {}, 3}, App{"b.out", {}, {}, 6}, App{"c.out", {}, {}, 1}};
  const LocalLaunch local = Daemon::local_share(launch("job-1.1", apps, 5, 2));
  EXPECT_EQ(local.nspace, "job-1.1");
  EXPECT_EQ(local.session, 1u);
  ASSERT_EQ(local.apps.size(), 2u);  // c.out has no rank here
  EXPECT_EQ(local.apps[0].app.cmd, "a.out");
  EXPECT_EQ(local.apps[0].first_rank, 2u);
  EXPECT_EQ(local.apps[0].procs, 1u);
  EXPECT_EQ(local.apps[1].app.cmd, "b.out");
  EXPECT_EQ(local.apps[1].first_rank, 3u);
  EXPECT_EQ(local.apps[1].procs, 4u);
  // The whole launch reaches the runner with that share.
  daemon.handle(Address::controller(), launch("job-1.1", apps, 5, 2));
  ASSERT_EQ(runner.launches.size(), 1u);
  EXPECT_EQ(runner.launches[0].apps.size(), 2u);
  EXPECT_TRUE(env.take_sent().empty());  // nothing is reported before the runner says so
}

TEST_F(DaemonTest, RunningProcessesAreReportedStarted) {
  daemon.handle(Address::controller(), launch("job-1.1", {App{"sleep", {"10"}, {}, 4}}, 4, 0));
  runner.events->started("job-1.1");
  const auto started = only<ProcsStarted>(env.take_sent(), Address::controller());
  EXPECT_EQ(started.nspace, "job-1.1");
  EXPECT_EQ(started.node, kNode);
  EXPECT_EQ(started.status, Status::Success);
  EXPECT_EQ(env.count_events("procs.running"), 1u);
}

TEST_F(DaemonTest, HowTheProcessesEndedIsReportedAsAPmixStatus) {
  struct Case {
    ProcessExit exit;
    Status status;
    int code;
  };
  const Case cases[] = {{{0, 0}, Status::Success, 0},
                        {{3, 0}, Status::ErrJobNonZeroTerm, 3},
                        {{0, kSigTerm}, Status::ErrJobAbortedBySig, 128 + kSigTerm},
                        {{0, 11 /* SIGSEGV */}, Status::ErrJobAbortedBySig, 128 + 11 /* SIGSEGV */}};
  for (const auto& c : cases) {
    run_job();
    runner.events->exited("job-1.1", c.exit);
    const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
    EXPECT_EQ(ended.nspace, "job-1.1");
    EXPECT_EQ(ended.node, kNode);
    EXPECT_EQ(ended.status, c.status);
    EXPECT_EQ(ended.exit_code, c.code);
    runner.events->exited("job-1.1", c.exit);  // reported once
    EXPECT_TRUE(env.take_sent().empty());
  }
}

TEST_F(DaemonTest, AKillEndsTheProcessesForTheReasonTheControllerGave) {
  run_job();
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrTimeout});
  EXPECT_EQ(runner.kills, (std::vector<std::string>{"job-1.1"}));
  const auto ended = only<ProcsEnded>(env.take_sent(), Address::controller());
  EXPECT_EQ(ended.status, Status::ErrTimeout);  // not PMIX_ERR_JOB_ABORTED_BY_SIG: the kill was ours
}

TEST_F(DaemonTest, SignalsAreLoggedAndPassedToTheRunner) {
  run_job();
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigStop});
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", 10});
  EXPECT_EQ(runner.signals, (std::vector<std::pair<std::string, int>>{{"job-1.1", kSigStop}, {"job-1.1", 10}}));
  EXPECT_EQ(env.count_events("procs.signal", {"\"signal\":19"}), 1u);
  EXPECT_TRUE(env.take_sent().empty());  // stopping is silent
}

TEST_F(DaemonTest, ASignalForAnUnknownJobSaysNothing) {
  for (int sig : {kSigStop, kSigCont, kSigTerm}) daemon.handle(Address::controller(), SignalProcs{"job-9.9", sig});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_TRUE(runner.signals.empty());
  EXPECT_EQ(env.count_events("procs.signal"), 0u);
}

TEST_F(DaemonTest, ProcessesThatCannotStartAreAFailedLaunchAndNothingElse) {
  daemon.handle(Address::controller(), launch("job-1.1", {App{"/no/such/exe", {}, {}, 4}}, 4, 0));
  runner.events->start_failed("job-1.1", "no such file");
  const auto started = only<ProcsStarted>(env.take_sent(), Address::controller());
  EXPECT_EQ(started.status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(env.count_events("procs.failed"), 1u);
  EXPECT_EQ(env.count_events("procs.running"), 0u);
  // Nothing runs, so nothing ends, and there is nothing to kill or signal.
  daemon.handle(Address::controller(), KillProcs{"job-1.1", Status::ErrJobFailedToLaunch});
  daemon.handle(Address::controller(), SignalProcs{"job-1.1", kSigTerm});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_TRUE(runner.kills.empty());
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
