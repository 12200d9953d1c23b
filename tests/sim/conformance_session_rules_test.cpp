// Conformance, FLOW.md §4: the session control that is refused, and who decides the rest: the
// scheduler when one is attached, else the controller after an ownership check.
#include "conformance_session_support.hpp"

namespace pmixflow::test::session_conformance {
namespace {

// ---------------------------------------------------------------- refusals and rules

TEST_P(SessionControl, CompleteIsNeverAcceptedByTheRm) {
  const ScenarioRun run = simulate("session-complete-refused.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_ERR_NOT_SUPPORTED");
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_ERR_NOT_SUPPORTED");
  // Passed on like any request (PRRTE's pass_request()), and refused by the scheduler.
  for (const char* corr : {"alice#2", "alice#3"})
    EXPECT_EQ(count(run, "session_ctrl.answer", with("corr", corr, "who", "scheduler")), 1u) << corr;
  // Nobody took the requestor's COMPLETE for the real one: the scheduler records the session
  // complete once, from the RM's own COMPLETE after the job's end.
  const auto completed = events(run, "session.completed");
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0]["corr"], "alice#1");
  const double job_end = job_time(run, "job.end", "job-1.1");
  EXPECT_GE(completed[0]["t"].get<double>(), job_end);
  EXPECT_EQ(completes(run, 1u).size(), 1u);
  const auto& alloc = run.summary["allocations"].at(0);
  EXPECT_NEAR(alloc["ended"].get<double>(), job_end, kTol);
  EXPECT_EQ(alloc["jobs"].size(), 1u);
}

TEST_P(SessionControl, CompleteIsRefusedByAControllerDecidingAlone) {
  const ScenarioRun run = simulate("session-complete-refused-standalone.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "u#3"), "PMIX_ERR_NOT_SUPPORTED");
  EXPECT_EQ(decided_by(run, "u#3"), std::vector<std::string>{"controller"});
  EXPECT_EQ(count(run, "session.terminate"), 0u);
  const std::string job = "job-1.1";
  EXPECT_EQ(job_status(run, job), "PMIX_SUCCESS");
  EXPECT_NEAR(job_time(run, "job.end", job) - job_time(run, "job.start", job), 20.0, kTol);
}

TEST_P(SessionControl, TwoOperationsInOneRequestAreRefused) {
  const ScenarioRun run = simulate("session-several-ops.jsonl");
  expect_all_met(run);
  for (const char* corr : {"alice#2", "alice#3", "alice#4"})
    EXPECT_EQ(status_of(run, corr), "PMIX_ERR_BAD_PARAM") << corr;
  for (const char* ev :
       {"job.suspend", "job.continue", "job.signal", "session.terminate", "session.extend", "procs.signal"})
    EXPECT_EQ(count(run, ev), 0u) << ev;
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - job_time(run, "job.start", "job-1.1"), 20.0, kTol);
}

TEST_P(SessionControl, SessionAllMeansEverySessionTheCallerControls) {
  const ScenarioRun run = simulate("session-all.jsonl");
  expect_all_met(run);
  EXPECT_EQ(count(run, "session_ctrl.decide", with("corr", "alice#4", "session", 4294967295u)), 1u);
  for (const char* corr : {"alice#4", "alice#5"}) {
    EXPECT_EQ(status_of(run, corr), "PMIX_SUCCESS") << corr;
    std::vector<int> sessions;
    for (const auto& e : events(run, "session_ctrl.execute", with("corr", corr))) sessions.push_back(e["session"]);
    EXPECT_EQ(sessions, (std::vector<int>{1, 2})) << corr;  // alice's two, not bob's
  }
  for (const char* ns : {"job-1.1", "job-2.1"}) {
    EXPECT_EQ(signals(run, ns, kSigStop), 1u) << ns;
    EXPECT_EQ(signals(run, ns, kSigCont), 1u) << ns;
    EXPECT_NEAR(job_time(run, "job.end", ns) - job_time(run, "job.start", ns), 35.0, kTol) << ns;
  }
  // bob's session and alice's job in the DVM's general pool are untouched.
  for (const char* ns : {"job-3.1", "job-dvm.1"}) {
    EXPECT_EQ(count(run, "procs.signal", with("nspace", ns)), 0u) << ns;
    EXPECT_NEAR(job_time(run, "job.end", ns) - job_time(run, "job.start", ns), 30.0, kTol) << ns;
  }
}

TEST_P(SessionControl, SessionAllDecidedByTheControllerSparesOthersAndThePool) {
  const ScenarioRun run = simulate("session-all-standalone.jsonl");
  expect_all_met(run);
  EXPECT_EQ(decided_by(run, "u#6"), std::vector<std::string>{"controller"});
  EXPECT_EQ(count(run, "session_ctrl.execute", with("corr", "u#6", "session", 4294967295u)), 1u);
  std::vector<std::string> suspended;
  for (const auto& e : events(run, "job.suspend")) suspended.push_back(e["nspace"]);
  EXPECT_EQ(suspended, (std::vector<std::string>{"job-1.1", "job-2.1"}));  // u's two sessions
  EXPECT_EQ(count(run, "job.continue"), 2u);
  // v's session and u's job in the DVM's general pool are untouched.
  for (const char* ns : {"job-3.1", "job-dvm.1"}) {
    EXPECT_EQ(count(run, "procs.signal", with("nspace", ns)), 0u) << ns;
    EXPECT_NEAR(job_time(run, "job.end", ns) - job_time(run, "job.start", ns), 30.0, kTol) << ns;
  }
}

