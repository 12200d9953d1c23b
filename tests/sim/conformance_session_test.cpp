// Conformance, FLOW.md §4 "Session control", the operations: INSTANTIATE, PAUSE/RESUME,
// PREEMPT/RESTORE, SIGNAL and TERMINATE, each proven by what the daemons and the scheduler were sent.
#include "conformance_session_support.hpp"

namespace pmixflow::test::session_conformance {
namespace {

// The suite's tests span three files: its fixture is declared in conformance_session_support.hpp.
PMIXFLOW_INSTANTIATE_ENVIRONMENTS(SessionControl);

// ---------------------------------------------------------------- INSTANTIATE

TEST_P(SessionControl, InstantiateTakesItsNodesFromSessionResources) {
  const ScenarioRun run = simulate("session-instantiate-resources.jsonl");
  expect_all_met(run);
  // The scheduler's order: INSTANTIATE, the resources inside PMIX_SESSION_RESOURCES, the owner.
  const auto order = ctrl_sent(run, "alice#1", "scheduler", "controller");
  ASSERT_EQ(order.size(), 1u);
  json d = as_object(order[0]["directives"]);
  EXPECT_EQ(d["pmix.ssn.inst"], true);
  ASSERT_TRUE(d.contains("pmix.ssn.res"));
  json res = as_object(d["pmix.ssn.res"]);
  EXPECT_EQ(res["pmix.alloc.nlist"], "n01:8,n02:8");
  EXPECT_EQ(res["pmix.alloc.id"], "alloc-1");
  EXPECT_EQ(res["pmix.alloc.reqid"], "r-1");
  EXPECT_EQ(res["pmix.alloc.inhrt"], 3);
  EXPECT_TRUE(res.contains("pmix.alloc.time"));
  EXPECT_EQ(d["pmix.requestor"], "alice.0");
  EXPECT_EQ(decided_by(run, "alice#1"), std::vector<std::string>{"scheduler"});
  // The session is made of exactly those nodes, owned by the requestor the scheduler named.
  json s = instantiated_for(run, "alice#1");
  EXPECT_EQ(s["session"], 1);
  EXPECT_EQ(s["node_list"], "n01:8,n02:8");
  EXPECT_EQ(s["alloc"], "alloc-1");
  EXPECT_EQ(s["owner"], "alice.0");
  EXPECT_EQ(s["time_limit"], 300);  // "5:00", read from the right
  // The nodes had no daemon: the DVM grows first, and the job waits for PMIX_DVM_IS_READY.
  EXPECT_EQ(count(run, "dvm.grow", with("corr", "alice#1", "num_daemons", 2)), 1u);
  const auto ready = events(run, "dvm.ready", with("corr", "alice#1"));
  ASSERT_EQ(ready.size(), 1u);
  json ready_info = as_object(ready[0]["info"]);
  EXPECT_EQ(ready_info["pmix.alloc.id"], "alloc-1");
  EXPECT_EQ(ready_info["pmix.alloc.reqid"], "r-1");
  EXPECT_GE(time_of(run, "job.launch", with("nspace", "job-1.1")), ready[0]["t"].get<double>());
  // Held for the session, and its slots taken by the job mapped there as it waits behind the
  // fence (pmixflow maps a job as it is asked for: docs/prrte-conformance.md J24, R52).
  json n01 = node_at(run, "n01", ready[0]["t"].get<double>());
  EXPECT_EQ(n01["use"], "busy");
  EXPECT_EQ(n01["sessions"], json::array({1}));
  // Answered only once the launch is done, with PMIX_SESSION_ID, PMIX_ALLOC_ID, PMIX_NSPACE.
  const double started = job_time(run, "job.start", "job-1.1");
  const auto answer = events(run, "send", [](const json& e) {
    return e["who"] == "controller" && e["to"] == "scheduler" && e["msg"] == "session_ctrl_response" &&
           e["corr"] == "alice#1" && e["status"] == "PMIX_SUCCESS" && !e["info"].empty();
  });
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_GE(answer[0]["t"].get<double>(), started);
  json info = as_object(answer[0]["info"]);
  EXPECT_EQ(info["pmix.session.id"], 1);
  EXPECT_EQ(info["pmix.alloc.id"], "alloc-1");
  EXPECT_EQ(info["pmix.nspace"], "job-1.1");
  json c = call(run, "alice#1");
  EXPECT_EQ(c["info"]["pmix.nspace"], "job-1.1");
  // With apps, reclaimed when the job ends.
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - started, 30.0, kTol);
  EXPECT_GE(time_of(run, "session.reclaimed", with("session", 1)), job_time(run, "job.end", "job-1.1"));
}

TEST_P(SessionControl, OnlyTheSchedulerInstantiatesSessions) {
  const ScenarioRun run = simulate("session-instantiate-only-scheduler.jsonl");
  expect_all_met(run);
  // No scheduler: the controller decides, and a requestor is not entitled to create a session,
  // whether the resources come inside PMIX_SESSION_RESOURCES or given directly.
  EXPECT_EQ(status_of(run, "u#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(decided_by(run, "u#1"), std::vector<std::string>{"controller"});
  EXPECT_EQ(status_of(run, "u#2"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(count(run, "session_ctrl.relay", with("corr", "u#2", "who", "daemon:n01")), 1u);
  EXPECT_EQ(decided_by(run, "u#2"), std::vector<std::string>{"controller"});
  // A scheduler attached: the request is its to decide, with PMIX_REQUESTOR; never executed unasked.
  const auto fwd = ctrl_sent(run, "u#3", "controller", "scheduler");
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_EQ(as_object(fwd[0]["directives"])["pmix.requestor"], "u.0");
  EXPECT_EQ(count(run, "session_ctrl.decide", with("corr", "u#3")), 1u);
  EXPECT_NE(status_of(run, "u#3"), "PMIX_SUCCESS");
  EXPECT_TRUE(decided_by(run, "u#3").empty());
  // Nothing was created: no session, no daemon, no launch.
  EXPECT_EQ(count(run, "session.instantiate"), 0u);
  EXPECT_EQ(count(run, "dvm.grow", [](const json& e) { return e["t"].get<double>() > 0.5; }), 0u);
  EXPECT_EQ(count(run, "job.launch"), 0u);
}

TEST_P(SessionControl, InstantiatedNodesAreWithheldForTheSession) {
  const ScenarioRun run = simulate("session-instantiate-withheld.jsonl");
  expect_all_met(run);
  const double granted = call(run, "alice#1")["answered"].get<double>();
  for (const char* node : {"n01", "n02", "n03", "n04", "n05", "n06", "n07"}) {
    json n = node_at(run, node, granted);
    EXPECT_EQ(n["use"], "withheld") << node;
    EXPECT_EQ(n["sessions"], json::array({1})) << node;
  }
  EXPECT_EQ(node_at(run, "n08", granted)["use"], "free");
  // A job for the general pool finds only n08: 16 ranks do not fit, 8 do, and only there.
  EXPECT_EQ(status_of(run, "bob#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_EQ(status_of(run, "bob#2"), "PMIX_SUCCESS");
  std::vector<std::string> bob_daemons, alice_daemons;
  for (const auto& e : events(run, "send", with("msg", "launch_procs"))) {
    if (e["corr"] == "bob#2") bob_daemons.push_back(e["to"]);
    if (e["corr"] == "alice#2") alice_daemons.push_back(e["to"]);
  }
  EXPECT_EQ(bob_daemons, std::vector<std::string>{"daemon:n08"});
  // The session's own job maps onto the withheld nodes.
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  EXPECT_EQ(alice_daemons, std::vector<std::string>{"daemon:n01"});
}

// ---------------------------------------------------------------- PAUSE / RESUME, PREEMPT / RESTORE

TEST_P(SessionControl, PauseStopsOnceAndResumeContinuesOnce) {
  const ScenarioRun run = simulate("session-pause-resume.jsonl");
  expect_all_met(run);
  for (const char* corr : {"alice#2", "alice#3", "alice#4", "alice#5"}) {
    EXPECT_EQ(status_of(run, corr), "PMIX_SUCCESS") << corr;
    EXPECT_EQ(decided_by(run, corr), std::vector<std::string>{"scheduler"}) << corr;
  }
  // Two PAUSEs, one SIGSTOP; two RESUMEs, one SIGCONT.
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 1u);
  EXPECT_EQ(signals(run, "job-1.1", kSigCont), 1u);
  const double stopped = time_of(run, "job.suspend", with("nspace", "job-1.1", "paused", true));
  const double continued = time_of(run, "job.continue", with("nspace", "job-1.1"));
  EXPECT_NEAR(stopped, 5.0, kTol);
  EXPECT_NEAR(continued, 10.0, kTol);
  // Processes keep their slots while stopped.
  json n01 = node_at(run, "n01", 8.0);
  EXPECT_EQ(n01["use"], "busy");
  EXPECT_EQ(n01["sessions"], json::array({1}));
  // The job's end moves by the time it was paused: 30 s of work plus 5 s stopped.
  const double started = job_time(run, "job.start", "job-1.1");
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - started, 30.0 + (continued - stopped), kTol);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
}

TEST_P(SessionControl, PauseAndPreemptShareOneSuspendedState) {
  const ScenarioRun run = simulate("session-pause-preempt-overlap.jsonl");
  expect_all_met(run);
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 1u);  // PAUSE stops; PREEMPT finds it stopped
  EXPECT_EQ(signals(run, "job-1.1", kSigCont), 1u);  // RESUME continues it; RESTORE finds it running
  EXPECT_EQ(count(run, "job.suspend"), 1u);
  EXPECT_NEAR(time_of(run, "procs.signal", with("signal", kSigStop)), 3.0, kTol);
  EXPECT_NEAR(time_of(run, "procs.signal", with("signal", kSigCont)), 7.0, kTol);
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - job_time(run, "job.start", "job-1.1"), 34.0, kTol);
}

TEST_P(SessionControl, PreemptNamedSuspendsOnlyThatJobAndKeepsItsResources) {
  const ScenarioRun run = simulate("session-preempt-named.jsonl");
  expect_all_met(run);
  const auto suspended = events(run, "job.suspend");
  ASSERT_EQ(suspended.size(), 1u);
  EXPECT_EQ(suspended[0]["nspace"], "job-1.2");
  EXPECT_EQ(suspended[0]["preempted"], true);
  EXPECT_EQ(signals(run, "job-1.2", kSigStop), 1u);
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 0u);
  EXPECT_EQ(signals(run, "job-1.2", kSigCont), 1u);
  // The other job runs on and ends on time.
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - job_time(run, "job.start", "job-1.1"), 30.0, kTol);
  // Preempted, job-1.2 keeps its slots: the node stays busy and in the session.
  json n01 = node_at(run, "n01", 35.0);
  EXPECT_EQ(n01["use"], "busy");
  EXPECT_EQ(n01["sessions"], json::array({1}));
  EXPECT_EQ(count(run, "session.reclaimed", [](const json& e) { return e["t"].get<double>() < 40.0; }), 0u);
  // Restored at 40, it finishes its remaining time: 30 s of work plus 35 s preempted.
  EXPECT_NEAR(job_time(run, "job.end", "job-1.2") - job_time(run, "job.start", "job-1.2"), 65.0, kTol);
  const auto done = completes(run, 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_GE(done[0].t, job_time(run, "job.end", "job-1.2"));
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{{"job-1.1", "PMIX_EVENT_JOB_END"},
                                                                            {"job-1.2", "PMIX_EVENT_JOB_END"}}));
}

