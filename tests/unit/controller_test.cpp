// The controller (prte, the DVM master) against a scripted Env: transport to the scheduler,
// scheduler attachment from either side, and session control ordered by the scheduler.
#include "pmixflow/roles/controller.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"

namespace pmixflow {
namespace {

using test::all_of;
using test::FakeEnv;
using test::only;
using test::Sent;

Cluster small_cluster() {
  return Cluster({{"head", 8, false}, {"n01", 8, true}, {"n02", 8, true}, {"n03", 8, true}, {"n04", 8, true}});
}

App sleep_app(std::uint32_t np, int seconds) {
  App app;
  app.cmd = "sleep";
  app.argv = {std::to_string(seconds)};
  app.maxprocs = np;
  return app;
}

InfoList schedulers_connect() {
  InfoList info;
  info.add(key::SERVER_SCHEDULER, true);
  return info;
}

class ControllerTest : public ::testing::Test {
 protected:
  Cluster cluster = small_cluster();
  FakeEnv env{Address::controller()};
  std::unique_ptr<Controller> ctl;

  void make(ControllerConfig config = {}) {
    ctl = std::make_unique<Controller>(env, cluster, std::move(config));
    ctl->start();
    env.take_sent();
  }
  // Default set-up: started, and the scheduler attached by connecting to us.
  void SetUp() override { make(); }
  void attach() {
    ctl->handle(Address::scheduler(), ConnectRequest{100, Proc{"scheduler", 0}, schedulers_connect()});
    ASSERT_TRUE(ctl->scheduler_attached());
    env.take_sent();
  }

  // PMIx_Session_control from the scheduler.
  void from_scheduler(std::uint64_t id, std::uint32_t session, InfoList directives) {
    ctl->handle(Address::scheduler(), SessionCtrlRequest{id, session, std::move(directives), Proc{"scheduler", 0}, "c" + std::to_string(id)});
  }
  static InfoList instantiate(std::string nodes, std::string alloc_id, std::vector<App> apps = {},
                              InfoList extra_resources = {}) {
    InfoList res;
    res.add(key::ALLOC_NODE_LIST, std::move(nodes)).add(key::ALLOC_ID, std::move(alloc_id));
    for (auto& item : extra_resources.items) res.items.push_back(std::move(item));
    InfoList d;
    d.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_RESOURCES, std::move(res));
    if (!apps.empty()) d.add(key::SESSION_APP, std::move(apps));
    return d;
  }
  static InfoList op(std::string_view k) {
    InfoList d;
    d.add(k, true);
    return d;
  }
  // The single SessionCtrlResponse the scheduler got for call `id`.
  SessionCtrlResponse answer_to_scheduler(std::uint64_t id) {
    const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::scheduler());
    EXPECT_EQ(r.id, id);
    return r;
  }
  void daemons_ready(std::initializer_list<NodeId> nodes) {
    for (NodeId n : nodes) ctl->handle(Address::daemon(n), DaemonReady{n});
  }
  // Instantiates session `session` with one job of `np` procs on `nodes`, brings the daemons
  // up and the procs started; returns the job's nspace. Leaves nothing in the outbox.
  std::string running_session(std::uint32_t session, std::string nodes, std::initializer_list<NodeId> ids,
                              std::uint32_t np, InfoList extra = {}) {
    from_scheduler(1, session, instantiate(std::move(nodes), "alloc-" + std::to_string(session), {sleep_app(np, 100)},
                                           std::move(extra)));
    daemons_ready(ids);
    const auto launches = all_of<LaunchProcs>(env.take_sent());
    EXPECT_EQ(launches.size(), ids.size());
    for (NodeId n : ids) ctl->handle(Address::daemon(n), ProcsStarted{launches.at(0).second.nspace, n, Status::Success});
    const auto r = answer_to_scheduler(1);
    EXPECT_EQ(r.status, Status::Success);
    return launches.at(0).second.nspace;
  }
};

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

TEST_F(ControllerTest, RefuseModeAnswersUnreachableAtOnce) {
  make(ControllerConfig{true, NoSchedulerMode::Refuse, {}});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, Proc{"tool", 0}, "t#1"});
  const auto a = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(a.id, 5u);
  EXPECT_EQ(a.status, Status::ErrUnreach);
  // Session control is decided by the controller itself when no scheduler is attached.
  ctl->handle(Address::daemon(3), SessionCtrlRequest{6, 1, op(key::SESSION_PAUSE), Proc{"app", 1}, "a#1"});
  const auto s = only<SessionCtrlResponse>(env.take_sent(), Address::daemon(3));
  EXPECT_EQ(s.id, 6u);
  EXPECT_EQ(s.status, Status::ErrNotFound);
  EXPECT_EQ(env.count_events("request.refused"), 1u);
  // Nothing is replayed when a scheduler attaches later.
  attach();
  EXPECT_TRUE(env.take_sent().empty());
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

