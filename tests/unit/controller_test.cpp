// The controller (prte, the DVM master) against a scripted Env: transport to the scheduler,
// scheduler attachment from either side, and session control ordered by the scheduler.
#include "pmixflow/roles/controller.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

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

const Proc kTool{"tool", 0};
const Proc kMallory{"mallory", 0};

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
    ctl->handle(Address::scheduler(),
                SessionCtrlRequest{id, session, std::move(directives), Proc{"scheduler", 0}, "c" + std::to_string(id)});
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
  // `directives` are added beside INSTANTIATE (PMIX_REQUESTOR, PMIX_SESSION_SEP, ...).
  std::string running_session(std::uint32_t session, std::string nodes, std::initializer_list<NodeId> ids,
                              std::uint32_t np, InfoList extra = {}, InfoList directives = {}) {
    InfoList d =
        instantiate(std::move(nodes), "alloc-" + std::to_string(session), {sleep_app(np, 100)}, std::move(extra));
    for (auto& item : directives.items) d.items.push_back(std::move(item));
    from_scheduler(1, session, std::move(d));
    daemons_ready(ids);
    const auto launches = all_of<LaunchProcs>(env.take_sent());
    EXPECT_EQ(launches.size(), ids.size());
    for (NodeId n : ids)
      ctl->handle(Address::daemon(n), ProcsStarted{launches.at(0).second.nspace, n, Status::Success});
    const auto r = answer_to_scheduler(1);
    EXPECT_EQ(r.status, Status::Success);
    return launches.at(0).second.nspace;
  }

  // ---- helpers for the session lifecycle, spawns and activation
  static InfoList with(InfoList d, std::string_view k, Value v) {
    d.add(k, std::move(v));
    return d;
  }
  static InfoList owned(InfoList d, const Proc& owner) { return with(std::move(d), key::REQUESTOR, owner); }
  // PMIx_Session_control from requestor `who`, talking to the controller directly.
  void from_requestor(std::uint32_t who, std::uint64_t id, std::uint32_t session, InfoList directives, Proc caller) {
    ctl->handle(Address::requestor(who),
                SessionCtrlRequest{id, session, std::move(directives), std::move(caller), "r" + std::to_string(id)});
  }
  // The single SessionCtrlResponse requestor `who` got for call `id`.
  SessionCtrlResponse answer_to_requestor(std::uint32_t who, std::uint64_t id) {
    const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::requestor(who));
    EXPECT_EQ(r.id, id);
    return r;
  }
  // A reservation (no apps) of `owner`, its daemons up. Outbox empty.
  void reservation(std::uint32_t session, std::string nodes, std::initializer_list<NodeId> ids, const Proc& owner) {
    from_scheduler(50 + session, session,
                   owned(instantiate(std::move(nodes), "alloc-" + std::to_string(session)), owner));
    daemons_ready(ids);
    env.take_sent();
  }
  static SpawnRequest spawn(std::uint64_t id, std::uint32_t np, InfoList job_info, Proc caller = kTool) {
    return SpawnRequest{id, {sleep_app(np, 100)}, std::move(job_info), std::move(caller), "sp#" + std::to_string(id)};
  }
  // job_info carrying PMIX_SPAWN_ALLOC: the directive and what a standalone request would carry.
  static InfoList spawn_alloc(Directive d, InfoList request) {
    request.add(key::ALLOC_REQ_DIRECTIVE, d);
    InfoList job_info;
    job_info.add(key::SPAWN_ALLOC, std::move(request));
    return job_info;
  }
  static InfoList in_session(std::uint32_t session) { return with({}, key::SESSION_ID, session); }
  static InfoList cpus(std::uint64_t n) { return with({}, key::ALLOC_NUM_CPUS, n); }
  // Sends `req` from requestor 1, expects a launch on exactly `ids`, starts it there and expects
  // the spawn answered with success. Returns the job's nspace. Outbox empty.
  std::string spawned(SpawnRequest req, std::initializer_list<NodeId> ids) {
    const std::uint64_t id = req.id;
    ctl->handle(Address::requestor(1), std::move(req));
    const auto launches = all_of<LaunchProcs>(env.take_sent());
    EXPECT_EQ(launches.size(), ids.size());
    if (launches.empty()) return "";
    std::size_t i = 0;
    for (NodeId n : ids) {
      if (i < launches.size()) {
        EXPECT_EQ(launches[i++].first, Address::daemon(n));
      }
      ctl->handle(Address::daemon(n), ProcsStarted{launches[0].second.nspace, n, Status::Success});
    }
    const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
    EXPECT_EQ(r.id, id);
    EXPECT_EQ(r.status, Status::Success);
    EXPECT_EQ(r.nspace, launches[0].second.nspace);
    return launches[0].second.nspace;
  }
  // An activation request from requestor 1 for `host`.
  void activate(std::uint64_t id, std::string host, InfoList extra = {}, Proc caller = kTool) {
    InfoList info = extra;
    if (!host.empty()) info.add(key::HOST, std::move(host));
    ctl->handle(Address::requestor(1),
                AllocRequest{id, Directive::Activate, std::move(info), std::move(caller), "act#" + std::to_string(id)});
  }
  // The signals sent for `nspace`, as (daemon node, signal), in sending order.
  static std::vector<std::pair<NodeId, int>> signals(const std::vector<Sent>& sent, const std::string& nspace) {
    std::vector<std::pair<NodeId, int>> out;
    for (const auto& [to, sig] : all_of<SignalProcs>(sent))
      if (sig.nspace == nspace) out.emplace_back(to.index, sig.signal);
    return out;
  }
  static std::vector<InfoList> job_records(const SessionCtrlRequest& complete) {
    std::vector<InfoList> jobs;
    for (const auto& item : complete.directives.items)
      if (item.key == key::JOB_INFO_ARRAY) jobs.push_back(std::get<InfoList>(item.value));
    return jobs;
  }
  // The COMPLETEs sent to the scheduler in `sent`, by session id.
  static std::vector<std::uint32_t> completed_sessions(const std::vector<Sent>& sent) {
    std::vector<std::uint32_t> out;
    for (const auto& [to, req] : all_of<SessionCtrlRequest>(sent))
      if (to == Address::scheduler() && req.directives.flag(key::SESSION_COMPLETE)) out.push_back(req.session_id);
    return out;
  }
  using Signals = std::vector<std::pair<NodeId, int>>;
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

TEST_F(ControllerTest, AMultiAppJobKeepsEveryAppThroughTheLaunch) {
  attach();
  App solver = sleep_app(6, 5), monitor = sleep_app(2, 7);
  monitor.cmd = "monitor";
  monitor.argv = {};
  monitor.env = {"PMIXFLOW_RUNTIME=7"};
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {solver, monitor}));
  daemons_ready({1, 2});
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  // Each daemon gets the whole job, and the ranks that are its own: n01 ranks 0-3 (solver),
  // n02 ranks 4-7 (solver 4-5, monitor 6-7).
  for (const auto& [to, launch] : launches) {
    ASSERT_EQ(launch.apps.size(), 2u);
    EXPECT_EQ(launch.apps[0], solver);
    EXPECT_EQ(launch.apps[1], monitor);
    EXPECT_EQ(launch.local_procs, 4u);
  }
  EXPECT_EQ(launches[0].second.first_rank, 0u);
  EXPECT_EQ(launches[1].second.first_rank, 4u);
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
  ASSERT_EQ(launches[0].second.apps.size(), 1u);
  EXPECT_EQ(launches[0].second.apps[0].argv, (std::vector<std::string>{"5"}));
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
  // With its app, the session's time counts from the job's start (plus a 1 ms grace for a
  // job ending exactly at its limit to report its own end).
  env.advance(10);
  EXPECT_TRUE(all_of<KillProcs>(env.take_sent()).empty());
  env.advance(0.002);
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
  ctl->handle(Address::daemon(1), DaemonStartFailed{1});
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