TEST_P(SessionControl, PreemptAllKeepsTheResourcesUntilTheSessionEnds) {
  const ScenarioRun run = simulate("session-preempt-all.jsonl");
  expect_all_met(run);
  const auto suspended = events(run, "job.suspend");
  ASSERT_EQ(suspended.size(), 1u);
  EXPECT_EQ(suspended[0]["preempted"], true);
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 8u);  // every daemon of the job
  EXPECT_EQ(signals(run, "job-1.1", kSigCont), 8u);
  for (const char* node : {"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08"}) {
    json n = node_at(run, node, 8.0);
    EXPECT_EQ(n["use"], "busy") << node;
    EXPECT_EQ(n["sessions"], json::array({1})) << node;
  }
  // Preemption freed nothing: bob's node is granted only once alice's session has completed.
  const double job_end = job_time(run, "job.end", "job-1.1");
  EXPECT_NEAR(job_end - job_time(run, "job.start", "job-1.1"), 35.0, kTol);
  const double completed = time_of(run, "session.completed", with("corr", "alice#1"));
  const double bob_granted = time_of(run, "alloc.grant", with("corr", "bob#1"));
  EXPECT_GE(bob_granted, completed);
  EXPECT_GT(bob_granted, 30.0);
  EXPECT_EQ(status_of(run, "bob#1"), "PMIX_SUCCESS");
}

