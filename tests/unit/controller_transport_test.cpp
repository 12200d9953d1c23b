// The controller (prte, the DVM master) against a scripted Env: the scheduler attaching from
// either side, and the transport of requests to it, held or refused while there is none.
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

// ---------------------------------------------------------------- attachment

TEST_F(ControllerTest, StartLooksForASchedulerOptionally) {
  FakeEnv fresh{Address::controller()};
  Controller c(fresh, cluster);
  c.start();
  const auto req = only<ConnectRequest>(fresh.take_sent(), Address::scheduler());
  EXPECT_TRUE(req.info.flag(key::CONNECT_TO_SCHEDULER));
  EXPECT_TRUE(req.info.flag(key::TOOL_CONNECT_OPTIONAL));
  EXPECT_FALSE(c.scheduler_attached());
  EXPECT_EQ(c.daemon_state(Cluster::kHead), DaemonState::Up);
  EXPECT_EQ(c.daemon_state(1), DaemonState::None);
}

TEST_F(ControllerTest, NoConnectionAttemptWhenNotConfigured) {
  FakeEnv fresh{Address::controller()};
  Controller c(fresh, cluster, ControllerConfig{false, NoSchedulerMode::Hold, {}});
  c.start();
  EXPECT_TRUE(fresh.take_sent().empty());
}

TEST_F(ControllerTest, InitialDvmStartsDaemonsAndReportsReady) {
  FakeEnv fresh{Address::controller()};
  Controller c(fresh, cluster, ControllerConfig{false, NoSchedulerMode::Hold, {1, 3}});
  c.start();
  EXPECT_EQ(fresh.daemons_started(), (std::vector<NodeId>{1, 3}));
  EXPECT_EQ(c.daemon_state(1), DaemonState::Starting);
  c.handle(Address::daemon(1), DaemonReady{1});
  c.handle(Address::daemon(3), DaemonReady{3});
  EXPECT_EQ(c.daemon_state(3), DaemonState::Up);
  EXPECT_EQ(fresh.count_events("dvm.ready"), 1u);
}

TEST_F(ControllerTest, SchedulerAttachesByConnectingAsScheduler) {
  ctl->handle(Address::scheduler(), ConnectRequest{7, Proc{"scheduler", 0}, schedulers_connect()});
  const auto resp = only<ConnectResponse>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(resp.id, 7u);
  EXPECT_EQ(resp.status, Status::Success);
  EXPECT_TRUE(ctl->scheduler_attached());
  EXPECT_EQ(env.count_events("scheduler.attached"), 1u);
}

TEST_F(ControllerTest, SchedulerAttachesByAnsweringOurConnect) {
  ctl->handle(Address::scheduler(), ConnectResponse{1, Status::Success});
  EXPECT_TRUE(ctl->scheduler_attached());
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(ControllerTest, AFailedConnectOrAPlainToolDoesNotAttach) {
  ctl->handle(Address::scheduler(), ConnectResponse{1, Status::ErrUnreach});
  EXPECT_FALSE(ctl->scheduler_attached());
  ctl->handle(Address::requestor(1), ConnectRequest{3, Proc{"tool", 0}, schedulers_connect()});
  EXPECT_EQ(only<ConnectResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_FALSE(ctl->scheduler_attached());  // only the scheduler's address may declare it
}

// ---------------------------------------------------------------- transport

TEST_F(ControllerTest, ForwardsWithRequestorAndCarriesTheAnswerBack) {
  attach();
  AllocRequest req{5, Directive::New, {}, Proc{"tool", 2}, "tool#1"};
  req.info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  ctl->handle(Address::requestor(1), req);
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  ASSERT_NE(fwd.info.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*fwd.info.get<Proc>(key::REQUESTOR), (Proc{"tool", 2}));
  EXPECT_EQ(fwd.info.get_uint(key::ALLOC_NUM_CPUS), 4u);
  EXPECT_EQ(fwd.directive, Directive::New);
  EXPECT_EQ(fwd.corr, "tool#1");

  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-1"));
  ctl->handle(Address::scheduler(), AllocResponse{fwd.id, Status::Success, info, "tool#1"});
  const auto back = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(back.id, 5u);
  EXPECT_EQ(back.status, Status::Success);
  EXPECT_EQ(back.info, info);
}

TEST_F(ControllerTest, ARequestRelayedByADaemonNamesTheOriginalCaller) {
  attach();
  ctl->handle(Address::daemon(2), AllocRequest{9, Directive::New, {}, Proc{"app-7", 3}, "app#1"});
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  ASSERT_NE(fwd.info.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*fwd.info.get<Proc>(key::REQUESTOR), (Proc{"app-7", 3}));
  ctl->handle(Address::scheduler(), AllocResponse{fwd.id, Status::ErrOutOfResource, {}, "app#1"});
  const auto back = only<AllocResponse>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(back.id, 9u);
  EXPECT_EQ(back.status, Status::ErrOutOfResource);
}

TEST_F(ControllerTest, SessionControlFromARequestorIsForwardedToTheScheduler) {
  attach();
  ctl->handle(Address::requestor(4), SessionCtrlRequest{3, 2, op(key::SESSION_PAUSE), Proc{"tool", 0}, "t#1"});
  const auto fwd = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(fwd.session_id, 2u);
  EXPECT_TRUE(fwd.directives.flag(key::SESSION_PAUSE));
  ASSERT_NE(fwd.directives.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*fwd.directives.get<Proc>(key::REQUESTOR), (Proc{"tool", 0}));
  EXPECT_EQ(ctl->session_count(), 0u);  // the RM did not act on it itself
  ctl->handle(Address::scheduler(), SessionCtrlResponse{fwd.id, Status::ErrNoPermissions, {}, "t#1"});
  const auto back = only<SessionCtrlResponse>(env.take_sent(), Address::requestor(4));
  EXPECT_EQ(back.id, 3u);
  EXPECT_EQ(back.status, Status::ErrNoPermissions);
}

TEST_F(ControllerTest, HoldModeKeepsRequestsUntilASchedulerAttaches) {
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, Proc{"tool", 0}, "t#1"});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("request.held"), 1u);
  // Session control is not held: with no scheduler the controller decides it (FLOW.md §4).
  ctl->handle(Address::daemon(3), SessionCtrlRequest{6, 1, op(key::SESSION_PAUSE), Proc{"app", 1}, "a#1"});
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::daemon(3)).status, Status::ErrNotFound);

  ctl->handle(Address::scheduler(), ConnectResponse{1, Status::Success});
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 1u);
  const auto allocs = all_of<AllocRequest>(sent);
  ASSERT_EQ(allocs.size(), 1u);
  EXPECT_EQ(allocs[0].first, Address::scheduler());
  EXPECT_EQ(*allocs[0].second.info.get<Proc>(key::REQUESTOR), (Proc{"tool", 0}));

  ctl->handle(Address::scheduler(), AllocResponse{allocs[0].second.id, Status::Success, {}, "t#1"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).id, 5u);
}

