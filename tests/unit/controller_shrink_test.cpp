// A PMIX_ALLOC_RELEASE without PMIX_ALLOC_ID where no scheduler is attached shrinks the DVM, as
// PRRTE's ras_base_complete_release_request() does (docs/prrte-conformance.md R51, R52, R77):
// what the jobs held behind the launch fence, launching or running on the nodes that leave do.
#include <algorithm>

#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

TEST_F(ControllerTest, ServeModeAReleaseByNodeListHoldsNewJobsUntilTheShrinkCompletes) {
  serve_dvm({1, 2});
  const std::string job = spawned(spawn(5, 12, {}), {1, 2});  // 8 ranks on n01, 4 on n02
  // Rows R51, R52: a RELEASE naming n01 (and the controller's own node, never sent away).
  release_nodes(6, "head,n01");
  auto sent = env.take_sent();
  const auto answers = all_of<AllocResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success);  // answered on acceptance
  const auto shutdowns = all_of<DaemonShutdown>(sent);
  ASSERT_EQ(shutdowns.size(), 1u);
  EXPECT_EQ(shutdowns[0].first, Address::daemon(1));
  // A job asked for while the shrink is under way waits behind the launch fence.
  ctl->handle(Address::requestor(1), spawn(7, 2, {}));
  EXPECT_TRUE(all_of<LaunchProcs>(env.take_sent()).empty());
  env.advance(0);
  sent = env.take_sent();
  // Completed: the caller hears PMIX_DVM_IS_READY, and the held job launches, on n02 alone.
  expect_ready_event_to(sent, Address::requestor(1));
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
  EXPECT_TRUE(all_of<DaemonShutdown>(sent).empty());  // told once
  // n01's ranks were terminated in order: the first job ends cleanly with n02's, and a late
  // report from n01 counts for nothing.
  ctl->handle(Address::daemon(1), ProcsEnded{job, 1, Status::ErrJobAbortedBySig, 137});
  EXPECT_EQ(env.count_events("job.end"), 0u);
  ctl->handle(Address::daemon(2), ProcsEnded{job, 2, Status::Success, 0});
  ASSERT_EQ(env.count_events("job.end"), 1u);
  EXPECT_NE(env.events().back().fields.find("\"status\":\"PMIX_SUCCESS\""), std::string::npos);
}

TEST_F(ControllerTest, ServeModeAJobHeldByAGrowthIsHeldAgainByTheShrinkAParkedReleaseStarts) {
  serve_dvm({1, 2});
  reserve_nodes(5, "n02");
  // The DVM grows over n03; meanwhile a release naming n01 is parked (row R8) and a job in the
  // reservation on n02 is held behind the launch fence (row R10).
  reserve_nodes(6, "n03");
  release_nodes(7, "n01");
  ctl->handle(Address::requestor(1), spawn(8, 2, with({}, key::ALLOC_ID, std::string("tool.1"))));
  env.take_sent();
  ASSERT_EQ(env.count_events("request.deferred"), 1u);
  ASSERT_EQ(env.count_events("job.fenced"), 1u);
  // The growth ends: the parked release is replayed first and starts a shrink, which holds the
  // job once more, as PRRTE's vm_ready() re-checks the fence after grow_drain()'s replays.
  daemons_ready({3});
  auto sent = env.take_sent();
  EXPECT_EQ(all_of<DaemonShutdown>(sent).size(), 1u);
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());
  EXPECT_EQ(env.count_events("job.fenced"), 2u);
  env.advance(0);
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
}

TEST_F(ControllerTest, ServeModeAHeldJobMappedOntoANodeThatLeftIsMappedAgain) {
  serve_dvm({1, 2});
  // While the DVM grows over n03, a job of the pool is held, mapped onto n01, and a release of
  // n01 is parked.
  reserve_nodes(5, "n03");
  ctl->handle(Address::requestor(1), spawn(6, 2, {}));
  release_nodes(7, "n01");
  env.take_sent();
  ASSERT_EQ(env.count_events("job.fenced"), 1u);
  // The growth settles: the replayed release sends n01 away, and the job is mapped again over
  // what the pool has then (as PRRTE maps a held job only when the fence lifts), then held
  // once more by that shrink, which launches it as it completes.
  daemons_ready({3});
  EXPECT_EQ(env.count_events("job.fenced"), 2u);
  env.advance(0);
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
  EXPECT_EQ(env.count_events("job.launch_failed"), 0u);
}

TEST_F(ControllerTest, ServeModeAHeldJobAskingForEverySlotIsGivenThoseLeftWhenMappedAgain) {
  serve_dvm({1, 2});
  // Held while the DVM grows over n03, a job asking for no count is given every free slot of
  // the pool (n01 and n02: 16); n01's release is parked.
  reserve_nodes(5, "n03");
  ctl->handle(Address::requestor(1), spawn(6, 0, {}));
  release_nodes(7, "n01");
  env.take_sent();
  daemons_ready({3});
  env.advance(0);
  // Mapped as PRRTE maps it, once the fence is down: every slot there is then, n02's 8.
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
  EXPECT_EQ(launches[0].second.local_procs, 8u);
  EXPECT_EQ(env.count_events("job.end"), 0u);
}

TEST_F(ControllerTest, ServeModeAJobStillLaunchingOnAReleasedNodeRunsOnItsOtherNodes) {
  serve_dvm({1, 2});
  ctl->handle(Address::requestor(1), spawn(5, 12, {}));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  const std::string job = launches[0].second.nspace;
  ctl->handle(Address::daemon(2), ProcsStarted{job, 2, Status::Success});
  // n01 leaves before its ranks reported starting: they never will, and the job runs on n02.
  release_nodes(6, "n01");
  env.advance(0);
  EXPECT_EQ(env.count_events("job.start"), 1u);
  const auto answers = all_of<SpawnResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  ctl->handle(Address::daemon(2), ProcsEnded{job, 2, Status::Success, 0});
  EXPECT_EQ(env.count_events("job.end"), 1u);
}

