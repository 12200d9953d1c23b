// The flow as a user follows it in the event log: the exact hops of each entry point, both
// attachment orders, a scheduler leaving with requests in flight, and a session from
// instantiation to completion. Each test runs a scenario of tests/scenarios/ through the
// real `pmixflow` in every environment (environments.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "environments.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

struct ScenarioRun {
  std::vector<json> events;
  json summary;
};

ScenarioRun run_scenario(const Environment& env, const std::string& scenario, std::vector<std::string> extra = {}) {
  const auto dir = scratch_dir(scenario);
  const auto r = run_pmixflow(scenario_command(env, source_path("tests/scenarios/" + scenario), dir, extra));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  ScenarioRun run;
  run.events = read_events(dir / "events.jsonl");
  run.summary = json::parse(slurp(dir / "summary.json"));
  std::filesystem::remove_all(dir);
  return run;
}

// Each test runs its scenario in every environment (environments.hpp).
class FlowScenarioTest : public ::testing::TestWithParam<Environment> {
 protected:
  ScenarioRun simulate(const std::string& scenario, std::vector<std::string> extra = {}) {
    return run_scenario(GetParam(), scenario, std::move(extra));
  }
};
PMIXFLOW_SCENARIO_SUITE(FlowScenario, FlowScenarioTest);

std::vector<std::string> hops(const ScenarioRun& run, const std::string& corr) { return sent_hops(run.events, corr); }

std::vector<std::string> kinds(const ScenarioRun& run, const std::vector<std::string>& wanted) {
  std::vector<std::string> out;
  for (const auto& e : run.events) {
    const auto ev = e.value("ev", "");
    if (std::find(wanted.begin(), wanted.end(), ev) != wanted.end())
      out.push_back(e["who"].get<std::string>() + ":" + ev);
  }
  return out;
}

const json& call(const ScenarioRun& run, const std::string& corr) {
  for (const auto& c : run.summary["calls"])
    if (c["corr"] == corr) return c;
  static const json none;
  ADD_FAILURE() << "no call " << corr;
  return none;
}

json info_of(const json& send_event) {
  json out = json::object();
  for (const auto& kv : send_event.value("info", json::array())) out[kv[0].get<std::string>()] = kv[1];
  return out;
}

const std::vector<std::string> kSessionTail{
    "controller>scheduler:session_ctrl",  // PMIX_SESSION_COMPLETE once the job is gone
    "scheduler>controller:session_ctrl_response",
};

TEST_P(FlowScenario, ThroughADaemonTheRequestIsRelayedAndTheAnswerRoutedBack) {
  const ScenarioRun run = simulate("entry-daemon.jsonl");
  std::vector<std::string> expected{
      "requestor:r>daemon:n01:alloc_request",  // PMIx_Allocation_request at the daemon
      "daemon:n01>controller:alloc_request",   // relayed unchanged (tag SCHED)
      "controller>scheduler:alloc_request",    // PMIX_REQUESTOR added
      "scheduler>controller:session_ctrl",     // PMIX_SESSION_INSTANTIATE
      "controller>daemon:n01:launch_procs",    // the session's job
      "controller>scheduler:session_ctrl_response",
      "scheduler>controller:alloc_response",   // the answer, back the way it came
      "controller>daemon:n01:alloc_response",  // tag SCHED_RESP
      "daemon:n01>requestor:r:alloc_response",
  };
  expected.insert(expected.end(), kSessionTail.begin(), kSessionTail.end());
  EXPECT_EQ(hops(run, "r#1"), expected);
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_SUCCESS");
  EXPECT_EQ(call(run, "r#1")["info"]["pmix.alloc.id"], "alloc-1");
}

TEST_P(FlowScenario, OnlyTheControllerAddsTheRequestor) {
  const ScenarioRun run = simulate("entry-daemon.jsonl");
  std::vector<json> requests;
  for (const auto& e : run.events)
    if (e.value("ev", "") == "send" && e.value("msg", "") == "alloc_request") requests.push_back(e);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_FALSE(info_of(requests[0]).contains("pmix.requestor"));
  EXPECT_FALSE(info_of(requests[1]).contains("pmix.requestor"));  // the daemon decides nothing
  EXPECT_EQ(info_of(requests[2])["pmix.requestor"], "r.0");
}

