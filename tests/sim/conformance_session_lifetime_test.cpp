// Conformance, FLOW.md §4: how long a session lives and on what: EXTEND, PMIX_SESSION_SEP, time
// limits, inheritance, child sessions, and preemption ending it early.
#include "conformance_session_support.hpp"

namespace pmixflow::test::session_conformance {
namespace {

// ---------------------------------------------------------------- EXTEND

TEST_P(SessionControl, ExtendAddsNodesGrowingTheDvmAndRearmsTheTimeLimit) {
  const ScenarioRun run = simulate("session-extend-nodes.jsonl");
  expect_all_met(run);
  EXPECT_EQ(instantiated_for(run, "alice#1")["time_limit"], 20);
  json c = call(run, "alice#2");
  EXPECT_EQ(c["status"], "PMIX_SUCCESS");
  EXPECT_EQ(c["info"]["pmix.alloc.nlist"], "n01:8,n02:8");
  // The scheduler's order: PMIX_SESSION_EXTEND with the node and the new limit.
  const auto order = ctrl_sent(run, "alice#2", "scheduler", "controller");
  ASSERT_EQ(order.size(), 1u);
  json d = as_object(order[0]["directives"]);
  EXPECT_EQ(d["pmix.ssn.xtend"], true);
  EXPECT_EQ(d["pmix.alloc.nlist"], "n02:8");
  EXPECT_TRUE(d.contains("pmix.alloc.time"));
  EXPECT_EQ(decided_by(run, "alice#2"), std::vector<std::string>{"scheduler"});
  // The DVM grows across the new node, which belongs to the session.
  EXPECT_EQ(count(run, "dvm.grow", [](const json& e) { return e["alloc"] == "alloc-1" && e["t"].get<double>() > 4.0; }),
            1u);
  const auto ready = events(run, "dvm.ready", [](const json& e) { return e["t"].get<double>() > 4.0; });
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(as_object(ready[0]["info"])["pmix.alloc.id"], "alloc-1");
  json n02 = node_at(run, "n02", ready[0]["t"].get<double>());
  EXPECT_EQ(n02["daemon"], "up");
  EXPECT_EQ(n02["sessions"], json::array({1}));
  const auto extended = events(run, "session.extend", with("session", 1));
  ASSERT_EQ(extended.size(), 1u);
  // PMIX_ALLOC_TIME 50 on the request is the allocation's new total (the PMIx Standard's
  // "total session time"); the scheduler tells the RM what is left, and the RM re-arms the
  // session's limit with it: the session times out at start + 50, not at start + 20. The
  // start is the scheduler's: the instant its pass decided, that of the request's arrival.
  const double started = events(run, "alloc.queued", with("corr", "alice#1")).at(0)["t"].get<double>();
  const double at = extended[0]["t"].get<double>();
  EXPECT_NEAR(extended[0]["time_limit"].get<double>(), started + 50.0 - at, kTol);
  EXPECT_NEAR(time_of(run, "session.timeout", with("session", 1)), started + 50.0, kTol);
  EXPECT_EQ(completes(run, 1u).size(), 1u);
}

TEST_P(SessionControl, ExtendWithPmixTimeoutRearmsTheLimit) {
  const ScenarioRun run = simulate("session-extend-timeout.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  const auto extended = events(run, "session.extend", with("session", 1));
  ASSERT_EQ(extended.size(), 1u);
  EXPECT_EQ(extended[0]["time_limit"], 30);
  // Re-armed from the EXTEND, whatever time the session had used (PRRTE's session_extend()).
  EXPECT_NEAR(time_of(run, "session.timeout", with("session", 1)), extended[0]["t"].get<double>() + 30.0, kTol);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_ERR_TIMEOUT");
  const auto done = completes(run, 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{{"job-1.1", "PMIX_EVENT_JOB_END"}}));
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_ERR_TIMEOUT");
}

TEST_P(SessionControl, ExtendChangesInheritance) {
  const ScenarioRun run = simulate("session-extend-inheritance.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_SUCCESS");
  EXPECT_EQ(count(run, "session.extend", with("session", 1)), 1u);
  // Granted with the default (back to the DVM's pool); extended to NONE: handed back, daemon gone.
  const auto reclaimed = events(run, "session.reclaimed", with("session", 1));
  ASSERT_EQ(reclaimed.size(), 1u);
  EXPECT_EQ(reclaimed[0]["nodes_to"], "scheduler");
  EXPECT_EQ(count(run, "daemon.exit", with("who", "daemon:n01")), 1u);
  EXPECT_EQ(node_at(run, "n01", reclaimed[0]["t"].get<double>())["daemon"], "none");
  for (const auto& e : events(run, "node", with("node", "head"))) EXPECT_EQ(e["daemon"], "up");
}

TEST_P(SessionControl, AnExtendThatChangesNothingIsRefused) {
  const ScenarioRun run = simulate("session-extend-nothing.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_ERR_BAD_PARAM");
  // An inheritance given is recorded, even the one it has: a change (PRRTE's session_extend()).
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  EXPECT_EQ(count(run, "session.extend"), 1u);
  EXPECT_EQ(count(run, "session.timeout"), 0u);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
}

// ---------------------------------------------------------------- SEP

TEST_P(SessionControl, SessionsAreDetachedFromTheirRequestorByDefault) {
  const ScenarioRun run = simulate("session-sep-default.jsonl");
  expect_all_met(run);
  EXPECT_FALSE(instantiated_for(run, "alice#1").contains("sep"));  // the default: detached
  EXPECT_NEAR(time_of(run, "requestor.gone", with("requestor", "alice.0")), 5.0, kTol);
  EXPECT_EQ(count(run, "session.dependent_end"), 0u);
  EXPECT_EQ(count(run, "session.terminate"), 0u);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - job_time(run, "job.start", "job-1.1"), 20.0, kTol);
  EXPECT_EQ(completes(run, 1u).size(), 1u);
}

TEST_P(SessionControl, SepFalseTiesTheSessionToItsRequestorsLifetime) {
  const ScenarioRun run = simulate("session-sep-false.jsonl");
  expect_all_met(run);
  EXPECT_EQ(instantiated_for(run, "alice#1")["sep"], false);
  const auto dependent = events(run, "session.dependent_end");
  ASSERT_EQ(dependent.size(), 1u);
  EXPECT_EQ(dependent[0]["session"], 1);
  EXPECT_EQ(dependent[0]["owner_nspace"], "alice");
  EXPECT_NEAR(dependent[0]["t"].get<double>(), 5.0, kTol);
  // Terminated as TERMINATE would: the job killed, the session reclaimed and completed.
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1"), 5.0, kTol);
  EXPECT_NE(job_status(run, "job-1.1"), "PMIX_SUCCESS");
  const auto done = completes(run, 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_NEAR(done[0].t, 5.0, kTol);
  // bob's session, also tied to bob, lives on: bob did not go away.
  EXPECT_EQ(job_status(run, "job-2.1"), "PMIX_SUCCESS");
  EXPECT_NEAR(job_time(run, "job.end", "job-2.1") - job_time(run, "job.start", "job-2.1"), 20.0, kTol);
}

TEST_P(SessionControl, SepDetachesAloneOrAlongsideAnOperation) {
  const ScenarioRun run = simulate("session-sep-detach.jsonl");
  expect_all_met(run);
  EXPECT_EQ(count(run, "session.sep", with("session", 1, "sep", true)), 1u);
  EXPECT_EQ(count(run, "session.sep", with("session", 2, "sep", true)), 1u);
  // SEP rides along with PAUSE: not two operations, and the PAUSE is carried out.
  EXPECT_EQ(status_of(run, "alice#4"), "PMIX_SUCCESS");
  EXPECT_EQ(count(run, "job.suspend", with("nspace", "job-2.1")), 1u);
  EXPECT_EQ(count(run, "requestor.gone", with("requestor", "alice.0")), 1u);
  EXPECT_EQ(count(run, "session.dependent_end"), 0u);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_SUCCESS");
  EXPECT_EQ(job_status(run, "job-2.1"), "PMIX_SUCCESS");
}

// ---------------------------------------------------------------- lifetime, inheritance, children

TEST_P(SessionControl, AllocTimeExpiringTerminatesTheSession) {
  const ScenarioRun run = simulate("session-time-limit.jsonl");
  expect_all_met(run);
  struct Case {
    const char* corr;
    double limit;
  };
  for (const Case& c : {Case{"alice#1", 10.0}, Case{"bob#1", 60.0}}) {
    json s = instantiated_for(run, c.corr);
    const auto id = s["session"].get<std::uint32_t>();
    EXPECT_EQ(s["time_limit"].get<double>(), c.limit) << c.corr;
    EXPECT_NEAR(time_of(run, "session.timeout", with("session", id)), s["t"].get<double>() + c.limit, kTol) << c.corr;
    EXPECT_EQ(count(run, "session.terminate", with("session", id, "reason", "PMIX_ERR_TIMEOUT")), 1u) << c.corr;
    const auto done = completes(run, id);
    ASSERT_EQ(done.size(), 1u) << c.corr;
    ASSERT_EQ(done[0].jobs.size(), 1u) << c.corr;
    // Killed as a TERMINATE kills: PRRTE reports a job end; the log keeps the cause.
    EXPECT_EQ(done[0].jobs[0].second, "PMIX_EVENT_JOB_END") << c.corr;
    EXPECT_EQ(job_status(run, done[0].jobs[0].first), "PMIX_ERR_TIMEOUT") << c.corr;
  }
  // No limit unless asked: carol's job runs its full 100 s.
  json carol = instantiated_for(run, "carol#1");
  EXPECT_EQ(carol["time_limit"], 0);
  EXPECT_EQ(count(run, "session.timeout", with("session", carol["session"])), 0u);
  const auto done = completes(run, carol["session"].get<std::uint32_t>());
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs.at(0).second, "PMIX_EVENT_JOB_END");
  EXPECT_EQ(job_status(run, done[0].jobs.at(0).first), "PMIX_SUCCESS");
  EXPECT_NEAR(done[0].t, carol["t"].get<double>() + 100.0, 0.1);
}

TEST_P(SessionControl, ALimitExpiringTerminatesTheSessionAsTerminateWould) {
  const ScenarioRun run = simulate("session-timeout.jsonl");
  expect_all_met(run);
  // Session 2 had no limit until EXTEND gave it PMIX_TIMEOUT 5 (seconds, from the EXTEND).
  EXPECT_EQ(instantiated_for(run, "alice#2")["time_limit"], 0);
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  const double extended2 = time_of(run, "session.extend", with("session", 2));
  EXPECT_NEAR(time_of(run, "session.timeout", with("session", 2)), extended2 + 5.0, kTol);
  EXPECT_EQ(job_status(run, "job-2.1"), "PMIX_ERR_TIMEOUT");
  // Session 1, paused, at its PMIX_ALLOC_TIME: continued first, then killed, as by TERMINATE.
  const double start1 = instantiated_for(run, "alice#1")["t"].get<double>();
  const double expired = time_of(run, "session.timeout", with("session", 1));
  EXPECT_NEAR(expired, start1 + 8.0, kTol);
  EXPECT_EQ(count(run, "session.terminate", with("session", 1, "reason", "PMIX_ERR_TIMEOUT")), 1u);
  EXPECT_NEAR(time_of(run, "job.continue", with("nspace", "job-1.1")), expired, kTol);
  std::vector<std::string> to_n01;
  for (const auto& e : events(run, "send", with("to", "daemon:n01"))) {
    if (e["t"].get<double>() < expired) continue;
    if (e["msg"] == "signal_procs") to_n01.push_back("signal " + std::to_string(e["signal"].get<int>()));
    if (e["msg"] == "kill_procs") to_n01.push_back("kill");
  }
  EXPECT_EQ(to_n01, (std::vector<std::string>{"signal 18", "kill"}));
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_ERR_TIMEOUT");
  for (std::uint32_t id : {1u, 2u}) {
    const auto done = completes(run, id);
    ASSERT_EQ(done.size(), 1u) << id;
    ASSERT_EQ(done[0].jobs.size(), 1u) << id;
    EXPECT_EQ(done[0].jobs[0].second, "PMIX_EVENT_JOB_END") << id;
    EXPECT_EQ(job_status(run, done[0].jobs[0].first), "PMIX_ERR_TIMEOUT") << id;
  }
}

TEST_P(SessionControl, InheritanceChildHandsNodesBackButNeverTheControllersNode) {
  const ScenarioRun run = simulate("session-inheritance-handback.jsonl");
  expect_all_met(run);
  std::vector<std::string> reclaimed_to;
  for (const auto& e : events(run, "session.reclaimed")) reclaimed_to.push_back(e["nodes_to"]);
  EXPECT_EQ(reclaimed_to, (std::vector<std::string>{"scheduler", "dvm-pool", "dvm-pool"}));
  EXPECT_EQ(count(run, "daemon.exit"), 8u);  // every daemon of the first session, once
  const double first = time_of(run, "session.reclaimed", with("session", 1));
  for (const char* node : {"n01", "n04", "n08"}) EXPECT_EQ(node_at(run, node, first)["daemon"], "none") << node;
  // The controller's own node never leaves its DVM.
  const auto head = events(run, "node", with("node", "head"));
  ASSERT_FALSE(head.empty());
  for (const auto& e : head) EXPECT_EQ(e["daemon"], "up");
  // The second session grows the DVM again; the default keeps the daemons for the third.
  EXPECT_EQ(count(run, "dvm.grow", with("corr", "r#2", "num_daemons", 8)), 1u);
  EXPECT_EQ(count(run, "dvm.grow", with("corr", "r#3")), 0u);
}

TEST_P(SessionControl, ChildSessionsOutliveTheirParentAndOnlySepFalseTiesOne) {
  const ScenarioRun run = simulate("session-child.jsonl");
  expect_all_met(run);
  // Asked for from inside session 1 (by a process of job-1.1): children of session 1.
  for (const char* corr : {"job-1.1#1", "job-1.1#2", "job-1.1#3"}) {
    EXPECT_EQ(instantiated_for(run, corr)["parent"], 1) << corr;
    EXPECT_EQ(instantiated_for(run, corr)["owner"], "job-1.1.0") << corr;
  }
  EXPECT_EQ(instantiated_for(run, "q#1")["parent"], 0);
  // PRRTE's code links no session to its parent: the child's job runs to its own end, well
  // after the parent is reclaimed, and its COMPLETE says so.
  const double parent_gone = time_of(run, "session.reclaimed", with("session", 1));
  EXPECT_GT(time_of(run, "session.reclaimed", with("session", 2)), parent_gone + 15);
  EXPECT_EQ(job_status(run, "job-2.1"), "PMIX_SUCCESS");
  const auto done = completes(run, 2u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs.at(0).first, "job-2.1");
  // What ends with job-1.1 is the session tied to it by SEP false, when the job ends.
  const auto dependent = events(run, "session.dependent_end");
  ASSERT_EQ(dependent.size(), 1u);
  EXPECT_EQ(dependent[0]["session"], 4);
  EXPECT_EQ(dependent[0]["owner_nspace"], "job-1.1");
  EXPECT_EQ(dependent[0]["parent"], 0);
  EXPECT_DOUBLE_EQ(dependent[0]["t"].get<double>(), time_of(run, "job.end", with("nspace", "job-1.1")));
  // PMIX_ALLOC_CHILD_SEP (3) and the unrelated session (5) live on.
  for (int s : {3, 5}) EXPECT_EQ(count(run, "session.reclaimed", with("session", s)), 0u) << s;
}

TEST_P(SessionControl, PreemptionTerminatesPreemptibleSessionsOfLowerPriorityAndRequeuesThem) {
  const ScenarioRun run = simulate("preempt-priority.jsonl");
  expect_all_met(run);
  // 'boss' (urgent, 24 cpus) finds the machine full: the scavenger session (16) and the batch
  // session started last (8) are terminated; the other batch session and the one that was not
  // granted PMIX_ALLOC_PREEMPTIBLE keep running.
  const auto preempted = events(run, "alloc.preempt");
  ASSERT_EQ(preempted.size(), 2u);
  EXPECT_EQ(preempted[0]["corr"], "low#1");
  EXPECT_EQ(preempted[1]["corr"], "mid2#1");
  // The scheduler orders the RM with a TERMINATE (PREEMPT would keep the nodes, FLOW.md §4):
  // after the INSTANTIATE, one more session control for each, to its session.
  for (const auto& [corr, session] : {std::pair{"low#1", 2}, std::pair{"mid2#1", 4}}) {
    const auto orders = ctrl_sent(run, corr, "scheduler", "controller");
    ASSERT_EQ(orders.size(), 3u) << corr;  // instantiate, terminate, instantiate again
    EXPECT_EQ(orders[1]["session"], session) << corr;
    const json directives = as_object(orders[1]["directives"]);
    EXPECT_EQ(directives.value("pmix.ssn.terminate", false), true) << corr;
    EXPECT_FALSE(directives.contains("pmix.ssn.preempt")) << corr;
  }
  // Boss starts once both sessions are complete, not before.
  const double boss = time_of(run, "alloc.grant", with("corr", "boss#1"));
  for (const char* corr : {"low#1", "mid2#1"}) {
    const auto done = events(run, "session.completed", with("corr", corr));
    ASSERT_EQ(done.size(), 2u) << corr;  // preempted, then run to the end
    EXPECT_LE(done[0]["t"].get<double>(), boss) << corr;
    EXPECT_EQ(count(run, "alloc.requeued", with("corr", corr)), 1u) << corr;
    // Granted again after boss: a new session, the same request.
    const auto grants = events(run, "alloc.grant", with("corr", corr));
    ASSERT_EQ(grants.size(), 2u) << corr;
    EXPECT_GT(grants[1]["t"].get<double>(), boss + 30) << corr;
  }
  // What was lost: 8 s on 16 cpus and 6 s on 8, as recorded per allocation.
  for (const auto& a : run.summary["allocations"]) {
    const std::string corr = a["corr"];
    const double lost = a["lost_cpu_s"].get<double>();
    if (corr == "low#1")
      EXPECT_NEAR(lost, 8 * 16, 0.1);
    else if (corr == "mid2#1")
      EXPECT_NEAR(lost, 6 * 8, 0.1);
    else
      EXPECT_EQ(lost, 0) << corr;
  }
  EXPECT_EQ(run.summary["preemptions"], 2);
  EXPECT_EQ(count(run, "alloc.preempt", with("corr", "keeper#1")) + count(run, "alloc.preempt", with("corr", "mid#1")),
            0u);
}

}  // namespace
}  // namespace pmixflow::test::session_conformance
