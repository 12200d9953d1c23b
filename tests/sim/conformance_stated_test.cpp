// Conformance stated by the scenario files themselves: their `expect` statuses and their
// assertions on effects are the whole statement of a behaviour, checked against the run's log
// in any environment. Here each one is run and must hold everything it states, and state
// enough (a scenario whose assertions were dropped would pass silently otherwise). Every
// scenario file must also have its row in the conformance README.
#include <filesystem>
#include <fstream>
#include <set>

#include "conformance_alloc_support.hpp"

namespace pmixflow::test::alloc_conformance {
namespace {

PMIXFLOW_SCENARIO_SUITE(Stated, AllocConformance);

void holds_everything(const ScenarioRun& run, int at_least) {
  ASSERT_TRUE(run.summary.contains("expectations"));
  const auto& e = run.summary["expectations"];
  EXPECT_GE(e["checked"].get<int>(), at_least);
  EXPECT_TRUE(e["failures"].empty()) << e.dump(2);
}

TEST_P(Stated, AReleaseWhileTheDvmGrowsWaitsForTheGrowthToEnd) {
  const auto run = simulate("release-while-growing.jsonl");
  holds_everything(run, 9);
  // Carried out as if it had just arrived, once the DVM is ready: forwarded after dvm.ready.
  const double ready = only(run, "dvm.ready", "bob#1").value("t", -1.0);
  EXPECT_GE(ready, 0.0);
  EXPECT_GE(only(run, "request.forward", "bob#2").value("t", -1.0), ready);
}

TEST_P(Stated, AReleasedReservationIsGoneAtOnce) { holds_everything(simulate("standalone-release-running.jsonl"), 7); }

TEST_P(Stated, ASpawnCannotAddHostsWhereASchedulerOwnsTheAllocation) {
  holds_everything(simulate("spawn-add-host-refused.jsonl"), 5);
}

TEST_P(Stated, ASchedulersOrderForSomeoneMayDoOnlyWhatTheyMay) {
  holds_everything(simulate("scheduler-order-for-requestor.jsonl"), 7);
}

TEST_P(Stated, ASessionControlIsAnsweredWithWhatItActedOn) {
  holds_everything(simulate("session-ctrl-answer-info.jsonl"), 13);
}

TEST_P(Stated, AnInstantiationIsAnsweredWithItsIdsAndJob) {
  holds_everything(simulate("scheduler-instantiate-answer.jsonl"), 5);
}

TEST_P(Stated, ControlOfAJobNotYetLaunchedIsNotLost) {
  holds_everything(simulate("session-control-before-launch.jsonl"), 11);
}

TEST_P(Stated, AStandaloneRmDeclinesWhatItsPoolCannotServe) {
  holds_everything(simulate("standalone-declines.jsonl"), 7);
}

TEST_P(Stated, WhatTheRmRefusesBeforeAndAfterFindingTheSession) {
  holds_everything(simulate("session-parse-refusals.jsonl"), 25);
}

TEST_P(Stated, ASessionIsOwnedByItsJobsAndItsUsersToolsNotByOtherJobs) {
  holds_everything(simulate("session-owner-tools-only.jsonl"), 10);
}

TEST_P(Stated, ASameUserToolTakesOverASessionAndAnotherUserIsRefused) {
  holds_everything(simulate("identity-takeover.jsonl"), 12);
}

TEST_P(Stated, TheReadyEventOfAnActivationNamingNoAllocationNamesTheDvmsOwn) {
  holds_everything(simulate("activate-dvm-allocation.jsonl"), 6);
}

TEST_P(Stated, TheSchedulersInstantiateOfAnExistingIdIsRefused) {
  holds_everything(simulate("scheduler-instantiate-existing.jsonl"), 6);
}

TEST_P(Stated, AFailureOverEverySessionIsAnsweredAndLeavesThemAsTheyWere) {
  holds_everything(simulate("session-all-failures.jsonl"), 10);
}

TEST_P(Stated, TimeFieldsAreReadAsPrrteReadsThem) { holds_everything(simulate("session-time-fields.jsonl"), 11); }

TEST_P(Stated, AnInstantiationThatCannotBeMappedFailsAtLaunch) {
  const auto run = simulate("scheduler-instantiate-unmappable.jsonl");
  holds_everything(run, 12);
  // Mapping fails only once the fence lifts: after the DVM has grown over the session's node.
  const double ready = only(run, "dvm.ready", "scheduler#1").value("t", -1.0);
  ASSERT_GT(ready, 0);
  EXPECT_GE(only(run, "job.end", "scheduler#1").value("t", -1.0), ready);
}

TEST_P(Stated, AppsWithoutResourcesAreRefusedUpFront) {
  holds_everything(simulate("scheduler-instantiate-apps-without-resources.jsonl"), 5);
}

TEST_P(Stated, ResourcesBesideAndInsideMakeOneRequest) {
  holds_everything(simulate("scheduler-resources-merged.jsonl"), 15);
}

TEST_P(Stated, ResourcesGivenDirectlyAreTaken) {
  holds_everything(simulate("scheduler-instantiate-direct-resources.jsonl"), 6);
}

TEST_P(Stated, TheSchedulersSelectionIsRefused) {
  holds_everything(simulate("scheduler-instantiate-selection-refused.jsonl"), 4);
}

TEST_P(Stated, AGrantNeverToldToTheRmCreatesNothing) {
  holds_everything(simulate("scheduler-grant-without-session.jsonl"), 8);
}

TEST_P(Stated, WithoutASchedulerARefusingRunDeclinesAndAfterOneWentTheForwardFails) {
  holds_everything(simulate("refuse-after-detach.jsonl"), 7);
}

TEST_P(Stated, AFailedGrowFailsEveryHeldJob) { holds_everything(simulate("grow-failure-aborts-held.jsonl"), 9); }

TEST_P(Stated, OneRanksFailureKillsTheWholeJob) {
  const auto run = simulate("job-rank-failure-kills-job.jsonl");
  holds_everything(run, 7);
  // Killed when the first app failed, 2 s after its start: not when the second would have ended.
  const double started = only(run, "job.start", "m#1").value("t", -1.0);
  EXPECT_NEAR(only(run, "job.end", "m#1").value("t", -1.0) - started, 2.0, 0.2);
}

TEST_P(Stated, ASpawnGoesIntoTheSessionItNamesOrItsOwn) { holds_everything(simulate("spawn-session-named.jsonl"), 11); }

TEST_P(Stated, ASpawnsOwnTimeLimitKillsItsJob) {
  const auto run = simulate("job-timeout.jsonl");
  holds_everything(run, 8);
  EXPECT_NEAR(only(run, "job.end", "s#1").value("t", -1.0), 6.0, 0.01);  // spawned at t=1, limit 5 s
  EXPECT_LT(run.summary.value("sim_time_s", 1e9), 7.0);                  // t's 50 s limit went with it
}

TEST_P(Stated, ASpawnsLaunchLimitFailsAJobThatCannotStartInTime) {
  const auto run = simulate("spawn-launch-timeout.jsonl");
  holds_everything(run, 11);
  // Set up at t=1 with 3 s, behind a fence that lifts only at about t=11.
  EXPECT_NEAR(only(run, "job.end", "s#1").value("t", -1.0), 4.0, 0.01);
  EXPECT_GT(only(run, "job.start", "t#1").value("t", -1.0), 10.5);
}

TEST_P(Stated, TheDvmsChangeIsToldToItsRequesterAlone) {
  const auto run = simulate("dvm-ready-to-requester.jsonl");
  holds_everything(run, 8);
  EXPECT_EQ(only(run, "dvm.ready", "a#1").value("requestor", ""), "a.0");
  EXPECT_FALSE(only(run, "dvm.ready", "dvm-start").contains("requestor"));
}

TEST_P(Stated, AStandaloneExtendNamesTheCallersReservation) {
  const auto run = simulate("standalone-extend.jsonl");
  holds_everything(run, 12);
  // The answer names the reservation, and the request id the caller gave (PRRTE's
  // ras_base_set_alloc_response()).
  EXPECT_EQ(answer_info(run, "r#4", "pmix.alloc.id"), "r.1");
  EXPECT_EQ(answer_info(run, "r#4", "pmix.alloc.reqid"), "mine");
}

TEST_P(Stated, ASessionsLimitCountsFromItsInstantiation) {
  const auto run = simulate("session-limit-from-instantiation.jsonl");
  holds_everything(run, 5);
  // Instantiated at t=1 with 5 s: the limit runs out at 6 (and a millisecond's grace), although
  // the job started 50 ms later, once n02's daemon was up.
  EXPECT_NEAR(only(run, "session.timeout", "scheduler#1").value("t", -1.0), 6.0, 0.002);
  EXPECT_GT(only(run, "job.start", "scheduler#1").value("t", -1.0), 1.04);
}

TEST_P(Stated, ASessionInheritedChildEndsWithItsWholeLine) {
  const auto run = simulate("session-child-lineage.jsonl");
  holds_everything(run, 12);
  // The CHILD reservation ends with the last job of its line, not with its owner.
  EXPECT_EQ(only(run, "job.end", "job-dvm.1#3").value("t", -1.0),
            only(run, "session.reclaimed", "job-dvm.1#1").value("t", -2.0));
}

TEST_P(Stated, ASchedulerAttachingAtADaemonIsRefused) {
  holds_everything(simulate("scheduler-attach-at-daemon.jsonl"), 5);
}

TEST_P(Stated, ANamedNodeListIsGrantedOrRefused) { holds_everything(simulate("alloc-node-list.jsonl"), 7); }

TEST_P(Stated, TheControllersNodeNeverLeavesItsDvm) { holds_everything(simulate("inheritance-head-kept.jsonl"), 10); }

TEST_P(Stated, ADaemonKilledWithARequestInItLeavesNoCallerHanging) {
  holds_everything(simulate("fault-daemon-killed.jsonl"), 5);
}

TEST_P(Stated, ASchedulerKilledAndRestartedLeavesNoCallerHanging) {
  holds_everything(simulate("fault-scheduler-restart.jsonl"), 7);
}

TEST_P(Stated, AControllerKilledLeavesNoCallerHanging) {
  holds_everything(simulate("fault-controller-killed.jsonl"), 5);
}

TEST_P(Stated, JobsThatFailOnTheirOwnEndTheirSessions) { holds_everything(simulate("fault-job-exits.jsonl"), 5); }

TEST_P(Stated, ADaemonRestartedOnALiveNodeBringsTheNodeBack) {
  holds_everything(simulate("fail-daemon-restart.jsonl"), 10);
}

TEST_P(Stated, ARestartedDaemonIsStartedAsAnyDaemonIs) {
  holds_everything(simulate("fail-daemon-restart-slow.jsonl"), 7);
}

TEST_P(Stated, ARepairedNodeIsUsedAgain) { holds_everything(simulate("fail-node-returns.jsonl"), 10); }

TEST_P(Stated, ALaunchThatFailsOnSomeNodesFailsTheJobAndFreesItsSession) {
  holds_everything(simulate("fail-launch-some-nodes.jsonl"), 8);
}

TEST_P(Stated, ARequestorsSecondLifeIsNotTakenForItsFirstsEnd) {
  holds_everything(simulate("requestor-second-life.jsonl"), 4);
}

TEST_P(Stated, AStalledSchedulerMakesCallsLateNotFailed) {
  holds_everything(simulate("fail-scheduler-stall.jsonl"), 7);
}

TEST_P(Stated, AChildSpawnedWithChildSepFalseEndsWithItsParent) {
  const auto run = simulate("spawn-child-sep.jsonl");
  holds_everything(run, 16);
  // Killed as its parent ends, 17 s before its own 20 s would have run out.
  const double parent_end = only(run, "job.end", "t#1").value("t", -1.0);
  const double child_end = only(run, "job.end", "job-dvm.1#1").value("t", -1.0);
  EXPECT_GE(child_end, parent_end);
  EXPECT_LT(child_end, parent_end + 1.0);
}

TEST_P(Stated, AJobIsMappedOntoWhatItsFreshGrantHasLeft) { holds_everything(simulate("spawn-alloc-left.jsonl"), 10); }

// Rows that name no scenario are gaps; a row may say why a scenario cannot reach a behaviour.
TEST(ConformanceReadme, NoRowLeavesABehaviourToUnitTestsAlone) {
  const std::string readme = slurp(source_path("tests/scenarios/README.md"));
  EXPECT_EQ(readme.find("no scenario reaches"), std::string::npos);
  EXPECT_EQ(readme.find("(unit tests)"), std::string::npos);
}

TEST(ConformanceReadme, EveryScenarioFileHasItsRow) {
  const std::string readme = slurp(source_path("tests/scenarios/README.md"));
  for (const auto& f : std::filesystem::directory_iterator(source_path("tests/scenarios"))) {
    if (f.path().extension() != ".jsonl") continue;
    EXPECT_NE(readme.find("`" + f.path().filename().string() + "`"), std::string::npos)
        << f.path().filename() << " is not in tests/scenarios/README.md";
  }
}

}  // namespace
}  // namespace pmixflow::test::alloc_conformance