TEST_P(FlowScenario, AtTheControllerTheRequestIsForwardedWithItsRequestor) {
  const ScenarioRun run = simulate("entry-controller.jsonl");
  std::vector<std::string> expected{
      "requestor:r>controller:alloc_request",
      "controller>scheduler:alloc_request",
      "scheduler>controller:session_ctrl",
      "controller>daemon:n01:launch_procs",
      // The session's requestor, r, hears that the DVM spans its nodes (PRRTE's grow of every
      // node list, needing no daemon here: docs/prrte-conformance.md R41, R43).
      "controller>requestor:r:notify",
      "controller>scheduler:session_ctrl_response",
      "scheduler>controller:alloc_response",
      "controller>requestor:r:alloc_response",
  };
  expected.insert(expected.end(), kSessionTail.begin(), kSessionTail.end());
  EXPECT_EQ(hops(run, "r#1"), expected);
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_SUCCESS");
}

TEST_P(FlowScenario, DirectlyAtTheSchedulerTheRmLearnsOnlyThroughSessionControl) {
  const ScenarioRun run = simulate("entry-scheduler.jsonl");
  std::vector<std::string> expected{
      "requestor:r>scheduler:alloc_request",  "scheduler>controller:session_ctrl",
      "controller>daemon:n01:launch_procs",   "controller>scheduler:session_ctrl_response",
      "scheduler>requestor:r:alloc_response",
  };
  expected.insert(expected.end(), kSessionTail.begin(), kSessionTail.end());
  EXPECT_EQ(hops(run, "r#1"), expected);
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_SUCCESS");
}

TEST_P(FlowScenario, SchedulerFirstTheRmConnectsWhenItStarts) {
  const ScenarioRun run = simulate("attach-scheduler-first.jsonl");
  EXPECT_EQ(kinds(run, {"rm.absent", "scheduler.absent", "scheduler.attached", "request.held"}),
            (std::vector<std::string>{"scheduler:rm.absent", "scheduler:scheduler.attached",
                                      "controller:scheduler.attached"}));
  for (const auto& e : run.events) {
    if (e.value("ev", "") == "scheduler.attached") {
      EXPECT_EQ(e["how"], "rm-connected");
    }
  }
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_SUCCESS");
}

TEST_P(FlowScenario, RmFirstRequestsAreHeldUntilTheSchedulerAttaches) {
  const ScenarioRun run = simulate("attach-rm-first.jsonl");
  EXPECT_EQ(kinds(run, {"scheduler.absent", "request.held", "scheduler.attached", "request.forward"}),
            (std::vector<std::string>{"controller:scheduler.absent", "controller:request.held",
                                      "controller:scheduler.attached", "controller:request.forward",
                                      "scheduler:scheduler.attached"}));
  const json& c = call(run, "r#1");
  EXPECT_EQ(c["status"], "PMIX_SUCCESS");
  EXPECT_GE(c["answered"].get<double>(), 2.0);  // not before the scheduler came at t=2
}

TEST_P(FlowScenario, WithoutASchedulerARefusingRunAnswersAtOnce) {
  const ScenarioRun run = simulate("refuse-without-scheduler.jsonl");
  EXPECT_EQ(kinds(run, {"request.refused", "request.held"}), (std::vector<std::string>{"controller:request.refused"}));
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_ERR_NOT_SUPPORTED");
}

TEST_P(FlowScenario, ADetachingSchedulerLeavesNoRequestorHanging) {
  const ScenarioRun run = simulate("detach-in-flight.jsonl");
  for (const char* corr : {"a#1", "b#1", "c#1", "d#1"}) {
    const json& c = call(run, corr);
    EXPECT_EQ(c["status"], "PMIX_ERR_UNREACH") << corr;
    EXPECT_TRUE(c.contains("answered")) << corr;
  }
  EXPECT_EQ(run.summary["expectations"]["failed"], 0);
  // The request relayed through a daemon gets its error back through that daemon.
  const auto relayed = hops(run, "a#1");
  EXPECT_EQ(relayed.back(), "daemon:n01>requestor:a:alloc_response");
  EXPECT_EQ(kinds(run, {"scheduler.detached"}), (std::vector<std::string>{"controller:scheduler.detached"}));
}