// ---------------------------------------------------------------- SIGNAL, TERMINATE

TEST_P(SessionControl, AHarmlessSignalIsDeliveredAndTheJobRunsOn) {
  const ScenarioRun run = simulate("session-signal-harmless.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  EXPECT_EQ(count(run, "job.signal", with("nspace", "job-1.1", "signal", 10)), 1u);
  EXPECT_EQ(signals(run, "job-1.1", 10), 1u);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - job_time(run, "job.start", "job-1.1"), 20.0, kTol);
  const auto done = completes(run, 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{{"job-1.1", "PMIX_EVENT_JOB_END"}}));
}

TEST_P(SessionControl, SigtermKillsTheJobAndCompleteCarriesAbortedBySig) {
  const ScenarioRun run = simulate("session-signal-term.jsonl");
  expect_all_met(run);
  // The first SIGTERM names job-1.2: it alone is signalled and dies; job-1.1 runs on.
  const auto first = events(run, "job.signal", [](const json& e) { return e["t"].get<double>() < 6.0; });
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["nspace"], "job-1.2");
  EXPECT_NEAR(job_time(run, "job.end", "job-1.2"), 5.0, kTol);
  EXPECT_EQ(job_status(run, "job-1.2"), "PMIX_ERR_JOB_ABORTED_BY_SIG");
  // The second names no job: all that are left.
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1"), 10.0, kTol);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_ERR_JOB_ABORTED_BY_SIG");
  const auto done = completes(run, 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{
                              {"job-1.2", "PMIX_ERR_JOB_ABORTED_BY_SIG"}, {"job-1.1", "PMIX_ERR_JOB_ABORTED_BY_SIG"}}));
  EXPECT_EQ(done[0].directives["pmix.alloc.id"], "alloc-1");
}