// ---------------------------------------------------------------- PAUSE / RESUME / PREEMPT / RESTORE / SIGNAL

TEST_F(ControllerTest, PauseStopsEveryJobOnceAndResumeContinuesIt) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(2, 1, op(key::SESSION_PAUSE));
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigStop}, {2, kSigStop}}));
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.id, 2u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  EXPECT_EQ(sent.size(), 3u);  // no kill, no COMPLETE: a paused job keeps its slots
  EXPECT_EQ(env.count_events("job.suspend", {"\"paused\":true"}), 1u);
  EXPECT_EQ(
      env.count_events("session_ctrl.execute", {"\"ops\":\"PMIX_SESSION_PAUSE\"", "\"decided_by\":\"scheduler\""}), 1u);

  from_scheduler(3, 1, op(key::SESSION_PAUSE));  // never signalled twice for the same state
  EXPECT_EQ(answer_to_scheduler(3).status, Status::Success);

  from_scheduler(4, 1, op(key::SESSION_RESUME));
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigCont}, {2, kSigCont}}));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(env.count_events("job.continue"), 1u);

  from_scheduler(5, 1, op(key::SESSION_RESUME));
  EXPECT_EQ(answer_to_scheduler(5).status, Status::Success);
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, TerminateContinuesAPausedJobBeforeKillingIt) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(2, 1, op(key::SESSION_PAUSE));
  env.take_sent();
  from_scheduler(3, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  for (NodeId n : {NodeId{1}, NodeId{2}}) {
    SCOPED_TRACE("daemon " + std::to_string(n));
    std::vector<std::string> to_daemon;
    for (const auto& m : sent)
      if (m.to == Address::daemon(n)) to_daemon.emplace_back(message_name(kind_of(m.msg)));
    ASSERT_EQ(to_daemon, (std::vector<std::string>{"signal_procs", "kill_procs"}));
  }
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigCont}, {2, kSigCont}}));
  EXPECT_TRUE(all_of<SessionCtrlResponse>(sent).empty());  // answered once reclaimed
}

TEST_F(ControllerTest, PreemptStopsOnlyTheNamedJobAndKeepsItsResources) {
  attach();
  reservation(1, "n01:8,n02:8", {1, 2}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 12, in_session(1)), {1, 2});
  ASSERT_NE(a, b);

  from_scheduler(3, 1, with(op(key::SESSION_PREEMPT), key::NSPACE, b));
  auto sent = env.take_sent();
  EXPECT_TRUE(signals(sent, a).empty());
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigStop}, {2, kSigStop}}));
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());  // suspended, not freed (the deliberate deviation)
  EXPECT_TRUE(all_of<DaemonShutdown>(sent).empty());
  EXPECT_TRUE(completed_sessions(sent).empty());
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  EXPECT_EQ(env.count_events("job.suspend", {b, "\"preempted\":true"}), 1u);
  EXPECT_EQ(ctl->session_count(), 1u);

  from_scheduler(4, 1, with(op(key::SESSION_RESTORE), key::NSPACE, b));
  sent = env.take_sent();
  EXPECT_TRUE(signals(sent, a).empty());
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigCont}, {2, kSigCont}}));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
}

TEST_F(ControllerTest, PreemptWithoutANamedJobStopsThemAll) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 4, in_session(1)), {1});
  from_scheduler(3, 1, op(key::SESSION_PREEMPT));
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigStop}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigStop}}));
}

TEST_F(ControllerTest, PauseAndPreemptAreUndoneSeparately) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 4, in_session(1)), {1});
  from_scheduler(3, 1, with(op(key::SESSION_PREEMPT), key::NSPACE, b));
  EXPECT_EQ(signals(env.take_sent(), b), (Signals{{1, kSigStop}}));

  from_scheduler(4, 1, op(key::SESSION_PAUSE));  // b is already stopped: only a is signalled
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigStop}}));
  EXPECT_TRUE(signals(sent, b).empty());

  from_scheduler(5, 1, op(key::SESSION_RESUME));  // b stays preempted
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigCont}}));
  EXPECT_TRUE(signals(sent, b).empty());

  from_scheduler(6, 1, op(key::SESSION_PAUSE));
  from_scheduler(7, 1, op(key::SESSION_RESTORE));  // b is no longer preempted, but now paused
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigStop}}));
  EXPECT_TRUE(signals(sent, b).empty());
  from_scheduler(8, 1, op(key::SESSION_RESUME));
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigCont}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigCont}}));
}

TEST_F(ControllerTest, PreemptOfAJobNotInTheSessionIsNotFound) {
  attach();
  const std::string ns = running_session(1, "n01:8", {1}, 8);
  from_scheduler(2, 1, with(op(key::SESSION_PREEMPT), key::NSPACE, std::string("job-9.9")));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrNotFound);  // and nothing was signalled
  from_scheduler(3, 1, with(op(key::SESSION_RESTORE), key::NSPACE, std::string("job-9.9")));
  EXPECT_EQ(answer_to_scheduler(3).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, SignalIsDeliveredToTheNamedJobsOrToAll) {
  attach();
  reservation(1, "n01:8,n02:8", {1, 2}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 12, in_session(1)), {1, 2});
  from_scheduler(3, 1, with(with({}, key::SESSION_SIGNAL, std::int32_t{kSigTerm}), key::NSPACE, a));
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigTerm}}));
  EXPECT_TRUE(signals(sent, b).empty());
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  EXPECT_EQ(env.count_events("job.signal", {a, "\"signal\":15"}), 1u);

  InfoList usr1;
  usr1.add(key::SESSION_SIGNAL, std::int32_t{10});
  from_scheduler(4, 1, usr1);
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, 10}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, 10}, {2, 10}}));
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());  // the controller only delivers it
}

TEST_F(ControllerTest, ASignalOutOfRangeIsABadParam) {
  attach();
  running_session(1, "n01:8", {1}, 8);
  for (std::int32_t sig : {0, -1, 65}) {
    SCOPED_TRACE("signal " + std::to_string(sig));
    InfoList d;
    d.add(key::SESSION_SIGNAL, sig);
    from_scheduler(2, 1, d);
    EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  }
  InfoList named;
  named.add(key::SESSION_SIGNAL, std::int32_t{kSigTerm}).add(key::NSPACE, std::string("job-9.9"));
  from_scheduler(3, 1, named);
  EXPECT_EQ(answer_to_scheduler(3).status, Status::ErrNotFound);
}

// PAUSE stops every job of the session (FLOW.md §4), including one still waiting behind the
// launch fence: it must not be launched running.
TEST_F(ControllerTest, AJobPausedBehindTheFenceDoesNotRunWhenLaunched) {
  attach();
  from_scheduler(1, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 100)}));
  from_scheduler(2, 1, op(key::SESSION_PAUSE));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  daemons_ready({1});
  const auto sent = env.take_sent();
  bool launched = false, stopped_after = false;
  for (const auto& m : sent) {
    if (m.to != Address::daemon(1)) continue;
    if (std::holds_alternative<LaunchProcs>(m.msg)) launched = true;
    if (const auto* sig = std::get_if<SignalProcs>(&m.msg); sig && sig->signal == kSigStop && launched)
      stopped_after = true;
  }
  EXPECT_TRUE(!launched || stopped_after) << "a paused job was launched and left running";
}

// ---------------------------------------------------------------- UINT32_MAX: every session the caller controls

TEST_F(ControllerTest, AllSessionsFromTheSchedulerMeansItsSessionsNotTheDvmPool) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {3}});
  daemons_ready({3});
  env.take_sent();
  attach();
  const std::string s1 = running_session(1, "n01:8", {1}, 8);
  const std::string s2 = running_session(2, "n02:8", {2}, 8);
  const std::string pool = spawned(spawn(9, 4, {}), {3});
  from_scheduler(5, kAllSessions, op(key::SESSION_PAUSE));
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, s1), (Signals{{1, kSigStop}}));
  EXPECT_EQ(signals(sent, s2), (Signals{{2, kSigStop}}));
  EXPECT_TRUE(signals(sent, pool).empty());
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 5u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
}