TEST_P(FlowScenario, ASessionGoesFromInstantiateToComplete) {
  const ScenarioRun run = simulate("session-lifecycle.jsonl");
  EXPECT_EQ(
      kinds(run, {"alloc.grant", "session.instantiate", "dvm.grow", "job.fenced", "daemon.up", "dvm.ready",
                  "job.launch", "job.start", "job.end", "session.reclaimed", "session.complete", "session.completed"}),
      (std::vector<std::string>{"scheduler:alloc.grant", "controller:session.instantiate", "controller:dvm.grow",
                                "controller:job.fenced", "daemon:n01:daemon.up", "daemon:n02:daemon.up",
                                "controller:dvm.ready", "controller:job.launch", "controller:job.start",
                                "controller:job.end", "controller:session.reclaimed", "controller:session.complete",
                                "scheduler:session.completed"}));
  // The one COMPLETE carries the session, the allocation and one job-info array per job.
  int completes = 0;
  for (const auto& e : run.events) {
    if (e.value("ev", "") != "send" || e.value("msg", "") != "session_ctrl" || e["who"] != "controller") continue;
    ++completes;
    json d = json::object();
    std::vector<json> jobs;
    for (const auto& kv : e["directives"]) {
      if (kv[0] == "pmix.job.arr") {
        jobs.push_back(kv[1]);
      } else {
        d[kv[0].get<std::string>()] = kv[1];
      }
    }
    EXPECT_EQ(d["pmix.ssn.complete"], true);
    EXPECT_EQ(d["pmix.session.id"], 1);
    EXPECT_EQ(d["pmix.alloc.id"], "alloc-1");
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs[0][0], json::array({"pmix.nspace", "job-1.1"}));
    EXPECT_EQ(jobs[0][1], json::array({"pmix.job.term.status", "PMIX_EVENT_JOB_END"}));
  }
  EXPECT_EQ(completes, 1);
  // The job ran its 30 s only after the daemons were up, and COMPLETE followed its end.
  double start = -1, end = -1, ready = -1;
  for (const auto& e : run.events) {
    const auto ev = e.value("ev", "");  // the header line has none
    if (ev == "dvm.ready") ready = e["t"];
    if (ev == "job.start") start = e["t"];
    if (ev == "job.end") end = e["t"];
  }
  EXPECT_GT(start, ready);
  EXPECT_NEAR(end - start, 30.0, 0.01);
}

TEST_P(FlowScenario, AReleasedReservationIsTerminatedAndCompletedWithoutJobs) {
  const ScenarioRun run = simulate("reservation-release.jsonl");
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_SUCCESS");
  EXPECT_EQ(call(run, "r#2")["status"], "PMIX_SUCCESS");
  EXPECT_EQ(kinds(run, {"session.terminate", "session.reclaimed", "session.complete", "session.completed"}),
            (std::vector<std::string>{"controller:session.terminate", "controller:session.reclaimed",
                                      "controller:session.complete", "scheduler:session.completed"}));
  const auto& alloc = run.summary["allocations"][0];
  EXPECT_NEAR(alloc["ended"].get<double>(), 5.0, 0.01);
  EXPECT_TRUE(alloc["jobs"].empty());
}