TEST_P(SessionControl, TerminateContinuesPausedJobsThenKillsAndCompletesOnce) {
  const ScenarioRun run = simulate("session-terminate.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  // Every daemon of a paused job is sent SIGCONT before it is told to kill it.
  std::map<std::string, std::vector<std::string>> to_daemon;  // "daemon|nspace" -> messages in order
  for (const auto& e : events(run, "send", [](const json& e) { return e["who"] == "controller"; })) {
    const auto msg = e.value("msg", "");
    if (msg == "signal_procs" && e["signal"] == kSigCont)
      to_daemon[e["to"].get<std::string>() + "|" + e["nspace"].get<std::string>()].push_back("cont");
    if (msg == "kill_procs")
      to_daemon[e["to"].get<std::string>() + "|" + e["nspace"].get<std::string>()].push_back("kill");
  }
  EXPECT_EQ(to_daemon.size(), 3u);  // job-1.1 on n01 and n02, job-1.2 on one of them
  for (const auto& [target, msgs] : to_daemon) EXPECT_EQ(msgs, (std::vector<std::string>{"cont", "kill"})) << target;
  EXPECT_EQ(count(run, "job.continue"), 2u);
  // Reclaimed once the last job has gone; one COMPLETE, sent after the nodes are free.
  const double last_end = std::max(job_time(run, "job.end", "job-1.1"), job_time(run, "job.end", "job-1.2"));
  const double reclaimed = time_of(run, "session.reclaimed", with("session", 1));
  EXPECT_GE(reclaimed, last_end);
  EXPECT_EQ(count(run, "session.terminate"), 1u);
  EXPECT_EQ(count(run, "session.complete"), 1u);
  const auto done = completes(run);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_GE(done[0].t, reclaimed);
  for (const char* node : {"n01", "n02"}) {
    json n = node_at(run, node, done[0].t);
    EXPECT_EQ(n["use"], "free") << node;
    EXPECT_EQ(n["sessions"], json::array()) << node;
  }
  // Killed by order: each job's end in the COMPLETE, as PRRTE converts its TERMINATED state;
  // the log keeps the cause.
  ASSERT_EQ(done[0].jobs.size(), 2u);
  for (const auto& [nspace, status] : done[0].jobs) {
    EXPECT_EQ(status, "PMIX_EVENT_JOB_END") << nspace;
    EXPECT_EQ(job_status(run, nspace), "PMIX_ERR_JOB_KILLED_BY_CMD") << nspace;
  }
  // Both TERMINATEs answered, at once: the RM answers before its session is reclaimed.
  for (const char* corr : {"alice#4", "alice#5"}) {
    EXPECT_EQ(status_of(run, corr), "PMIX_SUCCESS") << corr;
    EXPECT_LT(time_of(run, "session_ctrl.answer", with("corr", corr, "who", "controller")), reclaimed) << corr;
  }
}

}  // namespace
}  // namespace pmixflow::test::session_conformance