// ---------------------------------------------------------------- session control

TEST_F(ControllerTest, InstantiateWithoutAppsIsAnsweredAtOnce) {
  attach();
  from_scheduler(11, 1, instantiate("n01,n02:4", "alloc-1"));
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 1u);
  const auto r = only<SessionCtrlResponse>(sent, Address::scheduler());
  EXPECT_EQ(r.id, 11u);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.info.get_uint(key::SESSION_ID), 1u);
  ASSERT_NE(r.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*r.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  EXPECT_EQ(ctl->session_count(), 1u);
  // The reservation's nodes still get their daemons; the ready event names the allocation.
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));
  daemons_ready({1, 2});
  const auto note = only<Notification>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(note.code, Status::DvmIsReady);
  EXPECT_EQ(*note.info.get<std::string>(key::ALLOC_ID), "alloc-1");
}

TEST_F(ControllerTest, InstantiateWithAppsGrowsTheDvmLaunchesAndAnswersOnceStarted) {
  attach();
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {sleep_app(8, 5)}));
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Starting);
  EXPECT_TRUE(env.take_sent().empty());  // fenced: no launch, no answer yet
  EXPECT_EQ(env.count_events("job.fenced"), 1u);

  daemons_ready({1});
  EXPECT_TRUE(env.take_sent().empty());  // one daemon is not enough
  EXPECT_EQ(env.count_events("dvm.ready"), 0u);

  daemons_ready({2});
  EXPECT_EQ(env.count_events("dvm.ready"), 1u);
  auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::scheduler());
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
  ASSERT_NE(notes[0].second.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*notes[0].second.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].first, Address::daemon(1));
  EXPECT_EQ(launches[1].first, Address::daemon(2));
  EXPECT_EQ(launches[0].second.local_procs, 4u);
  EXPECT_EQ(launches[1].second.local_procs, 4u);
  EXPECT_EQ(launches[0].second.first_rank, 0u);
  EXPECT_EQ(launches[1].second.first_rank, 4u);
  EXPECT_EQ(launches[0].second.session_id, 1u);
  EXPECT_EQ(launches[0].second.app.argv, (std::vector<std::string>{"5"}));
  const std::string nspace = launches[0].second.nspace;
  EXPECT_EQ(launches[1].second.nspace, nspace);
  EXPECT_EQ(sent.size(), 3u);  // still no answer to the scheduler

  ctl->handle(Address::daemon(1), ProcsStarted{nspace, 1, Status::Success});
  EXPECT_TRUE(env.take_sent().empty());
  ctl->handle(Address::daemon(2), ProcsStarted{nspace, 2, Status::Success});
  const auto r = answer_to_scheduler(11);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.info.get_uint(key::SESSION_ID), 1u);
  EXPECT_EQ(*r.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  ASSERT_NE(r.info.get<std::string>(key::NSPACE), nullptr);
  EXPECT_EQ(*r.info.get<std::string>(key::NSPACE), nspace);
}

TEST_F(ControllerTest, LastJobEndReclaimsTheSessionAndSendsOneComplete) {
  attach();
  const std::string nspace = running_session(3, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::ErrJobNonZeroTerm, 1});
  EXPECT_EQ(ctl->session_count(), 0u);

  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(complete.session_id, 3u);
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
  EXPECT_EQ(complete.directives.get_uint(key::SESSION_ID), 3u);
  EXPECT_EQ(*complete.directives.get<std::string>(key::ALLOC_ID), "alloc-3");
  std::vector<InfoList> jobs;
  for (const auto& item : complete.directives.items)
    if (item.key == key::JOB_INFO_ARRAY) jobs.push_back(std::get<InfoList>(item.value));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(*jobs[0].get<std::string>(key::NSPACE), nspace);
  ASSERT_NE(jobs[0].get<Status>(key::JOB_TERM_STATUS), nullptr);
  EXPECT_EQ(*jobs[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobNonZeroTerm);
  // Reclaimed once: the scheduler's answer to COMPLETE and repeated ends change nothing.
  ctl->handle(Address::scheduler(), SessionCtrlResponse{complete.id, Status::Success, {}, complete.corr});
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::Success, 0});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("session.complete"), 1u);
}

