// PMIx_Spawn (FLOW.md §7): a spawn's allocation goes to the scheduler and the job runs only on
// the grant, unless the DVM is standalone and serves it itself (a reservation of the nodes named).
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

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
  scheduled_dvm({1, 2});
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
  EXPECT_TRUE(r.info.empty()) << "PMIx_Spawn's callback carries the status and the namespace alone";

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

// ---------------------------------------------------------------- serve: PRRTE's ras/hosts (R32-R40)

TEST_F(ControllerTest, ServeModeReservesTheNodesANewNames) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1),
              AllocRequest{5, Directive::New, with(node_list("n01,n02"), key::ALLOC_REQ_ID, std::string("mine")), kTool,
                           "t#1"});
  const auto a = only<AllocResponse>(env.take_sent(), Address::requestor(1));  // nothing to a scheduler
  EXPECT_EQ(a.id, 5u);
  EXPECT_EQ(a.status, Status::Success);
  // As ras_base_set_alloc_response(): the reservation's id, minted <nspace>.<session id>, and
  // the caller's request id; nothing else.
  EXPECT_EQ(a.info.items.size(), 2u);
  ASSERT_NE(a.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*a.info.get<std::string>(key::ALLOC_ID), "tool.1");
  ASSERT_NE(a.info.get<std::string>(key::ALLOC_REQ_ID), nullptr);
  EXPECT_EQ(*a.info.get<std::string>(key::ALLOC_REQ_ID), "mine");
  EXPECT_EQ(env.count_events("alloc.standalone", {"PMIX_ALLOC_NEW"}), 1u);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(ctl->session_count(), 1u);
  // A given PMIX_ALLOC_ID is kept; the next session id is fresh.
  ctl->handle(Address::requestor(1),
              AllocRequest{6, Directive::New, with(node_list("n03"), key::ALLOC_ID, std::string("own")), kTool, "t#2"});
  const auto b = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(b.info.items.size(), 1u);
  EXPECT_EQ(*b.info.get<std::string>(key::ALLOC_ID), "own");
  EXPECT_EQ(env.count_events("session.instantiate", {"\"session\":2", "\"alloc\":\"own\""}), 1u);
  // A given id a live reservation holds is refused, where PRRTE would make a second "own" (rule 4).
  ctl->handle(
      Address::requestor(2),
      AllocRequest{7, Directive::New, with(node_list("n04"), key::ALLOC_ID, std::string("own")), kMallory, "m#1"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrExists);
  EXPECT_EQ(ctl->session_count(), 2u);
}

TEST_F(ControllerTest, ServeModeCountsReserveNothingAndAnAppIsNotLaunched) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  InfoList req = cpus(8);
  req.add(key::SESSION_APP, std::vector<App>{sleep_app(8, 5)});
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, req, kTool, "t#1"});
  const auto sent = env.take_sent();
  EXPECT_EQ(only<AllocResponse>(sent, Address::requestor(1)).status, Status::Success);  // at once
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());
  EXPECT_TRUE(env.daemons_started().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
  EXPECT_EQ(env.count_events("session.instantiate", {"\"node_list\":\"\"", "\"with_apps\":false"}), 1u);
}

