// Conformance, FLOW.md §4 "Session control": one test per scenario of
// tests/scenarios/session-*.jsonl, each run through the real `pmixflow` in every environment. A test checks the
// answers the scenario expects (the `expect` statuses, and the specific ones again here) and
// the events that prove the behaviour: the signals the daemons received, the time a job ended,
// who decided, the COMPLETE the scheduler was sent.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "environments.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

constexpr int kSigCont = 18;
constexpr int kSigStop = 19;
constexpr double kTol = 0.01;  // seconds: message latencies are microseconds

struct ScenarioRun {
  int exit_code = -1;
  std::vector<json> events;
  json summary;
};

ScenarioRun run_scenario(const Environment& env, const std::string& scenario) {
  const auto dir = scratch_dir(scenario);
  const auto r = run_pmixflow(scenario_command(env, source_path("tests/scenarios/" + scenario), dir));
  ScenarioRun run;
  run.exit_code = r.exit_code;
  EXPECT_EQ(r.exit_code, 0) << scenario << ": " << r.err << r.out;
  run.events = read_events(dir / "events.jsonl");
  run.summary = std::filesystem::exists(dir / "summary.json")
                    ? json::parse(slurp(dir / "summary.json"))
                    : json{{"calls", json::array()}, {"allocations", json::array()}, {"expectations", json::object()}};
  std::filesystem::remove_all(dir);
  return run;
}

// Each test runs its scenario in every environment (environments.hpp).
class SessionConformance : public ::testing::TestWithParam<Environment> {
 protected:
  ScenarioRun simulate(const std::string& scenario) { return run_scenario(GetParam(), scenario); }
};
PMIXFLOW_SCENARIO_SUITE(SessionControl, SessionConformance);

// Every `expect` of the scenario held.
void expect_all_met(const ScenarioRun& run) {
  ASSERT_TRUE(run.summary.contains("expectations"));
  EXPECT_GT(run.summary["expectations"]["checked"].get<int>(), 0);
  EXPECT_EQ(run.summary["expectations"]["failed"], 0) << run.summary["expectations"].dump();
}

using Pred = std::function<bool(const json&)>;

std::vector<json> events(const ScenarioRun& run, const std::string& ev, const Pred& pred = nullptr) {
  std::vector<json> out;
  for (const auto& e : run.events)
    if (e.value("ev", "") == ev && (!pred || pred(e))) out.push_back(e);
  return out;
}

std::size_t count(const ScenarioRun& run, const std::string& ev, const Pred& pred = nullptr) {
  return events(run, ev, pred).size();
}

// The time of the only event matching; fails the test when there is not exactly one.
double time_of(const ScenarioRun& run, const std::string& ev, const Pred& pred = nullptr) {
  const auto found = events(run, ev, pred);
  EXPECT_EQ(found.size(), 1u) << "events " << ev;
  return found.empty() ? -1.0 : found.front()["t"].get<double>();
}

Pred with(const std::string& field, const json& value) {
  return [field, value](const json& e) { return e.contains(field) && e[field] == value; };
}

Pred with(const std::string& f1, const json& v1, const std::string& f2, const json& v2) {
  return [=](const json& e) { return e.contains(f1) && e[f1] == v1 && e.contains(f2) && e[f2] == v2; };
}

// A copy: a test may look up a key the answer lacks without tripping the const accessor.
json call(const ScenarioRun& run, const std::string& corr) {
  for (const auto& c : run.summary["calls"])
    if (c["corr"] == corr) return c;
  ADD_FAILURE() << "no call " << corr;
  return json::object();
}

std::string status_of(const ScenarioRun& run, const std::string& corr) {
  return call(run, corr).value("status", "none");
}

std::vector<std::string> hops(const ScenarioRun& run, const std::string& corr) { return sent_hops(run.events, corr); }

// An info array [[key, value], ...] as an object (the last value of a key wins).
json as_object(const json& pairs) {
  json out = json::object();
  for (const auto& kv : pairs) out[kv[0].get<std::string>()] = kv[1];
  return out;
}