TEST_P(SessionControl, UnknownKeysAreIgnored) {
  const ScenarioRun run = simulate("session-unknown-keys.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  // The key reached the RM, which carried out the PAUSE beside it.
  const auto order = ctrl_sent(run, "alice#2", "scheduler", "controller");
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(as_object(order[0]["directives"])["pmix.my.unknown"], true);
  EXPECT_NEAR(time_of(run, "job.suspend", with("nspace", "job-1.1")), 5.0, kTol);
  EXPECT_NEAR(time_of(run, "job.continue", with("nspace", "job-1.1")), 6.0, kTol);
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 1u);
}

TEST_P(SessionControl, ProvisioningIsRefused) {
  const ScenarioRun run = simulate("session-provision-refused.jsonl");
  expect_all_met(run);
  for (const char* corr : {"alice#2", "alice#3", "alice#4"})
    EXPECT_EQ(status_of(run, corr), "PMIX_ERR_NOT_SUPPORTED") << corr;
  EXPECT_EQ(count(run, "session.extend"), 0u);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
}

TEST_P(SessionControl, ResourceSelectionIsRefused) {
  const ScenarioRun run = simulate("session-selection-refused.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status_of(run, "u#2"), "PMIX_SUCCESS");  // the spawn into its reservation
  for (const char* corr : {"u#3", "u#4", "u#5", "u#6", "u#7", "u#8", "u#9"}) {
    EXPECT_EQ(status_of(run, corr), "PMIX_ERR_NOT_SUPPORTED") << corr;
    EXPECT_EQ(decided_by(run, corr), std::vector<std::string>{"controller"}) << corr;
  }
  EXPECT_EQ(status_of(run, "u#10"), "PMIX_ERR_BAD_PARAM");  // a queue beside it is ignored: nothing to extend
  EXPECT_EQ(count(run, "session.extend"), 0u);
  EXPECT_EQ(count(run, "dvm.grow", [](const json& e) { return e["t"].get<double>() > 1.0; }), 0u);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
}

TEST_P(SessionControl, AnUnknownSessionIsNotFound) {
  const ScenarioRun run = simulate("session-unknown-session.jsonl");
  expect_all_met(run);
  // Decided by the scheduler: the RM is never ordered.
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_ERR_NOT_FOUND");
  EXPECT_EQ(count(run, "session_ctrl.answer", with("corr", "alice#2", "who", "scheduler")), 1u);
  EXPECT_TRUE(decided_by(run, "alice#2").empty());
  // A session already reclaimed is unknown too.
  EXPECT_LT(time_of(run, "session.reclaimed", with("session", 1)), 5.0);
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_ERR_NOT_FOUND");
  EXPECT_EQ(count(run, "session.terminate"), 0u);
  // Decided by the controller, the scheduler gone.
  EXPECT_EQ(status_of(run, "alice#4"), "PMIX_ERR_NOT_FOUND");
  EXPECT_EQ(decided_by(run, "alice#4"), std::vector<std::string>{"controller"});
}

// ---------------------------------------------------------------- who decides

TEST_P(SessionControl, AtADaemonTheRequestIsRelayedThenDecidedAsAnywhere) {
  const ScenarioRun run = simulate("session-decide-daemon.jsonl");
  expect_all_met(run);
  EXPECT_EQ(hops(run, "alice#2"), (std::vector<std::string>{
                                      "requestor:alice>daemon:n02:session_ctrl",
                                      "daemon:n02>controller:session_ctrl",  // relayed unchanged
                                      "controller>scheduler:session_ctrl",   // PMIX_REQUESTOR added
                                      "scheduler>controller:session_ctrl",   // the scheduler's order
                                      "controller>scheduler:session_ctrl_response",
                                      "scheduler>controller:session_ctrl_response",
                                      "controller>daemon:n02:session_ctrl_response",  // back the way it came
                                      "daemon:n02>requestor:alice:session_ctrl_response",
                                  }));
  EXPECT_EQ(count(run, "session_ctrl.relay", with("corr", "alice#2", "who", "daemon:n02")), 1u);
  EXPECT_FALSE(
      as_object(ctrl_sent(run, "alice#2", "daemon:n02", "controller").at(0)["directives"]).contains("pmix.requestor"));
  EXPECT_EQ(as_object(ctrl_sent(run, "alice#2", "controller", "scheduler").at(0)["directives"])["pmix.requestor"],
            "alice.0");
  EXPECT_EQ(decided_by(run, "alice#2"), std::vector<std::string>{"scheduler"});
  EXPECT_EQ(count(run, "job.suspend", with("nspace", "job-1.1")), 1u);
  // Not the owner: the scheduler refuses, the RM is never ordered, the answer goes back via the daemon.
  EXPECT_EQ(status_of(run, "mallory#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_TRUE(decided_by(run, "mallory#1").empty());
  EXPECT_EQ(hops(run, "mallory#1").back(), "daemon:n02>requestor:mallory:session_ctrl_response");
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  EXPECT_EQ(count(run, "job.continue", with("nspace", "job-1.1")), 1u);
}

TEST_P(SessionControl, WithASchedulerAttachedTheSchedulerDecides) {
  const ScenarioRun run = simulate("session-decide-scheduler.jsonl");
  expect_all_met(run);
  // Forwarded with PMIX_REQUESTOR; the scheduler decides for the one it names.
  for (const auto& [corr, who] : {std::pair{"mallory#1", "mallory.0"}, std::pair{"alice#2", "alice.0"}}) {
    EXPECT_EQ(as_object(ctrl_sent(run, corr, "controller", "scheduler").at(0)["directives"])["pmix.requestor"], who)
        << corr;
    EXPECT_EQ(count(run, "session_ctrl.decide", with("corr", corr, "requestor", who)), 1u) << corr;
  }
  // Not the owner: refused by the scheduler, never reaching the RM as an order.
  EXPECT_EQ(status_of(run, "mallory#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(count(run, "session_ctrl.answer", with("corr", "mallory#1", "who", "scheduler")), 1u);
  EXPECT_TRUE(decided_by(run, "mallory#1").empty());
  EXPECT_TRUE(ctrl_sent(run, "mallory#1", "scheduler", "controller").empty());
  // The owner: the scheduler orders, the controller carries it out.
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  EXPECT_EQ(decided_by(run, "alice#2"), std::vector<std::string>{"scheduler"});
  EXPECT_EQ(count(run, "session_ctrl.execute", with("corr", "alice#2", "by", "scheduler")), 1u);
  // A tool attached to the scheduler itself is decided the same way.
  EXPECT_EQ(status_of(run, "mallory#2"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_TRUE(decided_by(run, "mallory#2").empty());
  EXPECT_EQ(hops(run, "alice#3"), (std::vector<std::string>{
                                      "requestor:alice>scheduler:session_ctrl",
                                      "scheduler>controller:session_ctrl",
                                      "controller>scheduler:session_ctrl_response",
                                      "scheduler>requestor:alice:session_ctrl_response",
                                  }));
  EXPECT_EQ(decided_by(run, "alice#3"), std::vector<std::string>{"scheduler"});
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 1u);
  EXPECT_EQ(signals(run, "job-1.1", kSigCont), 1u);
}

TEST_P(SessionControl, WithoutASchedulerTheControllerDecidesAfterAnOwnershipCheck) {
  const ScenarioRun run = simulate("session-decide-controller.jsonl");
  expect_all_met(run);
  const std::string job = "job-1.1";  // spawned by u into the reservation the DVM made it
  EXPECT_EQ(instantiated_for(run, "u#1")["owner"], "u.0");
  for (const char* corr : {"u#3", "u#4", "v#1", "v#2"})
    EXPECT_EQ(decided_by(run, corr), std::vector<std::string>{"controller"}) << corr;
  EXPECT_EQ(count(run, "send", [](const json& e) { return e["to"] == "scheduler" && e["msg"] == "session_ctrl"; }), 0u);
  EXPECT_EQ(status_of(run, "v#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(status_of(run, "v#2"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(status_of(run, "u#3"), "PMIX_SUCCESS");
  EXPECT_EQ(status_of(run, "u#4"), "PMIX_SUCCESS");
  // Only the owner's PAUSE and RESUME acted; the RESUME came relayed through a daemon.
  EXPECT_NEAR(time_of(run, "job.suspend", with("nspace", job)), 6.0, kTol);
  EXPECT_NEAR(time_of(run, "job.continue", with("nspace", job)), 8.0, kTol);
  EXPECT_EQ(count(run, "session_ctrl.relay", with("corr", "u#4", "who", "daemon:n02")), 1u);
  EXPECT_EQ(hops(run, "u#4").back(), "daemon:n02>requestor:u:session_ctrl_response");
}

TEST_P(SessionControl, WhileTheSchedulerIsAwayTheControllerDecides) {
  const ScenarioRun run = simulate("session-decide-detached.jsonl");
  expect_all_met(run);
  EXPECT_EQ(count(run, "request.held"), 0u);  // session control is decided, never held
  EXPECT_EQ(status_of(run, "mallory#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(decided_by(run, "mallory#1"), std::vector<std::string>{"controller"});
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  EXPECT_EQ(decided_by(run, "alice#2"), std::vector<std::string>{"controller"});
  EXPECT_NEAR(time_of(run, "job.suspend", with("nspace", "job-1.1")), 5.0, kTol);
  // Back again, the scheduler decides.
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  EXPECT_EQ(count(run, "session_ctrl.decide", with("corr", "alice#3")), 1u);
  EXPECT_EQ(decided_by(run, "alice#3"), std::vector<std::string>{"scheduler"});
  EXPECT_EQ(completes(run, 1u).size(), 1u);
}

}  // namespace
}  // namespace pmixflow::test::session_conformance