TEST_F(ControllerTest, ServeModeAJobWhoseNodesAllLeaveBeforeItStartsEndsWithoutHavingRun) {
  serve_dvm({1, 2});
  ctl->handle(Address::requestor(1), spawn(5, 8, {}));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(launches[0].first, Address::daemon(1));
  // n01 leaves before its ranks report starting: the job never runs, and ends cleanly; its
  // spawn is answered then, with the job's status (PRRTE's check_complete()).
  release_nodes(6, "n01");
  env.advance(0);
  EXPECT_EQ(env.count_events("job.start"), 0u);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_SUCCESS\""}), 1u);
  const auto answers = all_of<SpawnResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  EXPECT_EQ(answers[0].second.nspace, launches[0].second.nspace);
}

TEST_F(ControllerTest, ServeModeAJobThatRanOnANodeBeforeItsOtherLeftHasStarted) {
  serve_dvm({1, 2});
  const auto nspace = [&] {
    ctl->handle(Address::requestor(1), spawn(5, 12, {}));  // 8 ranks on n01, 4 on n02
    return all_of<LaunchProcs>(env.take_sent()).at(0).second.nspace;
  }();
  // n01's ranks start and end; n02 leaves before its own report: the job did run.
  ctl->handle(Address::daemon(1), ProcsStarted{nspace, 1, Status::Success});
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  release_nodes(6, "n02");
  env.advance(0);
  EXPECT_EQ(env.count_events("job.start"), 1u);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_SUCCESS\""}), 1u);
  const auto answers = all_of<SpawnResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
}

TEST_F(ControllerTest, ServeModeASpawnWithItsOwnAllocationWhoseNodesLeaveBeforeItRunsHandsItBack) {
  serve_dvm({1});
  ctl->handle(Address::requestor(1), spawn(5, 4, spawn_alloc(Directive::New, node_list("n01"))));
  ASSERT_EQ(all_of<LaunchProcs>(env.take_sent()).size(), 1u);
  ASSERT_EQ(ctl->session_count(), 1u);
  release_nodes(6, "n01", 2);
  env.advance(0);
  // Nothing ran: the allocation is handed back (no session is left holding nodes for no job),
  // and the spawn answers as any launch that did not run (FLOW.md 7).
  EXPECT_EQ(env.count_events("spawn.release"), 1u);
  EXPECT_EQ(ctl->session_count(), 0u);
  const auto answers = all_of<SpawnResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
}

TEST_F(ControllerTest, ServeModeAReleasedNodeIsSentNothingMoreAndNeverFails) {
  serve_dvm({1, 2});
  reserve_nodes(5, "n01,n02");
  env.advance(0);
  env.take_sent();
  const InfoList named = with({}, key::ALLOC_ID, std::string("tool.1"));
  const std::string job = spawned(spawn(6, 16, named), {1, 2});
  release_nodes(7, "n01");
  env.advance(0);
  env.take_sent();
  // The reservation's release kills the job where it still runs, on n02 alone.
  ctl->handle(Address::requestor(1), AllocRequest{8, Directive::Release, named, kTool, "t#3"});
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].first, Address::daemon(2));
  // A message that could not reach n01's departed daemon is no node failure.
  ctl->handle(Address::controller(), Unreachable{Address::daemon(1), MessageKind::KillProcs, 0, "t#3"});
  EXPECT_EQ(env.count_events("node.down"), 0u);
  ctl->handle(Address::daemon(2), ProcsEnded{job, 2, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(env.count_events("job.end"), 1u);
}

TEST_F(ControllerTest, ServeModeAHeldJobMappedOntoANodeAReservationNowWithholdsIsMappedAgain) {
  serve_dvm({1, 2});
  // While the DVM grows over n03, a job of the pool is held, mapped onto n01; then a
  // reservation takes n01 out of the pool.
  reserve_nodes(5, "n03");
  ctl->handle(Address::requestor(1), spawn(6, 2, {}));
  reserve_nodes(7, "n01");
  env.take_sent();
  ASSERT_EQ(env.count_events("job.fenced"), 1u);
  daemons_ready({3});
  // Mapped again over what the pool has once the fence lifts: n02 (n01 and n03 are withheld).
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
}

TEST_F(ControllerTest, ServeModeAnActivationsHeldJobStaysOnItsNodesWhenOthersAreMappedAgain) {
  serve_dvm({1, 2});
  // While the DVM grows over n03 and, for an activation, n04, a job of the pool is held on
  // n01, the activation's job on n04, and a release of n01 is parked.
  reserve_nodes(5, "n03");
  ctl->handle(Address::requestor(1), spawn(6, 2, {}));
  ctl->handle(Address::requestor(1),
              spawn(7, 4, spawn_alloc(Directive::Activate, with({}, key::HOST, std::string("n04")))));
  release_nodes(8, "n01");
  env.take_sent();
  daemons_ready({3, 4});
  env.advance(0);
  // The pool's job moves to n02; the activation's stays on the node it activated.
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  std::vector<NodeId> to;
  for (const auto& [a, l] : launches) to.push_back(a.index);
  std::sort(to.begin(), to.end());
  EXPECT_EQ(to, (std::vector<NodeId>{2, 4}));
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