TEST_F(ControllerTest, TerminatingAllSessionsEndsEachAndAnswersOnce) {
  attach();
  const std::string s1 = running_session(1, "n01:8", {1}, 8);
  const std::string s2 = running_session(2, "n02:8", {2}, 8);
  from_scheduler(5, kAllSessions, op(key::SESSION_TERMINATE));
  auto sent = env.take_sent();
  const auto kills = all_of<KillProcs>(sent);
  ASSERT_EQ(kills.size(), 2u);
  EXPECT_EQ(kills[0].second.nspace, s1);
  EXPECT_EQ(kills[1].second.nspace, s2);
  auto answers = all_of<SessionCtrlResponse>(sent);
  ctl->handle(Address::daemon(1), ProcsEnded{s1, 1, Status::ErrJobKilledByCmd, 0});
  ctl->handle(Address::daemon(2), ProcsEnded{s2, 2, Status::ErrJobKilledByCmd, 0});
  sent = env.take_sent();
  for (auto& a : all_of<SessionCtrlResponse>(sent)) answers.push_back(a);
  EXPECT_EQ(completed_sessions(sent), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(ctl->session_count(), 0u);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::scheduler());
  EXPECT_EQ(answers[0].second.id, 5u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
}

TEST_F(ControllerTest, InstantiateCannotNameAllSessions) {
  attach();
  from_scheduler(1, kAllSessions, instantiate("n01", "alloc-1"));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

// PREEMPT acts on the jobs named by PMIX_NSPACE, across every session the caller controls:
// the job is preempted, and the caller is told it succeeded.
TEST_F(ControllerTest, PreemptAcrossAllSessionsOfANamedJobSucceeds) {
  attach();
  const std::string s1 = running_session(1, "n01:8", {1}, 8);
  const std::string s2 = running_session(2, "n02:8", {2}, 8);
  from_scheduler(5, kAllSessions, with(op(key::SESSION_PREEMPT), key::NSPACE, s2));
  const auto sent = env.take_sent();
  EXPECT_TRUE(signals(sent, s1).empty());
  EXPECT_EQ(signals(sent, s2), (Signals{{2, kSigStop}}));
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success)
      << "the job was preempted, yet the caller is told it was not found";
}

// ---------------------------------------------------------------- no scheduler: the controller decides

TEST_F(ControllerTest, WithoutASchedulerOnlyTheOwnerControlsItsSession) {
  const std::string ns = running_session(1, "n01:8", {1}, 8, {}, owned({}, kTool));
  from_requestor(2, 3, 1, op(key::SESSION_PAUSE), kMallory);
  EXPECT_EQ(answer_to_requestor(2, 3).status, Status::ErrNoPermissions);  // and nothing signalled
  EXPECT_EQ(env.count_events("session_ctrl.execute", {"\"decided_by\":\"controller\""}), 1u);

  from_requestor(1, 4, 1, op(key::SESSION_PAUSE), Proc{"tool", 5});  // any rank of the owning namespace
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigStop}}));
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].first, Address::requestor(1));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);

  from_requestor(1, 5, 9, op(key::SESSION_PAUSE), kTool);
  EXPECT_EQ(answer_to_requestor(1, 5).status, Status::ErrNotFound);

  from_requestor(2, 6, 1, op(key::SESSION_TERMINATE), kMallory);
  EXPECT_EQ(answer_to_requestor(2, 6).status, Status::ErrNoPermissions);
  EXPECT_EQ(ctl->session_count(), 1u);

  from_requestor(1, 7, 1, op(key::SESSION_TERMINATE), kTool);
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigCont}}));
  ASSERT_EQ(all_of<KillProcs>(sent).size(), 1u);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(answer_to_requestor(1, 7).status, Status::Success);  // the COMPLETE waits for a scheduler
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, WithoutASchedulerAllSessionsMeansTheCallersOwn) {
  const std::string s1 = running_session(1, "n01:8", {1}, 8, {}, owned({}, kTool));
  const std::string s2 = running_session(2, "n02:8", {2}, 8, {}, owned({}, kMallory));
  const std::string s3 = running_session(3, "n03:8", {3}, 8, {}, owned({}, kTool));
  from_requestor(1, 4, kAllSessions, op(key::SESSION_PAUSE), kTool);
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, s1), (Signals{{1, kSigStop}}));
  EXPECT_TRUE(signals(sent, s2).empty());
  EXPECT_EQ(signals(sent, s3), (Signals{{3, kSigStop}}));
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::requestor(1));
  EXPECT_EQ(answers[0].second.status, Status::Success);

  from_requestor(3, 5, kAllSessions, op(key::SESSION_PAUSE), Proc{"nobody", 0});  // owns nothing: nothing to do
  EXPECT_EQ(answer_to_requestor(3, 5).status, Status::Success);
}

// ---------------------------------------------------------------- SEP, dependents, children

TEST_F(ControllerTest, SepFalseTiesASessionToItsRequestorsConnection) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});  // connects
  env.take_sent();
  const std::string ns = running_session(1, "n01:8", {1}, 8, {}, with(owned({}, kTool), key::SESSION_SEP, false));
  EXPECT_EQ(env.count_events("session.instantiate", {"\"sep\":false"}), 1u);
  ctl->handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  EXPECT_EQ(env.count_events("requestor.gone", {"tool.0"}), 1u);
  EXPECT_EQ(env.count_events("session.dependent_end"), 1u);
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(kill.nspace, ns);
  EXPECT_EQ(kill.reason, Status::ErrJobKilledByCmd);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
}

TEST_F(ControllerTest, ByDefaultASessionOutlivesItsRequestor) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  env.take_sent();
  running_session(1, "n01:8", {1}, 8, {}, owned({}, kTool));
  ASSERT_EQ(env.count_events("session.instantiate"), 1u);
  EXPECT_EQ(env.events_of("session.instantiate")[0].fields.find("\"sep\""), std::string::npos);  // the default
  ctl->handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, SepDetachesATiedSessionAloneOrBesideAnOperation) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  ctl->handle(Address::requestor(2), AllocRequest{6, Directive::New, cpus(8), kMallory, "m#1"});
  env.take_sent();
  running_session(1, "n01:8", {1}, 8, {}, with(owned({}, kTool), key::SESSION_SEP, false));
  const std::string s2 = running_session(2, "n02:8", {2}, 8, {}, with(owned({}, kMallory), key::SESSION_SEP, false));

  from_scheduler(3, 1, with({}, key::SESSION_SEP, true));  // SEP alone is a valid request
  EXPECT_EQ(answer_to_scheduler(3).status, Status::Success);
  from_scheduler(4, 2, with(op(key::SESSION_PAUSE), key::SESSION_SEP, true));  // and may ride along
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, s2), (Signals{{2, kSigStop}}));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(env.count_events("session.sep", {"\"sep\":true"}), 2u);

  ctl->handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  ctl->handle(Address::requestor(2), PeerLost{Address::requestor(2)});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 2u);
}

