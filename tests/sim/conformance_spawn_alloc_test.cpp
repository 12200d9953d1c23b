// Conformance, FLOW.md §7: PMIx_Spawn with PMIX_SPAWN_ALLOC, the job mapped only onto the
// grant, and the allocation released before a failed spawn is answered.
#include "conformance_alloc_support.hpp"

namespace pmixflow::test::alloc_conformance {
namespace {

PMIXFLOW_SCENARIO_SUITE(SpawnAlloc, AllocConformance);

// ------------------------------------------------------------------ §7: PMIX_SPAWN_ALLOC

TEST_P(SpawnAlloc, NewIsServedByTheSchedulerBeforeTheLaunch) {
  const ScenarioRun run = simulate("spawn-alloc-new.jsonl");
  EXPECT_EQ(status(run, "s#1"), "PMIX_SUCCESS");
  // Exactly the standalone request's path: to the scheduler, which instantiates the session
  // and answers; the job is launched only then, onto the grant.
  EXPECT_EQ(hops(run, "s#1"),
            (std::vector<std::string>{
                "requestor:s>controller:spawn",
                "controller>scheduler:alloc_request(PMIX_ALLOC_NEW)",
                "scheduler>controller:session_ctrl(pmix.ssn.inst)",
                "controller>scheduler:session_ctrl_response(PMIX_SUCCESS)",
                "controller>requestor:s:notify(PMIX_DVM_IS_READY)",  // s is the session's requestor
                "scheduler>controller:alloc_response(PMIX_SUCCESS)",
                "controller>daemon:n01:launch_procs",
                "controller>requestor:s:spawn_response(PMIX_SUCCESS)",
                "controller>scheduler:session_ctrl(pmix.ssn.complete)",  // the job ended: session complete
                "scheduler>controller:session_ctrl_response(PMIX_SUCCESS)",
            }));
  // The request carries what the standalone request would, plus PMIX_REQUESTOR.
  for (const auto& e : run.events) {
    if (ev_of(e) == "send" && e.value("corr", "") == "s#1" && e["msg"] == "alloc_request") {
      EXPECT_EQ(info_of(e), (json{{"pmix.alloc.nnodes", 1}, {"pmix.alloc.reqid", "s-job"}, {"pmix.requestor", "s.0"}}));
    }
  }
  EXPECT_LT(index_of(run, "alloc.grant", "s#1"), index_of(run, "spawn.launch", "s#1"));
  // PMIx_Spawn answers with the job's namespace; the allocation it was served with is the grant's.
  EXPECT_EQ(only(run, "alloc.grant", "s#1")["alloc"], "alloc-1");
  EXPECT_EQ(only(run, "spawn.launch", "s#1")["session"], 1);
  EXPECT_EQ(answer_info(run, "s#1", "pmix.nspace"), "job-1.1");
  EXPECT_EQ(answer_info(run, "s#1", "pmix.alloc.id"), nullptr) << "PMIx_Spawn's callback carries no info";
}

TEST_P(SpawnAlloc, ActivateIsAnsweredLocally) {
  const ScenarioRun run = simulate("spawn-alloc-activate.jsonl");
  EXPECT_EQ(status(run, "s#1"), "PMIX_SUCCESS");
  EXPECT_EQ(hops(run, "s#1"), (std::vector<std::string>{
                                  "requestor:s>controller:spawn",
                                  "controller>requestor:s:notify(PMIX_DVM_IS_READY)",
                                  "controller>daemon:n03:launch_procs",
                                  "controller>requestor:s:spawn_response(PMIX_SUCCESS)",
                              }));
  expect_no_scheduler_decision(run, "s#1");
  EXPECT_EQ(events(run, "activate", "s#1").size(), 1u);
  EXPECT_LT(index_of(run, "job.fenced", "s#1"), index_of(run, "dvm.ready", "s#1"));
  EXPECT_LT(index_of(run, "dvm.ready", "s#1"), index_of(run, "job.launch", "s#1"));
  EXPECT_EQ(launches(run, "s#1"), (std::map<std::string, int>{{"daemon:n03", 8}}));  // only the activated node
}

TEST_P(SpawnAlloc, TheJobIsMappedOnlyOntoTheGrant) {
  const ScenarioRun run = simulate("spawn-alloc-mapping.jsonl");
  EXPECT_EQ(status(run, "o#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "s#1"), "PMIX_SUCCESS");
  const auto grant = events(run, "alloc.grant", "s#1");
  ASSERT_EQ(grant.size(), 1u);
  EXPECT_EQ(grant[0]["node_list"], "n01:4,n02:8");
  // Onto the granted slots, n01's other half included; never onto n03..n08, free in the DVM.
  EXPECT_EQ(launches(run, "s#1"), (std::map<std::string, int>{{"daemon:n01", 4}, {"daemon:n02", 8}}));
}

TEST_P(SpawnAlloc, RefusedAllocationFailsTheSpawnAndLaunchesNothing) {
  const ScenarioRun run = simulate("spawn-alloc-refused.jsonl");
  EXPECT_EQ(status(run, "w#1"), "PMIX_ERR_JOB_ALLOC_FAILED");
  EXPECT_EQ(status(run, "x#1"), "PMIX_ERR_JOB_ALLOC_FAILED");
  // Refused by the scheduler: its refusal, then the spawn's failure; nothing else.
  EXPECT_EQ(hops(run, "w#1"), (std::vector<std::string>{
                                  "requestor:w>controller:spawn",
                                  "controller>scheduler:alloc_request(PMIX_ALLOC_NEW)",
                                  "scheduler>controller:alloc_response(PMIX_ERR_OUT_OF_RESOURCE)",
                                  "controller>requestor:w:spawn_response(PMIX_ERR_JOB_ALLOC_FAILED)",
                              }));
  const auto why = events(run, "spawn.alloc_refused", "w#1");
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0]["status"], "PMIX_ERR_OUT_OF_RESOURCE");
  // An ACTIVATE refused by the controller: answered at once.
  EXPECT_EQ(hops(run, "x#1"), (std::vector<std::string>{
                                  "requestor:x>controller:spawn",
                                  "controller>requestor:x:spawn_response(PMIX_ERR_JOB_ALLOC_FAILED)",
                              }));
  EXPECT_EQ(events(run, "activate.refused", "x#1").size(), 1u);
  for (const char* corr : {"w#1", "x#1"}) {
    for (const char* ev : {"spawn.launch", "job.fenced", "job.launch", "job.start", "dvm.grow", "session.instantiate"})
      EXPECT_TRUE(events(run, ev, corr).empty()) << corr << " " << ev;
    EXPECT_TRUE(launches(run, corr).empty()) << corr;
  }
}

TEST_P(SpawnAlloc, LaunchFailureReleasesTheAllocationBeforeTheSpawnFails) {
  const ScenarioRun run = simulate("spawn-alloc-launch-fails.jsonl");
  EXPECT_EQ(status(run, "x#1"), "PMIX_ERR_JOB_FAILED_TO_LAUNCH");
  const auto path = hops(run, "x#1");
  // Granted and launched; the launch fails; the allocation goes back with a RELEASE, whose
  // answer comes before the spawn's own error.
  const std::vector<std::string> in_order{
      "requestor:x>controller:spawn",
      "controller>scheduler:alloc_request(PMIX_ALLOC_NEW)",
      "scheduler>controller:session_ctrl(pmix.ssn.inst)",
      "scheduler>controller:alloc_response(PMIX_SUCCESS)",
      "controller>daemon:n01:launch_procs",
      "controller>scheduler:alloc_request(PMIX_ALLOC_RELEASE)",
      "controller>requestor:x:spawn_response(PMIX_ERR_JOB_FAILED_TO_LAUNCH)",
  };
  EXPECT_TRUE(is_subsequence(in_order, path)) << joined(path);
  EXPECT_EQ(path.back(), "controller>requestor:x:spawn_response(PMIX_ERR_JOB_FAILED_TO_LAUNCH)") << joined(path);
  const long failed = index_of(run, "job.launch_failed");
  const long release = index_of(run, "spawn.release", "x#1");
  const long release_sent = index_of_hop(run, "x#1", "controller>scheduler:alloc_request(PMIX_ALLOC_RELEASE)");
  const long spawn_answer = index_of(run, "spawn.answer", "x#1");
  ASSERT_GE(release, 0);
  EXPECT_EQ(only(run, "spawn.release", "x#1").value("alloc", ""), "alloc-1");
  EXPECT_LT(failed, release);
  EXPECT_LT(release, release_sent);
  EXPECT_LT(release_sent, spawn_answer);
  // The RELEASE's answer reaches the controller before the spawn answers.
  long release_answer = -1;
  std::string release_status;
  for (std::size_t i = static_cast<std::size_t>(release_sent) + 1; i < run.events.size(); ++i) {
    const auto& e = run.events[i];
    if (ev_of(e) == "recv" && e["who"] == "controller" && e["msg"] == "alloc_response" &&
        e.value("corr", "") == "x#1") {
      release_answer = static_cast<long>(i);
      release_status = e["status"].get<std::string>();
      break;
    }
  }
  ASSERT_GE(release_answer, 0) << "the RELEASE was never answered";
  EXPECT_LT(release_answer, spawn_answer);
  // "hands the allocation back": the RELEASE succeeds, and the scheduler holds nothing for it.
  EXPECT_EQ(release_status, "PMIX_SUCCESS")
      << "the RELEASE of the failed spawn's allocation was refused" << joined(path);
  EXPECT_EQ(events(run, "session.completed", "x#1").size(), 1u);
  const auto& allocs = run.summary["allocations"];
  ASSERT_EQ(allocs.size(), 1u);
  EXPECT_TRUE(allocs[0].contains("ended"));
  EXPECT_LE(allocs[0].value("ended", 1e9), answered(run, "x#1"));
}

TEST_P(SpawnAlloc, StandaloneDvmGrantsAndReleasesLocally) {
  const ScenarioRun run = simulate("spawn-alloc-standalone.jsonl");
  EXPECT_EQ(status(run, "s#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "x#1"), "PMIX_ERR_JOB_FAILED_TO_LAUNCH");
  // Served as a standalone NEW would be: by the controller, from its pool; launched on the grant.
  EXPECT_EQ(events(run, "alloc.standalone", "s#1").size(), 1u);
  EXPECT_EQ(hops(run, "s#1"), (std::vector<std::string>{
                                  "requestor:s>controller:spawn",
                                  "controller>daemon:n01:launch_procs",
                                  "controller>requestor:s:notify(PMIX_DVM_IS_READY)",  // its reservation's
                                  "controller>requestor:s:spawn_response(PMIX_SUCCESS)",
                              }));
  EXPECT_EQ(only(run, "session.instantiate", "s#1")["alloc"], "s.1");
  EXPECT_EQ(only(run, "session.instantiate", "s#1")["node_list"], "n01:8");
  // The failed launch: released (served locally too) before the spawn returns its error.
  expect_no_scheduler_decision(run, "x#1");
  const long release = index_of(run, "spawn.release", "x#1");
  const long served = first_index(run, [](const json& e) {
    return ev_of(e) == "alloc.standalone" && e["corr"] == "x#1" && e["directive"] == "PMIX_ALLOC_RELEASE";
  });
  const long terminated = index_of(run, "session.terminate", "x#1");
  const long spawn_answer = index_of(run, "spawn.answer", "x#1");
  ASSERT_GE(release, 0);
  EXPECT_LT(release, served);
  EXPECT_LT(served, terminated);
  EXPECT_LT(terminated, spawn_answer);
  // Nothing stays held once the requestor hears of the failure.
  const auto reclaimed =
      first_index(run, [](const json& e) { return ev_of(e) == "session.reclaimed" && e["alloc"] == "x.2"; });
  ASSERT_GE(reclaimed, 0);
  EXPECT_LT(reclaimed, index_of(run, "answer", "x#1"));
  // Counts alone reserve nothing, as a standalone NEW: y's job has nowhere to map, and its empty
  // reservation is handed back before the spawn fails.
  EXPECT_EQ(status(run, "y#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_EQ(only(run, "session.instantiate", "y#1")["node_list"], "");
  EXPECT_TRUE(events(run, "job.launch", "y#1").empty());
  const auto y_reclaimed =
      first_index(run, [](const json& e) { return ev_of(e) == "session.reclaimed" && e["alloc"] == "y.3"; });
  ASSERT_GE(y_reclaimed, 0);
  EXPECT_LT(y_reclaimed, index_of(run, "answer", "y#1"));
}

TEST_P(SpawnAlloc, WithoutAllocationIntoTheDvmPool) {
  const ScenarioRun run = simulate("spawn-pool.jsonl");
  EXPECT_EQ(status(run, "o#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "s#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "s#1", "pmix.nspace"), "job-dvm.1");
  // Decided by the controller alone, onto the free nodes: not n01,n02, withheld for o.
  EXPECT_EQ(hops(run, "s#1"), (std::vector<std::string>{
                                  "requestor:s>controller:spawn",
                                  "controller>daemon:n03:launch_procs",
                                  "controller>daemon:n04:launch_procs",
                                  "controller>requestor:s:spawn_response(PMIX_SUCCESS)",
                              }));
  expect_no_scheduler_decision(run, "s#1");
  EXPECT_EQ(only(run, "spawn.launch", "s#1").value("session", -1), 0);
}

TEST_P(SpawnAlloc, WithoutAllocationIntoANamedSession) {
  const ScenarioRun run = simulate("spawn-session.jsonl");
  EXPECT_EQ(status(run, "o#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "o#2"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "o#2", "pmix.nspace"), "job-1.1");
  EXPECT_EQ(hops(run, "o#2"), (std::vector<std::string>{
                                  "requestor:o>controller:spawn",
                                  "controller>daemon:n01:launch_procs",
                                  "controller>daemon:n02:launch_procs",
                                  "controller>requestor:o:spawn_response(PMIX_SUCCESS)",
                              }));
  expect_no_scheduler_decision(run, "o#2");
  EXPECT_EQ(only(run, "spawn.launch", "o#2").value("session", -1), 1);
  EXPECT_EQ(status(run, "m#1"), "PMIX_ERR_NO_PERMISSIONS");  // not the session's owner
  EXPECT_EQ(status(run, "o#3"), "PMIX_ERR_NOT_FOUND");       // no session 9
  for (const char* corr : {"m#1", "o#3"}) {
    EXPECT_EQ(hops(run, corr).size(), 2u) << corr;
    EXPECT_TRUE(launches(run, corr).empty()) << corr;
  }
}

}  // namespace
}  // namespace pmixflow::test::alloc_conformance