// The session-control messages `who` sent to `to` for one request.
std::vector<json> ctrl_sent(const ScenarioRun& run, const std::string& corr, const std::string& who,
                            const std::string& to) {
  return events(run, "send", [&](const json& e) {
    return e.value("msg", "") == "session_ctrl" && e.value("corr", "") == corr && e["who"] == who && e["to"] == to;
  });
}

// How many times the daemons were given `signal` for `nspace` (procs.signal: one per daemon).
std::size_t signals(const ScenarioRun& run, const std::string& nspace, int signal) {
  return count(run, "procs.signal", with("nspace", nspace, "signal", signal));
}

// One PMIX_SESSION_COMPLETE the controller sent the scheduler.
struct Complete {
  double t = -1;
  json directives;                                        // everything but the job arrays
  std::vector<std::pair<std::string, std::string>> jobs;  // nspace, PMIX_JOB_TERM_STATUS
};

std::vector<Complete> completes(const ScenarioRun& run, std::optional<std::uint32_t> session = std::nullopt) {
  std::vector<Complete> out;
  for (const auto& e : run.events) {
    if (e.value("ev", "") != "send" || e.value("msg", "") != "session_ctrl" || e["who"] != "controller" ||
        e["to"] != "scheduler")
      continue;
    Complete c;
    c.t = e["t"].get<double>();
    c.directives = json::object();
    for (const auto& kv : e["directives"]) {
      if (kv[0] == "pmix.job.arr") {
        const json job = as_object(kv[1]);
        c.jobs.emplace_back(job.value("pmix.nspace", ""), job.value("pmix.job.term.status", ""));
      } else {
        c.directives[kv[0].get<std::string>()] = kv[1];
      }
    }
    if (c.directives.value("pmix.ssn.complete", false) != true) continue;
    if (session && c.directives.value("pmix.session.id", 0u) != *session) continue;
    out.push_back(std::move(c));
  }
  return out;
}

// The node as the controller last logged it at or before time t.
json node_at(const ScenarioRun& run, const std::string& node, double t) {
  json last;
  for (const auto& e : run.events)
    if (e.value("ev", "") == "node" && e["node"] == node && e["t"].get<double>() <= t) last = e;
  return last;
}

double job_time(const ScenarioRun& run, const std::string& what, const std::string& nspace) {
  return time_of(run, what, with("nspace", nspace));
}

std::string job_status(const ScenarioRun& run, const std::string& nspace) {
  const auto ends = events(run, "job.end", with("nspace", nspace));
  EXPECT_EQ(ends.size(), 1u) << nspace;
  return ends.empty() ? "" : ends.front()["status"].get<std::string>();
}

// The session a request's instantiation created.
json instantiated_for(const ScenarioRun& run, const std::string& corr) {
  const auto found = events(run, "session.instantiate", with("corr", corr));
  EXPECT_EQ(found.size(), 1u) << corr;
  return found.empty() ? json::object() : found.front();
}

std::vector<std::string> decided_by(const ScenarioRun& run, const std::string& corr) {
  std::vector<std::string> out;
  for (const auto& e : events(run, "session_ctrl.execute", with("corr", corr))) out.push_back(e["decided_by"]);
  return out;
}

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
  // Withheld for the session before its job runs there.
  json n01 = node_at(run, "n01", ready[0]["t"].get<double>());
  EXPECT_EQ(n01["use"], "withheld");
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

