// How the DVM counts its slots in use (docs/prrte-conformance.md J24, J25, J26): taken as a job
// is mapped, given back when the whole job is done with, on every node of its map at once; and
// what a job finds left on the nodes it is granted.
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

class SlotsTest : public ControllerTest {
 protected:
  // Session 1's job of `np` processes runs on n01 and n02, and n02's daemon is lost: the job is
  // aborted, but has not heard from n01 yet, so its slots on n02 are still taken (J25).
  void lose_n02_under_a_job(std::string nodes, std::uint32_t np) {
    attach();
    job_ = running_session(1, std::move(nodes), {1, 2}, np);
    ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
    env.take_sent();
  }
  // A spawn of `np` processes (0: whatever its allocation gets) with its own allocation
  // (PMIX_SPAWN_ALLOC), which the scheduler grants as all of n02, session 2.
  void spawn_granted_all_of_n02(std::uint32_t np = 0) {
    ctl->handle(Address::requestor(1), spawn(5, np, spawn_alloc(Directive::New, cpus(8))));
    const auto fwd = only<AllocRequest>(env.take_sent(), Address::scheduler());
    from_scheduler(20, 2, owned(instantiate("n02:8", "alloc-2"), kTool));
    env.take_sent();
    ctl->handle(Address::scheduler(),
                AllocResponse{fwd.id, Status::Success, with({}, key::ALLOC_ID, std::string("alloc-2")), "sp#5"});
  }
  // The lost node's job ends while n02's new daemon starts; the held job, mapped again as the
  // fence lifts, gets all 8 of n02's slots.
  void expect_every_slot_of_n02_once_the_lost_job_ends() {
    ctl->handle(Address::daemon(1), ProcsEnded{job_, 1, Status::ErrJobAbortedBySysEvent, 0});
    env.take_sent();
    daemons_ready({2});
    const auto launches = all_of<LaunchProcs>(env.take_sent());
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches[0].second.local_procs, 8u);
  }

 private:
  std::string job_;
};

TEST_F(ControllerTest, APoolJobsSlotsComeBackOnlyWhenTheWholeJobHasEnded) {
  serve_dvm({1, 2});
  const std::string job = spawned(spawn(5, 12, {}), {1, 2});  // 8 ranks on n01, 4 on n02
  // n01's ranks are done, n02's still run: PRRTE recovers the job's slots at its cleanup
  // (check_complete_resume()), so n01 is not free yet.
  ctl->handle(Address::daemon(1), ProcsEnded{job, 1, Status::Success, 0});
  ctl->handle(Address::requestor(1), spawn(6, 8, {}));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::daemon(2), ProcsEnded{job, 2, Status::Success, 0});
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(7, 16, {}));
  EXPECT_EQ(all_of<LaunchProcs>(env.take_sent()).size(), 2u) << "every slot of the ended job is free again";
}

TEST_F(ControllerTest, AJobEndedBeforeItLaunchedGivesBackWhatItWasMappedOnto) {
  serve_dvm({1});
  // Held behind the fence while the DVM grows over n02, mapped onto n01, then cancelled by its
  // own launch limit before the fence lifts.
  reserve_nodes(5, "n02");
  ctl->handle(Address::requestor(1), spawn(6, 8, with({}, key::SPAWN_TIMEOUT, std::int32_t{1})));
  env.advance(1);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_FAILED_TO_LAUNCH\""}), 1u);
  daemons_ready({2});
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(7, 8, {}));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(1));
}

TEST_F(ControllerTest, AnActivationsJobFindsOnlyTheSlotsJobsMappedThereLeft) {
  serve_dvm({1});
  // A job of the pool is mapped onto 6 of n01's 8 slots; none of its ranks has started yet.
  ctl->handle(Address::requestor(1), spawn(5, 6, {}));
  ASSERT_EQ(all_of<LaunchProcs>(env.take_sent()).size(), 1u);
  const InfoList on_n01 = spawn_alloc(Directive::Activate, with({}, key::HOST, std::string("n01")));
  ctl->handle(Address::requestor(1), spawn(6, 4, on_n01));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::requestor(1), spawn(7, 0, on_n01));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].second.local_procs, 2u) << "every slot the first job left, and no more";
}

TEST_F(ControllerTest, ADeadNodesSlotsStayTakenUntilItsJobHasEnded) {
  scheduled_dvm({1, 2});
  const std::string ns = spawned(spawn(5, 16, {}), {1, 2});
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  env.take_sent();
  // n02's daemon is back before the aborted job has heard from n01: its slots are still the
  // job's, as PRRTE's slots_inuse until the job is cleaned up.
  daemons_ready({2});
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(6, 8, {}));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobAbortedBySysEvent, 0});
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(7, 16, {}));
  EXPECT_EQ(all_of<LaunchProcs>(env.take_sent()).size(), 2u) << "both nodes are free once the job has ended";
}