TEST_F(ControllerTest, ASessionTiedToAJobEndsWithThatJob) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {3}});
  daemons_ready({3});
  env.take_sent();
  attach();
  const std::string owner_job = spawned(spawn(9, 4, {}), {3});
  from_scheduler(1, 1, with(owned(instantiate("n01:8", "alloc-1"), Proc{owner_job, 0}), key::SESSION_SEP, false));
  daemons_ready({1});
  env.take_sent();
  ctl->handle(Address::daemon(3), ProcsEnded{owner_job, 3, Status::Success, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(env.count_events("session.dependent_end", {"\"owner_nspace\":\"" + owner_job + "\""}), 1u);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ChildSessionsEndWithTheirParentUnlessSeparated) {
  attach();
  const std::string parent_job = running_session(1, "n01:8", {1}, 8);
  const Proc inside{parent_job, 3};  // a process of session 1's job asks for more
  from_scheduler(2, 2, owned(instantiate("n02:2", "alloc-2"), inside));
  from_scheduler(3, 3, with(owned(instantiate("n02:2", "alloc-3"), inside), key::ALLOC_CHILD_SEP, true));
  from_scheduler(4, 4, with(owned(instantiate("n02:2", "alloc-4"), inside), key::SESSION_SEP, true));
  daemons_ready({2});
  env.take_sent();
  EXPECT_EQ(env.count_events("session.instantiate", {"\"parent\":1"}), 3u);

  ctl->handle(Address::daemon(1), ProcsEnded{parent_job, 1, Status::Success, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1, 2}));  // the parent first
  EXPECT_EQ(env.count_events("session.dependent_end", {"\"session\":2", "\"parent\":1"}), 1u);
  EXPECT_EQ(ctl->session_count(), 2u);  // 3 (CHILD_SEP) and 4 (SEP) outlive it
  from_scheduler(5, 3, op(key::SESSION_PAUSE));
  EXPECT_EQ(answer_to_scheduler(5).status, Status::Success);
  from_scheduler(6, 4, op(key::SESSION_PAUSE));
  EXPECT_EQ(answer_to_scheduler(6).status, Status::Success);
}

TEST_F(ControllerTest, ATerminatedParentTakesItsChildsJobsWithIt) {
  attach();
  const std::string parent_job = running_session(1, "n01:8", {1}, 8);
  const std::string child_job = running_session(2, "n02:8", {2}, 8, {}, owned({}, Proc{parent_job, 0}));
  from_scheduler(7, 1, op(key::SESSION_TERMINATE));
  EXPECT_EQ(only<KillProcs>(env.take_sent(), Address::daemon(1)).nspace, parent_job);
  ctl->handle(Address::daemon(1), ProcsEnded{parent_job, 1, Status::ErrJobKilledByCmd, 0});
  auto sent = env.take_sent();
  EXPECT_EQ(completed_sessions(sent), (std::vector<std::uint32_t>{1}));
  const auto kills = all_of<KillProcs>(sent);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].first, Address::daemon(2));
  EXPECT_EQ(kills[0].second.nspace, child_job);
  ctl->handle(Address::daemon(2), ProcsEnded{child_job, 2, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ASessionTiedToAClientOfADaemonOrOfTheSchedulerEndsWhenThatClientIsLost) {
  attach();
  const std::string s1 =
      running_session(1, "n01:8", {1}, 8, {}, with(owned({}, Proc{"tool-a", 0}), key::SESSION_SEP, false));
  const std::string s2 =
      running_session(2, "n02:8", {2}, 8, {}, with(owned({}, Proc{"tool-b", 0}), key::SESSION_SEP, false));
  running_session(3, "n03:8", {3}, 8, {}, owned({}, Proc{"tool-a", 0}));  // default: detached
  InfoList lost_a;
  lost_a.add("pmix.procid", Proc{"tool-a", 0});
  ctl->handle(Address::daemon(4), Notification{Status::ErrLostConnection, lost_a, ""});  // a daemon's client went away
  EXPECT_EQ(env.count_events("requestor.gone", {"tool-a.0", "daemon:4"}), 1u);
  const auto kill_a = only<KillProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(kill_a.nspace, s1);
  InfoList lost_b;
  lost_b.add("pmix.procid", Proc{"tool-b", 0});
  ctl->handle(Address::scheduler(), Notification{Status::ErrLostConnection, lost_b, ""});  // a tool of the scheduler's
  EXPECT_EQ(only<KillProcs>(env.take_sent(), Address::daemon(2)).nspace, s2);
  // Other events name nobody to end.
  ctl->handle(Address::daemon(4), Notification{Status::DvmIsReady, lost_a, ""});
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(ControllerTest, OnlyTheSchedulerInstantiatesSessions) {
  from_requestor(1, 5, 7, instantiate("n01:8", "alloc-7"), kTool);  // no scheduler: refused, not decided here
  EXPECT_EQ(answer_to_requestor(1, 5).status, Status::ErrNoPermissions);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
  attach();
  from_requestor(1, 6, 7, instantiate("n01:8", "alloc-7"), kTool);  // with one: it decides
  const auto fwd = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(fwd.directives.flag(key::SESSION_INSTANTIATE));
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ASpawnIntoASessionUsesOnlyWhatItsRunningJobsLeaveFree) {
  attach();
  reservation(1, "n01:8,n02:4", {1, 2}, kTool);
  spawned(spawn(1, 6, in_session(1)), {1});
  ctl->handle(Address::requestor(1), spawn(2, 7, in_session(1)));  // 2 + 4 free
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::requestor(1), spawn(3, 6, in_session(1)));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].first, Address::daemon(1));
  EXPECT_EQ(launches[0].second.local_procs, 2u);
  EXPECT_EQ(launches[1].first, Address::daemon(2));
  EXPECT_EQ(launches[1].second.local_procs, 4u);
  EXPECT_EQ(launches[1].second.first_rank, 2u);
}

// ---------------------------------------------------------------- EXTEND

TEST_F(ControllerTest, ExtendWithATimeoutSetsALimitInSeconds) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  env.advance(10);
  from_scheduler(2, 1, with(op(key::SESSION_EXTEND), key::TIMEOUT, std::uint32_t{30}));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  EXPECT_EQ(env.count_events("session.extend", {"\"time_limit\":30"}), 1u);
  env.advance(19.9);  // t = 29.9: the limit counts from the session's start
  EXPECT_EQ(ctl->session_count(), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(env.count_events("session.timeout"), 1u);
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
}

TEST_F(ControllerTest, ExtendCanChangeTheInheritanceButNotToWhatItIs) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  from_scheduler(2, 1, with(op(key::SESSION_EXTEND), key::ALLOC_INHERITANCE, std::uint32_t{3}));  // already the default
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  from_scheduler(3, 1, with(op(key::SESSION_EXTEND), key::ALLOC_INHERITANCE, std::uint32_t{1}));
  EXPECT_EQ(answer_to_scheduler(3).status, Status::Success);
  from_scheduler(4, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<DaemonShutdown>(sent).size(), 1u);  // now handed back to the scheduler without a daemon
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::None);
}

// ---------------------------------------------------------------- PMIX_ALLOC_ACTIVATE (FLOW.md §5)

TEST_F(ControllerTest, ActivateIsAnsweredByTheControllerNotTheScheduler) {
  attach();
  activate(5, "n03,n04");
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));  // nothing to the scheduler
  EXPECT_EQ(answer.id, 5u);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.corr, "act#5");
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{3, 4}));
  EXPECT_EQ(env.count_events("activate", {"\"num_nodes\":2", "\"num_starting\":2"}), 1u);
  EXPECT_EQ(ctl->session_count(), 0u);  // nothing is added to any allocation

  daemons_ready({3});
  EXPECT_TRUE(env.take_sent().empty());  // granted, but the DVM is not ready yet
  daemons_ready({4});
  const auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].first, Address::requestor(1));  // whoever asked hears it
  EXPECT_EQ(notes[1].first, Address::scheduler());
  for (const auto& [to, n] : notes) {
    EXPECT_EQ(n.code, Status::DvmIsReady);
    EXPECT_EQ(n.corr, "act#5");
  }
  EXPECT_EQ(sent.size(), 2u);
  EXPECT_EQ(ctl->daemon_state(4), DaemonState::Up);
}