TEST_P(SessionControl, PausedAndPreemptedIsStoppedOnceAndContinuedWhenNeitherHolds) {
  const ScenarioRun run = simulate("session-pause-preempt-overlap.jsonl");
  expect_all_met(run);
  EXPECT_EQ(signals(run, "job-1.1", kSigStop), 1u);  // PAUSE stops; PREEMPT finds it stopped
  EXPECT_EQ(signals(run, "job-1.1", kSigCont), 1u);  // RESUME leaves it preempted; RESTORE continues
  EXPECT_EQ(count(run, "job.suspend"), 1u);
  EXPECT_NEAR(time_of(run, "procs.signal", with("signal", kSigStop)), 3.0, kTol);
  EXPECT_NEAR(time_of(run, "procs.signal", with("signal", kSigCont)), 10.0, kTol);
  EXPECT_NEAR(job_time(run, "job.end", "job-1.1") - job_time(run, "job.start", "job-1.1"), 37.0, kTol);
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
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{{"job-1.1", "PMIX_SUCCESS"},
                                                                            {"job-1.2", "PMIX_SUCCESS"}}));
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
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{{"job-1.1", "PMIX_SUCCESS"}}));
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
  // Each job's status as it ended, and not a success.
  ASSERT_EQ(done[0].jobs.size(), 2u);
  for (const auto& [nspace, status] : done[0].jobs) {
    EXPECT_EQ(status, job_status(run, nspace)) << nspace;
    EXPECT_NE(status, "PMIX_SUCCESS") << nspace;
  }
  // Both TERMINATEs answered, and only once the session was reclaimed.
  for (const char* corr : {"alice#4", "alice#5"}) {
    EXPECT_EQ(status_of(run, corr), "PMIX_SUCCESS") << corr;
    EXPECT_GE(call(run, corr)["answered"].get<double>(), reclaimed) << corr;
  }
}

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
  EXPECT_EQ(extended[0]["time_limit"], 50);
  // Re-armed: the session times out at start + 50, not at start + 20.
  const double started = instantiated_for(run, "alice#1")["t"].get<double>();
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
  const double started = instantiated_for(run, "alice#1")["t"].get<double>();
  EXPECT_NEAR(time_of(run, "session.timeout", with("session", 1)), started + 30.0, kTol);
  EXPECT_EQ(job_status(run, "job-1.1"), "PMIX_ERR_TIMEOUT");
  const auto done = completes(run, 1u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs, (std::vector<std::pair<std::string, std::string>>{{"job-1.1", "PMIX_ERR_TIMEOUT"}}));
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
  for (const char* corr : {"alice#2", "alice#3", "alice#4"})
    EXPECT_EQ(status_of(run, corr), "PMIX_ERR_BAD_PARAM") << corr;
  EXPECT_EQ(count(run, "session.extend"), 0u);
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

// ---------------------------------------------------------------- refusals and rules