TEST_F(ControllerTest, ServeModeRefusesAListThatDoesNotParseBeforeMakingAnything) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  reserve_nodes(5, "n[");
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  reserve_nodes(6, "n99");
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  ctl->handle(Address::requestor(1),
              AllocRequest{7, Directive::New, with({}, key::ALLOC_NODE_LIST, std::uint64_t{1}), kTool, "t#3"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  // An EXTEND naming no reservation (PRRTE's ras_base_prepare_grow(): nothing names the target).
  ctl->handle(Address::requestor(1), AllocRequest{8, Directive::Extend, cpus(4), kTool, "t#4"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, ServeModeExtendsTheCallersReservationByIdOrRequestId) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(
      Address::requestor(1),
      AllocRequest{5, Directive::New, with(node_list("n01"), key::ALLOC_REQ_ID, std::string("mine")), kTool, "t#1"});
  const auto granted = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  ASSERT_EQ(granted.status, Status::Success);
  const std::string alloc = *granted.info.get<std::string>(key::ALLOC_ID);
  daemons_ready({1});
  env.take_sent();
  // Unknown, and someone else's.
  ctl->handle(Address::requestor(1),
              AllocRequest{6, Directive::Extend, with({}, key::ALLOC_ID, std::string("nope")), kTool, "t#2"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotFound);
  ctl->handle(Address::requestor(2),
              AllocRequest{7, Directive::Extend, with({}, key::ALLOC_ID, alloc), kMallory, "m#1"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrNoPermissions);
  // By its request id, with counts only: granted, nothing added.
  ctl->handle(Address::requestor(1),
              AllocRequest{8, Directive::Extend, with(cpus(4), key::ALLOC_REQ_ID, std::string("mine")), kTool, "t#3"});
  const auto same = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(same.status, Status::Success);
  EXPECT_EQ(*same.info.get<std::string>(key::ALLOC_ID), alloc);
  EXPECT_EQ(*same.info.get<std::string>(key::ALLOC_REQ_ID), "mine");
  EXPECT_TRUE(env.daemons_started() == std::vector<NodeId>{1});
  // By its id, with a node list: n03 joins it and the DVM grows over it.
  ctl->handle(
      Address::requestor(1),
      AllocRequest{9, Directive::Extend, with(with({}, key::ALLOC_ID, alloc), key::ALLOC_NODE_LIST, std::string("n03")),
                   kTool, "t#4"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 3}));
  EXPECT_EQ(ctl->session_count(), 1u);
  // A list that does not parse is refused.
  ctl->handle(
      Address::requestor(1),
      AllocRequest{10, Directive::Extend, with(with({}, key::ALLOC_ID, alloc), key::ALLOC_NODE_LIST, std::string("n[")),
                   kTool, "t#5"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
}

TEST_F(ControllerTest, ServeModeReleaseIsTheOwnersOnly) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  reserve_nodes(5, "n01");
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
  const auto sent = env.take_sent();
  const auto answers = all_of<AllocResponse>(sent);  // no COMPLETE: no scheduler made it
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::requestor(1));
  EXPECT_EQ(answers[0].second.id, 8u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  EXPECT_EQ(ctl->session_count(), 0u);
  // Its node is returned: its daemon is told to leave, although the inheritance is the default
  // (PRRTE's prte_ras_base_teardown_reservation()).
  const auto shutdowns = all_of<DaemonShutdown>(sent);
  ASSERT_EQ(shutdowns.size(), 1u);
  EXPECT_EQ(shutdowns[0].first, Address::daemon(1));
  EXPECT_EQ(env.count_events("session.reclaimed", {"\"nodes_to\":\"scheduler\""}), 1u);
}

TEST_F(ControllerTest, ServeModeReservationsAreControlledByTheirOwnerAndHaveNoTimeLimit) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  // PRRTE's create_reservation() reads no PMIX_ALLOC_TIME.
  ctl->handle(Address::requestor(1),
              AllocRequest{5, Directive::New, with(node_list("n01"), key::ALLOC_TIME, std::string("5")), kTool, "t#1"});
  ASSERT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  from_requestor(2, 6, 1, op(key::SESSION_PAUSE), kMallory);
  EXPECT_EQ(answer_to_requestor(2, 6).status, Status::ErrNoPermissions);
  from_requestor(1, 7, 1, op(key::SESSION_PAUSE), kTool);
  EXPECT_EQ(answer_to_requestor(1, 7).status, Status::Success);
  env.advance(10);
  EXPECT_EQ(ctl->session_count(), 1u);
  EXPECT_EQ(env.count_events("session.timeout"), 0u);
}

TEST_F(ControllerTest, ServeModeServesASpawnAllocationItself) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), spawn(5, 0, spawn_alloc(Directive::New, node_list("n01"))));
  EXPECT_TRUE(env.take_sent().empty());  // waits for its daemon
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1}));
  daemons_ready({1});
  const auto sent = env.take_sent();
  // The reservation's requestor, the spawning tool, hears that the DVM has grown over it.
  expect_ready_event_to(sent, Address::requestor(1));
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(launches[0].first, Address::daemon(1));
  const LaunchProcs& launch = launches[0].second;
  EXPECT_EQ(launch.local_procs, 8u);  // all the reservation's slots
  ctl->handle(Address::daemon(1), ProcsStarted{launch.nspace, 1, Status::Success});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.nspace, launch.nspace);
  EXPECT_TRUE(r.info.empty()) << "PMIx_Spawn's callback carries the status and the namespace alone";
  ctl->handle(Address::daemon(1), ProcsEnded{launch.nspace, 1, Status::Success, 0});
  env.take_sent();
  EXPECT_EQ(ctl->session_count(), 0u);  // reclaimed with its job
}

TEST_F(ControllerTest, ServeModeAReleasedReservationTakesNoMoreSpawns) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {1}});
  reserve_nodes(5, "n01");
  daemons_ready({1});
  env.take_sent();
  const InfoList named = with({}, key::ALLOC_ID, std::string("tool.1"));
  spawned(spawn(6, 8, named), {1});
  ctl->handle(Address::requestor(1), AllocRequest{7, Directive::Release, named, kTool, "t#2"});
  EXPECT_EQ(all_of<KillProcs>(env.take_sent()).size(), 1u);  // its job is being killed
  // Gone at once (row R50): a spawn naming it while its job still ends is not found.
  ctl->handle(Address::requestor(1), spawn(8, 2, named));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, TwoPoolSpawnsInARowNeverShareASlot) {
  serve_dvm({1, 2});
  // The first job's ranks have not reported starting when the second is mapped: their slots
  // are taken all the same (PRRTE counts a slot in use as it maps onto it).
  ctl->handle(Address::requestor(1), spawn(5, 8, {}));
  ctl->handle(Address::requestor(1), spawn(6, 8, {}));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].first, Address::daemon(1));
  EXPECT_EQ(launches[1].first, Address::daemon(2));
  // A third finds no slot left, started or not.
  ctl->handle(Address::daemon(1), ProcsStarted{launches[0].second.nspace, 1, Status::Success});
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).id, 5u);
  ctl->handle(Address::requestor(1), spawn(7, 1, {}));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
}

TEST_F(ControllerTest, ServeModeFailedSpawnReleasesItsOwnAllocation) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, node_list("n01"))));
  daemons_ready({1});
  const auto launches = all_of<LaunchProcs>(env.take_sent());  // beside the requestor's ready event
  ASSERT_EQ(launches.size(), 1u);
  const LaunchProcs& launch = launches[0].second;
  ctl->handle(Address::daemon(1), ProcsStarted{launch.nspace, 1, Status::ErrJobFailedToLaunch});
  const auto sent = env.take_sent();
  const auto answers = all_of<SpawnResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::requestor(1));
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(all_of<DaemonShutdown>(sent).size(), 1u);  // released as any reservation: its daemon leaves
}

TEST_F(ControllerTest, ServeModeForwardsOnceASchedulerIsAttached) {
  make(ControllerConfig{true, NoSchedulerMode::Serve, {}});
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  EXPECT_EQ(only<AllocRequest>(env.take_sent(), Address::scheduler()).directive, Directive::New);
  EXPECT_EQ(env.count_events("alloc.standalone"), 0u);
  EXPECT_EQ(ctl->session_count(), 0u);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