TEST_F(ControllerTest, ActivateSelectsByIndexOrTakesAll) {
  attach();
  activate(5, "+n1");  // counting allocated nodes from zero: n01 is +n0
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2}));
  daemons_ready({2});
  env.take_sent();
  activate(6, "+all");  // every allocated node not in the DVM
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2, 1, 3, 4}));
  EXPECT_EQ(ctl->daemon_state(Cluster::kHead), DaemonState::Up);
}

TEST_F(ControllerTest, ActivatingNodesAlreadyInTheDvmIsSatisfied) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {1, 2, 3, 4}});
  daemons_ready({1, 2, 3, 4});
  env.take_sent();
  attach();
  for (std::string host : {"n01", "+all"}) {
    SCOPED_TRACE(host);
    activate(5, host);
    env.advance(0);
    const auto sent = env.take_sent();
    ASSERT_EQ(sent.size(), 2u);
    // Granted (not refused), and then still reported ready, to whoever asked.
    ASSERT_TRUE(std::holds_alternative<AllocResponse>(sent[0].msg));
    EXPECT_EQ(sent[0].to, Address::requestor(1));
    EXPECT_EQ(std::get<AllocResponse>(sent[0].msg).status, Status::Success);
    ASSERT_TRUE(std::holds_alternative<Notification>(sent[1].msg));
    EXPECT_EQ(sent[1].to, Address::requestor(1));
    EXPECT_EQ(std::get<Notification>(sent[1].msg).code, Status::DvmIsReady);
  }
  EXPECT_EQ(env.daemons_started().size(), 4u);  // nothing new started
}

TEST_F(ControllerTest, ActivateRefusesSlotCountsEmptyNodesAndForeignNodes) {
  attach();
  for (std::string host : {"n01:2", "+e", "+e:1", "head", "n99", "+n9"}) {
    SCOPED_TRACE(host);
    activate(5, host);
    const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
    EXPECT_EQ(answer.id, 5u);
    EXPECT_EQ(answer.status, Status::ErrBadParam);
  }
  EXPECT_EQ(env.count_events("activate.refused"), 6u);
  activate(6, "");  // neither PMIX_HOST nor PMIX_HOSTFILE
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, ActivateReadsAHostfileIgnoringItsSlots) {
  attach();
  const std::string dir = ::testing::TempDir();
  const std::string names = dir + "/pmixflow_activate_names";
  const std::string exclude = dir + "/pmixflow_activate_exclude";
  {
    std::ofstream(names) << "# nodes to activate\nn02 slots=4\nn03\n";
    std::ofstream(exclude) << "^n04\n";
  }
  activate(5, "", with({}, key::HOSTFILE, names));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2, 3}));
  activate(6, "+all", with({}, key::HOSTFILE, exclude));  // PMIX_HOST and PMIX_HOSTFILE together
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2, 3, 1}));
  EXPECT_EQ(ctl->daemon_state(4), DaemonState::None);
  std::remove(names.c_str());
  std::remove(exclude.c_str());
}

TEST_F(ControllerTest, ActivateWithinANamedAllocation) {
  attach();
  from_scheduler(1, 1, owned(instantiate("n01:8,n02:8", "alloc-1"), kTool));
  daemons_ready({1});
  ctl->handle(Address::daemon(2), DaemonStartFailed{2});
  env.take_sent();
  ASSERT_EQ(ctl->daemon_state(2), DaemonState::Failed);

  activate(5, "n02", with({}, key::ALLOC_ID, std::string("alloc-9")));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotFound);
  activate(6, "n02", with({}, key::ALLOC_ID, std::string("alloc-1")), kMallory);
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNoPermissions);
  activate(7, "n03", with({}, key::ALLOC_ID, std::string("alloc-1")));  // not in that allocation
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));

  // The owner brings the allocation's lost node back into the DVM.
  activate(8, "+all", with(with({}, key::ALLOC_ID, std::string("alloc-1")), key::ALLOC_REQ_ID, std::string("again")));
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(answer.status, Status::Success);
  ASSERT_NE(answer.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*answer.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2, 2}));
  daemons_ready({2});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 2u);
  for (const auto& [to, n] : notes) {
    EXPECT_EQ(n.code, Status::DvmIsReady);
    ASSERT_NE(n.info.get<std::string>(key::ALLOC_ID), nullptr);
    EXPECT_EQ(*n.info.get<std::string>(key::ALLOC_ID), "alloc-1");
    ASSERT_NE(n.info.get<std::string>(key::ALLOC_REQ_ID), nullptr);
    EXPECT_EQ(*n.info.get<std::string>(key::ALLOC_REQ_ID), "again");
  }
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, ADaemonThatFailsDuringAnActivationIsReportedAsADvmModError) {
  attach();
  activate(5, "n03");
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);  // granted
  ctl->handle(Address::daemon(3), DaemonStartFailed{3});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].first, Address::requestor(1));
  EXPECT_EQ(notes[0].second.code, Status::ErrDvmMod);
  EXPECT_EQ(notes[1].second.code, Status::ErrDvmMod);
}

TEST_F(ControllerTest, JobsWaitBehindTheFenceWhileAnActivationGrowsTheDvm) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {1}});
  daemons_ready({1});
  env.take_sent();
  attach();
  activate(5, "n03");
  env.take_sent();
  from_scheduler(6, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 5)}));  // n01 is up, but the DVM is changing
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("job.fenced"), 1u);
  daemons_ready({3});
  const auto launch = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0].first, Address::daemon(1));
  EXPECT_EQ(launch[0].second.session_id, 1u);
}

TEST_F(ControllerTest, AnActivationRelayedByADaemonIsAnsweredAndReportedThroughIt) {
  attach();
  ctl->handle(Address::daemon(2),
              AllocRequest{9, Directive::Activate, with({}, key::HOST, std::string("n04")), Proc{"app", 1}, "app#1"});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(answer.id, 9u);
  EXPECT_EQ(answer.status, Status::Success);
  daemons_ready({4});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].first, Address::daemon(2));
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
}

// ---------------------------------------------------------------- PMIx_Spawn (FLOW.md §7)

TEST_F(ControllerTest, ASpawnWithoutAppsIsABadParam) {
  attach();
  ctl->handle(Address::requestor(1), SpawnRequest{5, {}, {}, kTool, "sp#5"});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::ErrBadParam);
  EXPECT_TRUE(r.nspace.empty());
  EXPECT_EQ(env.count_events("spawn.answer"), 1u);
}

TEST_F(ControllerTest, ASpawnWithoutAnAllocationUsesOnlyTheFreeDvmPool) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {1, 2}});
  daemons_ready({1, 2});
  env.take_sent();
  attach();
  reservation(1, "n02:8", {2}, kTool);  // n02 is withheld for session 1
  ctl->handle(Address::requestor(1), spawn(5, 12, {}));
  const auto refused = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(refused.status, Status::ErrOutOfResource);
  ctl->handle(Address::requestor(1), spawn(6, 6, {}));
  const auto launch = only<LaunchProcs>(env.take_sent(), Address::daemon(1));  // nothing to the scheduler
  EXPECT_EQ(launch.local_procs, 6u);
  EXPECT_EQ(launch.session_id, 0u);
  EXPECT_EQ(launch.nspace.rfind("job-dvm.", 0), 0u);
  ctl->handle(Address::daemon(1), ProcsStarted{launch.nspace, 1, Status::Success});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 6u);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.nspace, launch.nspace);
  EXPECT_FALSE(r.info.has(key::ALLOC_ID));
  // Two free slots are left on n01.
  ctl->handle(Address::requestor(1), spawn(7, 3, {}));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  spawned(spawn(8, 2, {}), {1});
}

TEST_F(ControllerTest, ASpawnIntoANamedSessionNeedsItsOwner) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  ctl->handle(Address::requestor(1), spawn(5, 4, in_session(1), kMallory));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNoPermissions);
  ctl->handle(Address::requestor(1), spawn(6, 4, in_session(9)));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotFound);
  const std::string ns = spawned(spawn(7, 8, in_session(1)), {1});
  EXPECT_EQ(ns, "job-1.1");
}