TEST_P(SessionControl, CompleteIsNeverAcceptedByTheRm) {
  const ScenarioRun run = simulate("session-complete-refused.jsonl");
  expect_all_met(run);
  EXPECT_EQ(status_of(run, "alice#2"), "PMIX_ERR_NOT_SUPPORTED");
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_ERR_NOT_SUPPORTED");
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
  EXPECT_EQ(status_of(run, "u#2"), "PMIX_ERR_NOT_SUPPORTED");
  EXPECT_EQ(decided_by(run, "u#2"), std::vector<std::string>{"controller"});
  EXPECT_EQ(count(run, "session.terminate"), 0u);
  const std::string job = "job-2147483648.1";
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
  EXPECT_EQ(decided_by(run, "u#4"), std::vector<std::string>{"controller"});
  EXPECT_EQ(count(run, "session_ctrl.execute", with("corr", "u#4", "session", 4294967295u)), 1u);
  std::vector<std::string> suspended;
  for (const auto& e : events(run, "job.suspend")) suspended.push_back(e["nspace"]);
  EXPECT_EQ(suspended, (std::vector<std::string>{"job-2147483648.1", "job-2147483649.1"}));  // u's two sessions
  EXPECT_EQ(count(run, "job.continue"), 2u);
  // v's session and u's job in the DVM's general pool are untouched.
  for (const char* ns : {"job-2147483650.1", "job-dvm.1"}) {
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
  for (const char* corr : {"u#2", "u#3", "u#4", "u#5", "u#6"}) {
    EXPECT_EQ(status_of(run, corr), "PMIX_ERR_NOT_SUPPORTED") << corr;
    EXPECT_EQ(decided_by(run, corr), std::vector<std::string>{"controller"}) << corr;
  }
  EXPECT_EQ(count(run, "session.extend"), 0u);
  EXPECT_EQ(count(run, "dvm.grow", [](const json& e) { return e["t"].get<double>() > 1.0; }), 0u);
  EXPECT_EQ(job_status(run, "job-2147483648.1"), "PMIX_SUCCESS");
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
  const std::string job = "job-2147483648.1";  // the DVM's own grant to u, from its pool
  EXPECT_EQ(instantiated_for(run, "u#1")["owner"], "u.0");
  for (const char* corr : {"u#2", "u#3", "v#1", "v#2"})
    EXPECT_EQ(decided_by(run, corr), std::vector<std::string>{"controller"}) << corr;
  EXPECT_EQ(count(run, "send", [](const json& e) { return e["to"] == "scheduler" && e["msg"] == "session_ctrl"; }), 0u);
  EXPECT_EQ(status_of(run, "v#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(status_of(run, "v#2"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(status_of(run, "u#2"), "PMIX_SUCCESS");
  EXPECT_EQ(status_of(run, "u#3"), "PMIX_SUCCESS");
  // Only the owner's PAUSE and RESUME acted; the RESUME came relayed through a daemon.
  EXPECT_NEAR(time_of(run, "job.suspend", with("nspace", job)), 6.0, kTol);
  EXPECT_NEAR(time_of(run, "job.continue", with("nspace", job)), 8.0, kTol);
  EXPECT_EQ(count(run, "session_ctrl.relay", with("corr", "u#3", "who", "daemon:n02")), 1u);
  EXPECT_EQ(hops(run, "u#3").back(), "daemon:n02>requestor:u:session_ctrl_response");
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
    EXPECT_EQ(done[0].jobs[0].second, "PMIX_ERR_TIMEOUT") << c.corr;
  }
  // No limit unless asked: carol's job runs its full 100 s.
  json carol = instantiated_for(run, "carol#1");
  EXPECT_EQ(carol["time_limit"], 0);
  EXPECT_EQ(count(run, "session.timeout", with("session", carol["session"])), 0u);
  const auto done = completes(run, carol["session"].get<std::uint32_t>());
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs.at(0).second, "PMIX_SUCCESS");
  EXPECT_NEAR(done[0].t, carol["t"].get<double>() + 100.0, 0.1);
}

TEST_P(SessionControl, ALimitExpiringTerminatesTheSessionAsTerminateWould) {
  const ScenarioRun run = simulate("session-timeout.jsonl");
  expect_all_met(run);
  // Session 2 had no limit until EXTEND gave it PMIX_TIMEOUT 5 (seconds, from its start).
  const double start2 = instantiated_for(run, "alice#2")["t"].get<double>();
  EXPECT_EQ(instantiated_for(run, "alice#2")["time_limit"], 0);
  EXPECT_EQ(status_of(run, "alice#3"), "PMIX_SUCCESS");
  EXPECT_NEAR(time_of(run, "session.timeout", with("session", 2)), start2 + 5.0, kTol);
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
    EXPECT_EQ(done[0].jobs[0].second, "PMIX_ERR_TIMEOUT") << id;
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

TEST_P(SessionControl, ChildSessionsEndWithTheirParentUnlessSeparated) {
  const ScenarioRun run = simulate("session-child.jsonl");
  expect_all_met(run);
  // Asked for from inside session 1 (by a process of job-1.1): children of session 1.
  for (const char* corr : {"job-1.1#1", "job-1.1#2", "job-1.1#3"}) {
    EXPECT_EQ(instantiated_for(run, corr)["parent"], 1) << corr;
    EXPECT_EQ(instantiated_for(run, corr)["owner"], "job-1.1.0") << corr;
  }
  EXPECT_EQ(instantiated_for(run, "q#1")["parent"], 0);
  // When session 1 is reclaimed, only the child not separated ends with it.
  const double parent_gone = time_of(run, "session.reclaimed", with("session", 1));
  const auto dependent = events(run, "session.dependent_end");
  ASSERT_EQ(dependent.size(), 1u);
  EXPECT_EQ(dependent[0]["session"], 2);
  EXPECT_EQ(dependent[0]["parent"], 1);
  EXPECT_GE(dependent[0]["t"].get<double>(), parent_gone);
  EXPECT_NE(job_status(run, "job-2.1"), "PMIX_SUCCESS");
  const auto done = completes(run, 2u);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].jobs.at(0).first, "job-2.1");
  EXPECT_NE(done[0].jobs.at(0).second, "PMIX_SUCCESS");
  // PMIX_ALLOC_CHILD_SEP (3), SEP (4) and the unrelated session (5) live on.
  for (int s : {3, 4, 5}) EXPECT_EQ(count(run, "session.reclaimed", with("session", s)), 0u) << s;
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
}  // namespace pmixflow::test