TEST_F(ControllerTest, CompleteWaitsForASchedulerWhenNoneIsAttached) {
  const std::string nspace = running_session(3, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.take_sent().empty());  // reclaimed, but nobody to tell yet
  ctl->handle(Address::scheduler(), ConnectResponse{1, Status::Success});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
  EXPECT_EQ(complete.session_id, 3u);
}

TEST_F(ControllerTest, NodesWithDaemonsLaunchWithoutAFence) {
  attach();
  const std::string first = running_session(1, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{first, 1, Status::Success, 0});
  env.take_sent();
  ASSERT_EQ(env.daemons_started().size(), 1u);
  // Default inheritance keeps the daemon: the next session on n01 launches at once.
  from_scheduler(2, 2, instantiate("n01:8", "alloc-2", {sleep_app(8, 5)}));
  EXPECT_EQ(env.daemons_started().size(), 1u);
  const auto launch = only<LaunchProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(launch.session_id, 2u);
}

TEST_F(ControllerTest, ExistingSessionIdIsRefused) {
  attach();
  from_scheduler(1, 4, instantiate("n01", "alloc-4"));
  env.take_sent();
  from_scheduler(2, 4, instantiate("n02", "alloc-5"));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrExists);
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, TwoOperationsInOneRequestAreRefused) {
  attach();
  InfoList d = instantiate("n01", "alloc-1");
  d.add(key::SESSION_TERMINATE, true);
  from_scheduler(1, 1, d);
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  from_scheduler(2, 1, InfoList{});  // and none at all
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
}

TEST_F(ControllerTest, CompleteIsNeverAcceptedByTheRm) {
  attach();
  from_scheduler(1, 1, op(key::SESSION_COMPLETE));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrNotSupported);
}

TEST_F(ControllerTest, ResourceSelectionIsRefused) {
  attach();
  InfoList d = instantiate("n01", "alloc-1");
  d.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  from_scheduler(1, 1, d);
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrNotSupported);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, TerminateOfAnUnknownSessionIsNotFound) {
  attach();
  from_scheduler(1, 42, op(key::SESSION_TERMINATE));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, AppsWithoutANodeListAreRefused) {
  attach();
  InfoList d;
  d.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_APP, std::vector<App>{sleep_app(1, 5)});
  from_scheduler(1, 1, d);
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, NodesOutsideTheAllocationAreRefused) {
  attach();
  from_scheduler(1, 1, instantiate("head", "alloc-1"));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  from_scheduler(2, 1, instantiate("n99", "alloc-1"));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, TerminateKillsTheJobsAndAnswersAfterTheReclaim) {
  attach();
  const std::string nspace = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(7, 1, op(key::SESSION_TERMINATE));
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 2u);
  EXPECT_EQ(kills[0].first, Address::daemon(1));
  EXPECT_EQ(kills[1].first, Address::daemon(2));
  EXPECT_EQ(kills[0].second.nspace, nspace);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobKilledByCmd);

  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_TRUE(env.take_sent().empty());  // not answered before the session is gone
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(ctl->session_count(), 0u);
  const auto sent = env.take_sent();
  const auto completes = all_of<SessionCtrlRequest>(sent);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(completes.size(), 1u);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 7u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  const auto* job = completes[0].second.directives.get<InfoList>(key::JOB_INFO_ARRAY);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(*job->get<Status>(key::JOB_TERM_STATUS), Status::ErrJobKilledByCmd);
}

TEST_F(ControllerTest, TerminateOfAReservationReclaimsAtOnce) {
  attach();
  from_scheduler(1, 1, instantiate("n01", "alloc-1"));
  env.take_sent();
  from_scheduler(2, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_FALSE(completes[0].second.directives.has(key::JOB_INFO_ARRAY));  // no job ran
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 2u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, TerminateWhileTheJobIsFencedNeverLaunchesIt) {
  attach();
  from_scheduler(11, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 5)}));
  from_scheduler(12, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].second.id, 12u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  EXPECT_EQ(answers[1].second.id, 11u);  // the instantiation learns its job was killed
  EXPECT_EQ(answers[1].second.status, Status::ErrJobKilledByCmd);
  EXPECT_EQ(ctl->session_count(), 0u);
  daemons_ready({1});
  EXPECT_TRUE(all_of<LaunchProcs>(env.take_sent()).empty());
}

TEST_F(ControllerTest, TimeLimitTerminatesTheSession) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_TIME, std::string("10"));
  from_scheduler(1, 1, instantiate("n01", "alloc-1", {}, extra));
  daemons_ready({1});
  env.take_sent();
  env.advance(9.9);
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
  env.advance(0.1);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(env.count_events("session.timeout"), 1u);
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
}