TEST_F(ControllerTest, ASpawnAllocationGoesToTheSchedulerAndTheJobRunsOnlyOnTheGrant) {
  attach();
  InfoList request = cpus(4);
  request.add(key::ALLOC_REQ_ID, std::string("r1"));
  ctl->handle(Address::requestor(1), spawn(5, 0, spawn_alloc(Directive::New, request)));  // maxprocs 0: fill the grant
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(fwd.directive, Directive::New);
  EXPECT_EQ(fwd.info.get_uint(key::ALLOC_NUM_CPUS), 4u);
  EXPECT_FALSE(fwd.info.has(key::ALLOC_REQ_DIRECTIVE));
  ASSERT_NE(fwd.info.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*fwd.info.get<Proc>(key::REQUESTOR), kTool);
  EXPECT_EQ(fwd.corr, "sp#5");
  EXPECT_EQ(env.count_events("spawn.alloc", {"PMIX_ALLOC_NEW"}), 1u);

  // The scheduler instantiates the session, then answers the allocation.
  from_scheduler(20, 1, owned(instantiate("n02:4", "alloc-1"), kTool));
  EXPECT_EQ(answer_to_scheduler(20).status, Status::Success);
  InfoList granted;
  granted.add(key::ALLOC_ID, std::string("alloc-1")).add(key::SESSION_ID, std::uint32_t{1});
  ctl->handle(Address::scheduler(), AllocResponse{fwd.id, Status::Success, granted, "sp#5"});
  auto sent = env.take_sent();
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());  // its daemon is not up yet
  EXPECT_TRUE(all_of<SpawnResponse>(sent).empty());

  daemons_ready({2});
  sent = env.take_sent();
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
  EXPECT_EQ(launches[0].second.local_procs, 4u);  // the grant, not the whole node
  EXPECT_EQ(launches[0].second.session_id, 1u);
  const std::string ns = launches[0].second.nspace;
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::Success});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.nspace, ns);
  ASSERT_NE(r.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*r.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  EXPECT_EQ(r.info.get_uint(key::SESSION_ID), 1u);

  // The session exists for that job: it is reclaimed when the job ends.
  ctl->handle(Address::daemon(2), ProcsEnded{ns, 2, Status::Success, 0});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
  ASSERT_EQ(job_records(complete).size(), 1u);
  EXPECT_EQ(*job_records(complete)[0].get<std::string>(key::NSPACE), ns);
  EXPECT_EQ(ctl->session_count(), 0u);
}

// One DVM size change, one PMIX_DVM_IS_READY (FLOW.md §5): the spawn's job waiting for the
// session's daemons must not make the change be reported twice.
TEST_F(ControllerTest, ASpawnWaitingForItsSessionsDaemonsGetsOneReadyEvent) {
  attach();
  ctl->handle(Address::requestor(1), spawn(5, 0, spawn_alloc(Directive::New, cpus(4))));
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  from_scheduler(20, 1, owned(instantiate("n02:4", "alloc-1"), kTool));
  env.take_sent();
  InfoList granted;
  granted.add(key::ALLOC_ID, std::string("alloc-1"));
  ctl->handle(Address::scheduler(), AllocResponse{fwd.id, Status::Success, granted, "sp#5"});
  daemons_ready({2});
  const auto notes = all_of<Notification>(env.take_sent());
  EXPECT_EQ(notes.size(), 1u) << "the scheduler hears PMIX_DVM_IS_READY for alloc-1 " << notes.size() << " times";
  EXPECT_EQ(env.count_events("dvm.ready"), 1u);
}

TEST_F(ControllerTest, ARefusedSpawnAllocationLaunchesNothing) {
  attach();
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, cpus(64))));
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  ctl->handle(Address::scheduler(), AllocResponse{fwd.id, Status::ErrOutOfResource, {}, "sp#5"});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::ErrJobAllocFailed);
  EXPECT_TRUE(r.nspace.empty());
  EXPECT_EQ(env.count_events("spawn.alloc_refused", {"PMIX_ERR_OUT_OF_RESOURCE"}), 1u);
  EXPECT_TRUE(env.daemons_started().empty());

  // A grant naming an allocation the RM never instantiated cannot be launched into either.
  ctl->handle(Address::requestor(1), spawn(6, 4, spawn_alloc(Directive::New, cpus(4))));
  const auto fwd2 = only<AllocRequest>(env.take_sent(), Address::scheduler());
  ctl->handle(Address::scheduler(),
              AllocResponse{fwd2.id, Status::Success, with({}, key::ALLOC_ID, std::string("alloc-7")), "sp#6"});
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrJobAllocFailed);
}

TEST_F(ControllerTest, LosingTheSchedulerFailsASpawnsAllocation) {
  attach();
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, cpus(4))));
  env.take_sent();
  ctl->handle(Address::scheduler(), PeerLost{Address::scheduler()});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::ErrJobAllocFailed);
}

TEST_F(ControllerTest, ASpawnAllocationIsHeldUntilASchedulerAttaches) {
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, cpus(4))));
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("request.held"), 1u);
  attach();  // attach() drops what was sent: look again
  ctl->handle(Address::scheduler(), PeerLost{Address::scheduler()});
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrJobAllocFailed);
}

TEST_F(ControllerTest, ASpawnFailingAfterItsGrantReleasesTheAllocationBeforeAnswering) {
  attach();
  from_scheduler(20, 1, owned(instantiate("n01:4", "alloc-1"), kTool));
  daemons_ready({1});
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, cpus(4))));
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  ctl->handle(Address::scheduler(),
              AllocResponse{fwd.id, Status::Success, with({}, key::ALLOC_ID, std::string("alloc-1")), "sp#5"});
  const auto launch = only<LaunchProcs>(env.take_sent(), Address::daemon(1));

  ctl->handle(Address::daemon(1), ProcsStarted{launch.nspace, 1, Status::ErrJobFailedToLaunch});
  auto sent = env.take_sent();
  EXPECT_TRUE(all_of<SpawnResponse>(sent).empty());  // not before the allocation is handed back
  std::vector<AllocRequest> releases;
  for (const auto& [to, req] : all_of<AllocRequest>(sent))
    if (to == Address::scheduler() && req.directive == Directive::Release) releases.push_back(req);
  ASSERT_EQ(releases.size(), 1u);
  ASSERT_NE(releases[0].info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*releases[0].info.get<std::string>(key::ALLOC_ID), "alloc-1");
  ASSERT_NE(releases[0].info.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*releases[0].info.get<Proc>(key::REQUESTOR), kTool);  // released as the allocation's owner
  EXPECT_EQ(env.count_events("spawn.release", {"alloc-1"}), 1u);

  ctl->handle(Address::scheduler(), AllocResponse{releases[0].id, Status::Success, {}, "sp#5"});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::ErrJobFailedToLaunch);
  EXPECT_TRUE(r.nspace.empty());
  EXPECT_FALSE(r.info.has(key::ALLOC_ID));
}

TEST_F(ControllerTest, ASpawnLargerThanItsGrantReleasesAndFails) {
  attach();
  from_scheduler(20, 1, owned(instantiate("n01:4", "alloc-1"), kTool));
  daemons_ready({1});
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(5, 8, spawn_alloc(Directive::New, cpus(4))));
  const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
  ctl->handle(Address::scheduler(),
              AllocResponse{fwd.id, Status::Success, with({}, key::ALLOC_ID, std::string("alloc-1")), "sp#5"});
  const auto release = only<AllocRequest>(env.take_sent(), Address::scheduler());  // no launch, no answer yet
  EXPECT_EQ(release.directive, Directive::Release);
  ctl->handle(Address::scheduler(), AllocResponse{release.id, Status::Success, {}, "sp#5"});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::ErrOutOfResource);
}