// As PRRTE's ras/pmix with no other module: declined, PMIX_ERR_NOT_SUPPORTED, while no scheduler
// has ever attached; PMIX_ERR_UNREACH once one has come and gone.
TEST_F(ControllerTest, RefuseModeDeclinesAtOnceAndFailsTheForwardOnceASchedulerHasGone) {
  make(ControllerConfig{true, NoSchedulerMode::Refuse, {}});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, Proc{"tool", 0}, "t#1"});
  const auto a = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(a.id, 5u);
  EXPECT_EQ(a.status, Status::ErrNotSupported);
  // Session control is decided by the controller itself when no scheduler is attached.
  ctl->handle(Address::daemon(3), SessionCtrlRequest{6, 1, op(key::SESSION_PAUSE), Proc{"app", 1}, "a#1"});
  const auto s = only<SessionCtrlResponse>(env.take_sent(), Address::daemon(3));
  EXPECT_EQ(s.id, 6u);
  EXPECT_EQ(s.status, Status::ErrNotFound);
  EXPECT_EQ(env.count_events("request.refused"), 1u);
  // Nothing is replayed when a scheduler attaches later.
  attach();
  EXPECT_TRUE(env.take_sent().empty());
  ctl->handle(Address::scheduler(), PeerLost{Address::scheduler()});
  env.take_sent();
  ctl->handle(Address::requestor(1), AllocRequest{7, Directive::New, {}, Proc{"tool", 0}, "t#2"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrUnreach);
}

TEST_F(ControllerTest, LosingTheSchedulerAnswersEveryForwardedRequestUnreachable) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, Proc{"tool", 0}, "t#1"});
  ctl->handle(Address::daemon(3), SessionCtrlRequest{6, 1, op(key::SESSION_PAUSE), Proc{"app", 1}, "a#1"});
  const auto forwarded = env.take_sent();
  ASSERT_EQ(forwarded.size(), 2u);

  ctl->handle(Address::scheduler(), PeerLost{Address::scheduler()});
  EXPECT_FALSE(ctl->scheduler_attached());
  const auto sent = env.take_sent();
  const auto allocs = all_of<AllocResponse>(sent);
  const auto ctrls = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(sent.size(), 2u);
  ASSERT_EQ(allocs.size(), 1u);
  ASSERT_EQ(ctrls.size(), 1u);
  EXPECT_EQ(allocs[0].first, Address::requestor(1));
  EXPECT_EQ(allocs[0].second.id, 5u);
  EXPECT_EQ(allocs[0].second.status, Status::ErrUnreach);
  EXPECT_EQ(ctrls[0].first, Address::daemon(3));
  EXPECT_EQ(ctrls[0].second.id, 6u);
  EXPECT_EQ(ctrls[0].second.status, Status::ErrUnreach);

  // A late answer from the old scheduler reaches nobody twice.
  ctl->handle(Address::scheduler(), AllocResponse{message_id(forwarded[0].msg), Status::Success, {}, "t#1"});
  EXPECT_TRUE(env.take_sent().empty());
  // And new requests are held again until it is back.
  ctl->handle(Address::requestor(1), AllocRequest{8, Directive::New, {}, Proc{"tool", 0}, "t#2"});
  EXPECT_TRUE(env.take_sent().empty());
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