TEST_F(SlotsTest, AnInstantiationsJobFindsOnlyWhatALostNodesJobLeftThere) {
  lose_n02_under_a_job("n01:8,n02:4", 12);
  // n02 granted again before the aborted job has heard from n01: 4 of its slots are still that
  // job's (J25), so the new session's job is mapped onto the 4 left (J26), not onto all 8.
  from_scheduler(2, 2, instantiate("n02:8", "alloc-2", {sleep_app(0, 100)}));
  daemons_ready({2});
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].first, Address::daemon(2));
  EXPECT_EQ(launches[0].second.local_procs, 4u);
}

TEST_F(SlotsTest, AnInstantiationsJobThatFindsNoSlotLeftFailsToMap) {
  lose_n02_under_a_job("n01:8,n02:8", 16);
  from_scheduler(2, 2, instantiate("n02:8", "alloc-2", {sleep_app(8, 100)}));
  daemons_ready({2});
  // PRRTE's mapper finds no slot on its only node: the job fails to map, and the scheduler hears so.
  const auto sent = env.take_sent();
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::scheduler());
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToMap);
}

TEST_F(SlotsTest, ASpawnAllocsFreshGrantFindsOnlyWhatALostNodesJobLeftThere) {
  lose_n02_under_a_job("n01:8,n02:4", 12);
  spawn_granted_all_of_n02();
  daemons_ready({2});
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].second.local_procs, 4u) << "the 4 slots the lost node's job left, not the 8 granted";
}

TEST_F(SlotsTest, AnInstantiationsJobIsMappedAgainWhenTheSlotsItFoundTakenComeBackBeforeItLaunches) {
  lose_n02_under_a_job("n01:8,n02:8", 16);
  from_scheduler(2, 2, instantiate("n02:8", "alloc-2", {sleep_app(0, 100)}));
  // PRRTE maps the held job only as the fence lifts.
  expect_every_slot_of_n02_once_the_lost_job_ends();
}

TEST_F(SlotsTest, ASpawnAllocsJobIsMappedAgainWhenTheSlotsItFoundTakenComeBackBeforeItLaunches) {
  lose_n02_under_a_job("n01:8,n02:4", 12);
  spawn_granted_all_of_n02();
  expect_every_slot_of_n02_once_the_lost_job_ends();
}

TEST_F(SlotsTest, ASpawnAllocsJobThatDoesNotFitYetWaitsForTheFenceToLift) {
  lose_n02_under_a_job("n01:8,n02:4", 12);
  spawn_granted_all_of_n02(8);
  EXPECT_TRUE(all_of<SpawnResponse>(env.take_sent()).empty()) << "held behind the fence, not refused";
  expect_every_slot_of_n02_once_the_lost_job_ends();
}

TEST_F(SlotsTest, ASpawnAllocsJobThatStillDoesNotFitAsTheFenceLiftsFailsToMap) {
  lose_n02_under_a_job("n01:8,n02:4", 12);
  spawn_granted_all_of_n02(8);
  daemons_ready({2});
  auto sent = env.take_sent();
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_FAILED_TO_MAP\""}), 1u);
  // Its allocation is handed back first; the spawn fails once the release is answered.
  const auto releases = all_of<AllocRequest>(sent);
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].second.directive, Directive::Release);
  ctl->handle(Address::scheduler(), AllocResponse{releases[0].second.id, Status::Success, {}, releases[0].second.corr});
  const auto answers = all_of<SpawnResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToMap);
}

TEST_F(ControllerTest, TwoReservationsSharingANodeNeverMapMoreThanItsSlots) {
  serve_dvm({1});
  reserve_nodes(5, "n01");
  reserve_nodes(6, "n01");
  env.take_sent();
  ASSERT_EQ(ctl->session_count(), 2u);
  ctl->handle(Address::requestor(1), spawn(7, 6, with({}, key::ALLOC_ID, std::string("tool.1"))));
  ASSERT_EQ(all_of<LaunchProcs>(env.take_sent()).size(), 1u);
  // The second reservation's job finds what the first left on n01: 2 slots, not 8.
  ctl->handle(Address::requestor(1), spawn(8, 4, with({}, key::ALLOC_ID, std::string("tool.2"))));
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::requestor(1), spawn(9, 0, with({}, key::ALLOC_ID, std::string("tool.2"))));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].second.local_procs, 2u);
}

TEST_F(ControllerTest, AReservationGrantedMoreSlotsThanItsNodeHasMapsThemAll) {
  serve_dvm({1});
  reserve_nodes(5, "n01:16");
  env.take_sent();
  ctl->handle(Address::requestor(1), spawn(6, 16, with({}, key::ALLOC_ID, std::string("tool.1"))));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].second.local_procs, 16u);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