TEST_F(ControllerTest, ASpawnWithAnActivationLaunchesOnTheActivatedNodes) {
  attach();
  ctl->handle(Address::requestor(1),
              spawn(5, 0, spawn_alloc(Directive::Activate, with({}, key::HOST, std::string("n03")))));
  EXPECT_TRUE(env.take_sent().empty());  // no scheduler, and no answer before the launch
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{3}));
  daemons_ready({3});
  const auto sent = env.take_sent();
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(3));
  EXPECT_EQ(launches[0].second.local_procs, 8u);
  const auto notes = all_of<Notification>(sent);
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0].first, Address::requestor(1));
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
  ctl->handle(Address::daemon(3), ProcsStarted{launches[0].second.nspace, 3, Status::Success});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.nspace, launches[0].second.nspace);

  ctl->handle(Address::requestor(1),
              spawn(6, 1, spawn_alloc(Directive::Activate, with({}, key::HOST, std::string("head")))));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrJobAllocFailed);
  EXPECT_EQ(env.daemons_started().size(), 1u);
}

TEST_F(ControllerTest, ASpawnAllocationWithoutADirectiveIsABadParam) {
  attach();
  ctl->handle(Address::requestor(1), spawn(5, 4, with({}, key::SPAWN_ALLOC, cpus(4))));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
}

TEST_F(ControllerTest, ASpawnRelayedByADaemonIsAnsweredThroughIt) {
  attach();
  ctl->handle(Address::daemon(2), spawn(31, 4, in_session(9), Proc{"app", 2}));
  const auto r = only<SpawnResponse>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(r.id, 31u);
  EXPECT_EQ(r.status, Status::ErrNotFound);
  EXPECT_EQ(r.corr, "sp#31");
}

// ---------------------------------------------------------------- standalone DVM (NoSchedulerMode::Serve)

TEST_F(ControllerTest, ServeModeGrantsFromTheDvmsOwnPool) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(12), kTool, "t#1"});
  const auto a = only<AllocResponse>(env.take_sent(), Address::requestor(1));  // nothing to a scheduler
  EXPECT_EQ(a.id, 5u);
  EXPECT_EQ(a.status, Status::Success);
  ASSERT_NE(a.info.get<std::string>(key::ALLOC_NODE_LIST), nullptr);
  EXPECT_EQ(*a.info.get<std::string>(key::ALLOC_NODE_LIST), "n01:8,n02:4");
  ASSERT_NE(a.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*a.info.get<std::string>(key::ALLOC_ID), "dvm-alloc-1");
  EXPECT_TRUE(a.info.has(key::SESSION_ID));
  EXPECT_EQ(env.count_events("alloc.standalone", {"PMIX_ALLOC_NEW"}), 1u);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(ctl->session_count(), 1u);

  ctl->handle(Address::requestor(1), AllocRequest{6, Directive::New, cpus(8), kTool, "t#2"});
  EXPECT_EQ(*only<AllocResponse>(env.take_sent(), Address::requestor(1)).info.get<std::string>(key::ALLOC_NODE_LIST),
            "n03:8");
  ctl->handle(Address::requestor(1),
              AllocRequest{7, Directive::New, with({}, key::ALLOC_NUM_NODES, std::uint64_t{1}), kTool, "t#3"});
  EXPECT_EQ(*only<AllocResponse>(env.take_sent(), Address::requestor(1)).info.get<std::string>(key::ALLOC_NODE_LIST),
            "n04:8");
  ctl->handle(Address::requestor(1), AllocRequest{8, Directive::New, cpus(1), kTool, "t#4"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
}

TEST_F(ControllerTest, ServeModeRefusesWhatItCannotServe) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, kTool, "t#1"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  ctl->handle(Address::requestor(1), AllocRequest{6, Directive::New, cpus(33), kTool, "t#2"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::requestor(1), AllocRequest{7, Directive::Extend, cpus(4), kTool, "t#3"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotSupported);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, ServeModeReleaseIsTheOwnersOnly) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  const auto granted = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  const InfoList ref = with({}, key::ALLOC_ID, *granted.info.get<std::string>(key::ALLOC_ID));
  daemons_ready({1});
  env.take_sent();
  ctl->handle(Address::requestor(2), AllocRequest{6, Directive::Release, ref, kMallory, "m#1"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrNoPermissions);
  ctl->handle(Address::requestor(1),
              AllocRequest{7, Directive::Release, with({}, key::ALLOC_ID, std::string("nope")), kTool, "t#2"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotFound);
  ctl->handle(Address::requestor(1), AllocRequest{8, Directive::Release, ref, kTool, "t#3"});
  const auto released =
      only<AllocResponse>(env.take_sent(), Address::requestor(1));  // no COMPLETE: no scheduler made it
  EXPECT_EQ(released.id, 8u);
  EXPECT_EQ(released.status, Status::Success);
  EXPECT_EQ(ctl->session_count(), 0u);
  // Its node is free again.
  ctl->handle(Address::requestor(1), AllocRequest{9, Directive::New, cpus(8), kTool, "t#4"});
  EXPECT_EQ(*only<AllocResponse>(env.take_sent(), Address::requestor(1)).info.get<std::string>(key::ALLOC_NODE_LIST),
            "n01:8");
}

TEST_F(ControllerTest, ServeModeSessionsAreControlledByTheirOwnerAndKeepTheirTimeLimit) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  InfoList req = cpus(8);
  req.add(key::ALLOC_TIME, std::string("5"));
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, req, kTool, "t#1"});
  const auto granted = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  const auto session = static_cast<std::uint32_t>(*granted.info.get_uint(key::SESSION_ID));
  from_requestor(2, 6, session, op(key::SESSION_PAUSE), kMallory);
  EXPECT_EQ(answer_to_requestor(2, 6).status, Status::ErrNoPermissions);
  from_requestor(1, 7, session, op(key::SESSION_PAUSE), kTool);
  EXPECT_EQ(answer_to_requestor(1, 7).status, Status::Success);
  env.advance(4.9);
  EXPECT_EQ(ctl->session_count(), 1u);
  env.advance(0.1);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(env.count_events("session.timeout"), 1u);
  EXPECT_TRUE(all_of<SessionCtrlRequest>(env.take_sent()).empty());  // nobody to send a COMPLETE to
}

// A request carrying PMIX_SESSION_APP is answered as the scheduler path answers it: once the
// job is launched, with its PMIX_NSPACE (FLOW.md §4, INSTANTIATE with apps).
TEST_F(ControllerTest, ServeModeWithAppsAnswersOnceLaunchedWithTheNspace) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  InfoList req = cpus(8);
  req.add(key::SESSION_APP, std::vector<App>{sleep_app(8, 5)});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, req, kTool, "t#1"});
  auto sent = env.take_sent();
  daemons_ready({1});
  for (auto& m : env.take_sent()) sent.push_back(std::move(m));
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(all_of<AllocResponse>(sent).empty()) << "answered before its job was even launched";
  ctl->handle(Address::daemon(1), ProcsStarted{launches[0].second.nspace, 1, Status::Success});
  for (auto& m : env.take_sent()) sent.push_back(std::move(m));
  const auto answers = all_of<AllocResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  ASSERT_NE(answers[0].second.info.get<std::string>(key::NSPACE), nullptr) << "the answer does not name the job";
  EXPECT_EQ(*answers[0].second.info.get<std::string>(key::NSPACE), launches[0].second.nspace);
}