TEST_P(FlowScenario, TheDemoMeetsEveryExpectation) {
  const auto dir = scratch_dir("demo");
  const auto r = run_pmixflow({"sim", "--out", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto summary = json::parse(slurp(dir / "summary.json"));
  EXPECT_EQ(summary["expectations"]["checked"], 8);
  EXPECT_EQ(summary["expectations"]["failed"], 0);
  std::filesystem::remove_all(dir);
}

TEST_P(FlowScenario, TheSameInputsGiveAByteIdenticalEventLog) {
  const auto a = scratch_dir("a"), b = scratch_dir("b");
  ASSERT_EQ(run_pmixflow({"sim", "--out", a.string(), "--quiet"}).exit_code, 0);
  ASSERT_EQ(run_pmixflow({"sim", "--out", b.string(), "--quiet"}).exit_code, 0);
  const auto log_a = comparable_log(a / "events.jsonl");
  EXPECT_GT(log_a.size(), 10000u);
  EXPECT_EQ(log_a, comparable_log(b / "events.jsonl"));
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

// Whether an idle daemon's actor waits parked or ends is the simulator's own cost: a daemon
// woken by a message must act at the same instants, in the same order, either way. The
// scenarios have daemons going idle after a timer, after a message, and dying under it.
TEST_P(FlowScenario, KeepingIdleDaemonActorsChangesNoEvent) {
  for (const std::string scenario : {"session-timeout.jsonl", "fail-node-down.jsonl", "entry-daemon.jsonl"}) {
    const auto parked = scratch_dir("parked"), ended = scratch_dir("ended"), one = scratch_dir("one");
    const std::string path = source_path("tests/scenarios/" + scenario);
    for (const auto& [dir, idle] : {std::pair{parked, "4096"}, std::pair{ended, "0"}, std::pair{one, "1"}})
      ASSERT_EQ(
          run_pmixflow({"sim", "--scenario", path, "--out", dir.string(), "--quiet", "--idle-actors", idle}).exit_code,
          0)
          << scenario;
    const auto log = comparable_log(parked / "events.jsonl");
    EXPECT_EQ(log, comparable_log(ended / "events.jsonl")) << scenario;
    EXPECT_EQ(log, comparable_log(one / "events.jsonl")) << scenario;
    for (const auto& dir : {parked, ended, one}) std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace pmixflow::test

namespace pmixflow::test {
namespace {

TEST_P(FlowScenario, TheSeedDrawsTheStartUpSpreadAndOnlyTheSeed) {
  const auto a = scratch_dir("a"), b = scratch_dir("b"), c = scratch_dir("c");
  const std::string scenario = source_path("tests/scenarios/session-lifecycle.jsonl");
  for (const auto& [dir, seed] : {std::pair{a, "1"}, std::pair{b, "1"}, std::pair{c, "2"}})
    ASSERT_EQ(run_pmixflow(
                  {"sim", "--scenario", scenario, "--jitter", "0.5", "--seed", seed, "--out", dir.string(), "--quiet"})
                  .exit_code,
              0);
  EXPECT_EQ(comparable_log(a / "events.jsonl"), comparable_log(b / "events.jsonl"));
  EXPECT_NE(comparable_log(a / "events.jsonl"), comparable_log(c / "events.jsonl"));
  // The two daemons no longer come up at the same instant.
  double first = -1, second = -1;
  for (const auto& e : read_events(c / "events.jsonl")) {
    if (e.value("ev", "") != "daemon.up") continue;
    (first < 0 ? first : second) = e["t"].get<double>();
  }
  EXPECT_NE(first, second);
  for (const auto& d : {a, b, c}) std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace pmixflow::test

namespace pmixflow::test {
namespace {

TEST_P(FlowScenario, InheritanceNoneHandsNodesBackWithoutDaemons) {
  const ScenarioRun run = simulate("inheritance-none.jsonl");
  EXPECT_EQ(call(run, "r#1")["status"], "PMIX_SUCCESS");
  EXPECT_EQ(call(run, "r#2")["status"], "PMIX_SUCCESS");
  std::vector<std::string> reclaimed_to;
  int exits = 0, grows = 0;
  for (const auto& e : run.events) {
    const auto ev = e.value("ev", "");
    if (ev == "session.reclaimed") reclaimed_to.push_back(e["nodes_to"]);
    if (ev == "daemon.exit") ++exits;
    if (ev == "dvm.grow") ++grows;
  }
  EXPECT_EQ(reclaimed_to, (std::vector<std::string>{"scheduler", "dvm-pool"}));
  EXPECT_EQ(exits, 2);  // both daemons of the first session went away
  EXPECT_EQ(grows, 2);  // so the second session had to grow the DVM again
}

}  // namespace
}  // namespace pmixflow::test