TEST_F(ControllerTest, TimeLimitKillsRunningJobsWithTimeout) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_TIME, std::string("10"));
  const std::string nspace = running_session(1, "n01:8", {1}, 8, extra);
  env.advance(10);
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(kill.nspace, nspace);
  EXPECT_EQ(kill.reason, Status::ErrTimeout);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::ErrTimeout, 0});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(*complete.directives.get<InfoList>(key::JOB_INFO_ARRAY)->get<Status>(key::JOB_TERM_STATUS),
            Status::ErrTimeout);
}

TEST_F(ControllerTest, ExtendThatChangesNothingIsRefused) {
  attach();
  from_scheduler(1, 1, instantiate("n01", "alloc-1"));
  env.take_sent();
  from_scheduler(2, 1, op(key::SESSION_EXTEND));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  from_scheduler(3, 9, op(key::SESSION_EXTEND));
  EXPECT_EQ(answer_to_scheduler(3).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, ExtendWithANewTimeRearmsTheLimit) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_TIME, std::string("10"));
  from_scheduler(1, 1, instantiate("n01", "alloc-1", {}, extra));
  daemons_ready({1});
  env.take_sent();
  env.advance(5);
  InfoList d = op(key::SESSION_EXTEND);
  d.add(key::ALLOC_TIME, std::string("20"));  // the new total limit, from the session's start
  from_scheduler(2, 1, d);
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  env.advance(5);  // t = 10: the old limit no longer applies
  EXPECT_EQ(ctl->session_count(), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(9.9);
  EXPECT_EQ(ctl->session_count(), 1u);
  env.advance(0.1);  // t = 20
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 1u);
}

TEST_F(ControllerTest, ExtendWithNodesGrowsTheDvm) {
  attach();
  from_scheduler(1, 1, instantiate("n01", "alloc-1"));
  daemons_ready({1});
  env.take_sent();
  InfoList d = op(key::SESSION_EXTEND);
  d.add(key::ALLOC_NODE_LIST, std::string("n03:2"));
  from_scheduler(2, 1, d);
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 3}));
  daemons_ready({3});
  EXPECT_EQ(only<Notification>(env.take_sent(), Address::scheduler()).code, Status::DvmIsReady);
}

TEST_F(ControllerTest, InheritNoneShutsTheSessionsDaemonsDownOnReclaim) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_INHERITANCE, std::uint32_t{1});
  const std::string nspace = running_session(1, "n01:4,n02:4", {1, 2}, 8, extra);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::Success, 0});
  const auto sent = env.take_sent();
  const auto shutdowns = all_of<DaemonShutdown>(sent);
  ASSERT_EQ(shutdowns.size(), 2u);
  EXPECT_EQ(shutdowns[0].first, Address::daemon(1));
  EXPECT_EQ(shutdowns[1].first, Address::daemon(2));
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::None);
  EXPECT_EQ(ctl->daemon_state(Cluster::kHead), DaemonState::Up);
  EXPECT_EQ(all_of<SessionCtrlRequest>(sent).size(), 1u);
}

TEST_F(ControllerTest, DefaultInheritanceKeepsTheDaemons) {
  attach();
  const std::string nspace = running_session(1, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  EXPECT_TRUE(all_of<DaemonShutdown>(env.take_sent()).empty());
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Up);
}

TEST_F(ControllerTest, InheritNoneKeepsADaemonAnotherSessionStillUses) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_INHERITANCE, std::uint32_t{1});
  from_scheduler(1, 1, instantiate("n01:4", "alloc-1", {}, extra));
  from_scheduler(2, 2, instantiate("n01:4", "alloc-2"));
  daemons_ready({1});
  env.take_sent();
  from_scheduler(3, 1, op(key::SESSION_TERMINATE));
  EXPECT_TRUE(all_of<DaemonShutdown>(env.take_sent()).empty());
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Up);
}

TEST_F(ControllerTest, ADaemonThatNeverComesUpFailsTheLaunch) {
  attach();
  from_scheduler(11, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 5)}));
  ctl->handle(Address::daemon(1), Unreachable{Address::daemon(1), MessageKind::DaemonReady, 0, ""});
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Failed);
  const auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].second.code, Status::ErrDvmMod);
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());
  // The job never ran: the session is reclaimed, the scheduler told, the instantiation failed.
  EXPECT_EQ(ctl->session_count(), 0u);
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_EQ(*completes[0].second.directives.get<InfoList>(key::JOB_INFO_ARRAY)->get<Status>(key::JOB_TERM_STATUS),
            Status::ErrJobFailedToLaunch);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 11u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
}

}  // namespace
}  // namespace pmixflow