TEST_F(ControllerTest, ServeModeServesASpawnAllocationItself) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), spawn(5, 0, spawn_alloc(Directive::New, cpus(4))));
  EXPECT_TRUE(env.take_sent().empty());  // waits for its daemon
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1}));
  daemons_ready({1});
  const auto launch = only<LaunchProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(launch.local_procs, 4u);
  ctl->handle(Address::daemon(1), ProcsStarted{launch.nspace, 1, Status::Success});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.nspace, launch.nspace);
  ASSERT_NE(r.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*r.info.get<std::string>(key::ALLOC_ID), "dvm-alloc-1");
  ctl->handle(Address::daemon(1), ProcsEnded{launch.nspace, 1, Status::Success, 0});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 0u);  // reclaimed with its job
}

TEST_F(ControllerTest, ServeModeFailedSpawnReleasesItsOwnAllocation) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, cpus(4))));
  daemons_ready({1});
  const auto launch = only<LaunchProcs>(env.take_sent(), Address::daemon(1));
  ctl->handle(Address::daemon(1), ProcsStarted{launch.nspace, 1, Status::ErrJobFailedToLaunch});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ServeModeForwardsOnceASchedulerIsAttached) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  EXPECT_EQ(only<AllocRequest>(env.take_sent(), Address::scheduler()).directive, Directive::New);
  EXPECT_EQ(env.count_events("alloc.standalone"), 0u);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ServeModeSkipsANodeWhoseDaemonFailed) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {1}});
  ctl->handle(Address::daemon(1), DaemonStartFailed{1});
  env.take_sent();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  EXPECT_EQ(*only<AllocResponse>(env.take_sent(), Address::requestor(1)).info.get<std::string>(key::ALLOC_NODE_LIST),
            "n02:8");
}

// ---------------------------------------------------------------- a node lost

TEST_F(ControllerTest, ALostNodeAbortsItsJobsAndTellsTheScheduler) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  EXPECT_EQ(ctl->daemon_state(2), DaemonState::Failed);
  auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::scheduler());
  EXPECT_EQ(notes[0].second.code, Status::EventNodeDown);
  ASSERT_NE(notes[0].second.info.get<std::string>("pmix.hname"), nullptr);
  EXPECT_EQ(*notes[0].second.info.get<std::string>("pmix.hname"), "n02");
  const auto kills = all_of<KillProcs>(sent);
  ASSERT_EQ(kills.size(), 1u);  // the dead node's ranks are gone already
  EXPECT_EQ(kills[0].first, Address::daemon(1));
  EXPECT_EQ(kills[0].second.nspace, ns);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobAbortedBySysEvent);
  EXPECT_EQ(env.count_events("node.down", {"\"node\":\"n02\""}), 1u);

  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobAbortedBySysEvent, 0});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  ASSERT_EQ(job_records(complete).size(), 1u);
  EXPECT_EQ(*job_records(complete)[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobAbortedBySysEvent);

  // Lost once: hearing of it again changes nothing.
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  ctl->handle(Address::daemon(2), Unreachable{Address::daemon(2), MessageKind::KillProcs, 0, ""});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("node.down"), 1u);
}

TEST_F(ControllerTest, AnUndeliverableMessageToADaemonMeansItsNodeIsDown) {
  attach();
  const std::string ns = running_session(1, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), Unreachable{Address::daemon(1), MessageKind::SignalProcs, 0, ""});
  const auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].second.code, Status::EventNodeDown);
  // Its only node is gone: the job ends there and then, and the session with it.
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_EQ(*job_records(completes[0].second)[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobAbortedBySysEvent);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, WithoutASchedulerALostNodeStillAbortsItsJobs) {
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(0), PeerLost{Address::daemon(Cluster::kHead)});  // the controller's own node: ignored
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->daemon_state(Cluster::kHead), DaemonState::Up);
  ctl->handle(Address::daemon(1), PeerLost{Address::daemon(1)});
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(2));  // no scheduler to tell
  EXPECT_EQ(kill.reason, Status::ErrJobAbortedBySysEvent);
}

TEST_F(ControllerTest, ANodeLostWhileItsDaemonStartsFailsTheDvmChange) {
  attach();
  from_scheduler(1, 1, instantiate("n01:8", "alloc-1"));
  env.take_sent();
  ctl->handle(Address::daemon(1), PeerLost{Address::daemon(1)});
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Failed);
  const auto note = only<Notification>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(note.code, Status::ErrDvmMod);
  EXPECT_EQ(env.count_events("daemon.failed"), 1u);
}

// The ranks on the surviving nodes are killed and end: their slots are free again.
TEST_F(ControllerTest, TheSurvivingNodesOfAnAbortedJobAreFreed) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {1, 2}});
  daemons_ready({1, 2});
  env.take_sent();
  attach();
  const std::string ns = spawned(spawn(5, 16, {}), {1, 2});
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].first, Address::daemon(1));
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobAbortedBySysEvent, 0});
  env.take_sent();
  const auto nodes = env.events_of("node");
  ASSERT_FALSE(nodes.empty());
  EXPECT_NE(nodes.back().fields.find("\"node\":\"n01\""), std::string::npos);
  EXPECT_NE(nodes.back().fields.find("\"use\":\"free\""), std::string::npos) << nodes.back().fields;
  ctl->handle(Address::requestor(1), spawn(6, 8, {}));
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<LaunchProcs>(sent).size(), 1u) << "n01's 8 slots are still counted busy";
}

// ---------------------------------------------------------------- a failed launch

TEST_F(ControllerTest, ALaunchFailingOnOneNodeKillsTheOtherRanksAndFailsTheSession) {
  attach();
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {sleep_app(8, 5)}));
  daemons_ready({1, 2});
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  const std::string ns = launches[0].second.nspace;
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::Success});
  ctl->handle(Address::daemon(1), ProcsStarted{ns, 1, Status::ErrJobFailedToLaunch});
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(kill.nspace, ns);
  EXPECT_EQ(kill.reason, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(env.count_events("job.launch_failed", {"\"node\":\"n01\""}), 1u);
  ctl->handle(Address::daemon(2), ProcsEnded{ns, 2, Status::ErrJobFailedToLaunch, 0});
  const auto sent = env.take_sent();
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_EQ(*job_records(completes[0].second)[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobFailedToLaunch);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 11u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(env.count_events("job.start"), 0u);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ALaunchFailingEverywhereKillsNothingAndFailsOnce) {
  attach();
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {sleep_app(8, 5)}));
  daemons_ready({1, 2});
  const std::string ns = all_of<LaunchProcs>(env.take_sent()).at(0).second.nspace;
  ctl->handle(Address::daemon(1), ProcsStarted{ns, 1, Status::ErrJobFailedToLaunch});
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::ErrJobFailedToLaunch});
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<KillProcs>(sent).size(), 1u);  // the first failure kills the rest, once
  EXPECT_EQ(all_of<SessionCtrlRequest>(sent).size(), 1u);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
}

// Ranks that did start and were killed because another node failed to launch have ended:
// their slots are free again.
TEST_F(ControllerTest, RanksKilledAfterAFailedLaunchFreeTheirSlots) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {1, 2}});
  daemons_ready({1, 2});
  env.take_sent();
  attach();
  ctl->handle(Address::requestor(1), spawn(5, 16, {}));
  const std::string ns = all_of<LaunchProcs>(env.take_sent()).at(0).second.nspace;
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::Success});
  ctl->handle(Address::daemon(1), ProcsStarted{ns, 1, Status::ErrJobFailedToLaunch});
  EXPECT_EQ(only<KillProcs>(env.take_sent(), Address::daemon(2)).reason, Status::ErrJobFailedToLaunch);
  ctl->handle(Address::daemon(2), ProcsEnded{ns, 2, Status::ErrJobFailedToLaunch, 0});
  const auto failed = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(failed.status, Status::ErrJobFailedToLaunch);
  ctl->handle(Address::requestor(1), spawn(6, 16, {}));
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<LaunchProcs>(sent).size(), 2u) << "n02's killed ranks are still counted busy";
}

}  // namespace
}  // namespace pmixflow
