// What the conformance tests of FLOW.md §4 "Session control" share: running one scenario of
// tests/scenarios/session-*.jsonl through the real `pmixflow`, and reading back the answers and
// the events that prove the behaviour: signals, job ends, who decided, the COMPLETEs sent.
#pragma once

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

namespace pmixflow::test::session_conformance {

inline constexpr int kSigCont = 18;
inline constexpr int kSigStop = 19;
inline constexpr double kTol = 0.01;  // seconds: message latencies are microseconds

struct ScenarioRun {
  int exit_code = -1;
  std::vector<json> events;
  json summary;
};

inline ScenarioRun run_scenario(const Environment& env, const std::string& scenario) {
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

// The fixture of SessionControl, the one suite of these tests. Its tests fill three files, so it
// is declared here rather than by PMIXFLOW_SCENARIO_SUITE, which would also instantiate it in
// every file including this header; conformance_session_test.cpp instantiates it, once.
class SessionControl : public SessionConformance {};

// Every `expect` of the scenario held.
inline void expect_all_met(const ScenarioRun& run) {
  ASSERT_TRUE(run.summary.contains("expectations"));
  EXPECT_GT(run.summary["expectations"]["checked"].get<int>(), 0);
  EXPECT_EQ(run.summary["expectations"]["failed"], 0) << run.summary["expectations"].dump();
}

using Pred = std::function<bool(const json&)>;

inline std::vector<json> events(const ScenarioRun& run, const std::string& ev, const Pred& pred = nullptr) {
  std::vector<json> out;
  for (const auto& e : run.events)
    if (e.value("ev", "") == ev && (!pred || pred(e))) out.push_back(e);
  return out;
}

inline std::size_t count(const ScenarioRun& run, const std::string& ev, const Pred& pred = nullptr) {
  return events(run, ev, pred).size();
}

// The time of the only event matching; fails the test when there is not exactly one.
inline double time_of(const ScenarioRun& run, const std::string& ev, const Pred& pred = nullptr) {
  const auto found = events(run, ev, pred);
  EXPECT_EQ(found.size(), 1u) << "events " << ev;
  return found.empty() ? -1.0 : found.front()["t"].get<double>();
}

inline Pred with(const std::string& field, const json& value) {
  return [field, value](const json& e) { return e.contains(field) && e[field] == value; };
}

inline Pred with(const std::string& f1, const json& v1, const std::string& f2, const json& v2) {
  return [=](const json& e) { return e.contains(f1) && e[f1] == v1 && e.contains(f2) && e[f2] == v2; };
}

// A copy: a test may look up a key the answer lacks without tripping the const accessor.
inline json call(const ScenarioRun& run, const std::string& corr) {
  for (const auto& c : run.summary["calls"])
    if (c["corr"] == corr) return c;
  ADD_FAILURE() << "no call " << corr;
  return json::object();
}

inline std::string status_of(const ScenarioRun& run, const std::string& corr) {
  return call(run, corr).value("status", "none");
}

inline std::vector<std::string> hops(const ScenarioRun& run, const std::string& corr) {
  return sent_hops(run.events, corr);
}

// An info array [[key, value], ...] as an object (the last value of a key wins).
inline json as_object(const json& pairs) {
  json out = json::object();
  for (const auto& kv : pairs) out[kv[0].get<std::string>()] = kv[1];
  return out;
}

// The session-control messages `who` sent to `to` for one request.
inline std::vector<json> ctrl_sent(const ScenarioRun& run, const std::string& corr, const std::string& who,
                                   const std::string& to) {
  return events(run, "send", [&](const json& e) {
    return e.value("msg", "") == "session_ctrl" && e.value("corr", "") == corr && e["who"] == who && e["to"] == to;
  });
}

// How many times the daemons were given `signal` for `nspace` (procs.signal: one per daemon).
inline std::size_t signals(const ScenarioRun& run, const std::string& nspace, int signal) {
  return count(run, "procs.signal", with("nspace", nspace, "signal", signal));
}

// One PMIX_SESSION_COMPLETE the controller sent the scheduler.
struct Complete {
  double t = -1;
  json directives;                                        // everything but the job arrays
  std::vector<std::pair<std::string, std::string>> jobs;  // nspace, PMIX_JOB_TERM_STATUS
};

inline std::vector<Complete> completes(const ScenarioRun& run, std::optional<std::uint32_t> session = std::nullopt) {
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
inline json node_at(const ScenarioRun& run, const std::string& node, double t) {
  json last;
  for (const auto& e : run.events)
    if (e.value("ev", "") == "node" && e["node"] == node && e["t"].get<double>() <= t) last = e;
  return last;
}

inline double job_time(const ScenarioRun& run, const std::string& what, const std::string& nspace) {
  return time_of(run, what, with("nspace", nspace));
}

inline std::string job_status(const ScenarioRun& run, const std::string& nspace) {
  const auto ends = events(run, "job.end", with("nspace", nspace));
  EXPECT_EQ(ends.size(), 1u) << nspace;
  return ends.empty() ? "" : ends.front()["status"].get<std::string>();
}

// The session a request's instantiation created.
inline json instantiated_for(const ScenarioRun& run, const std::string& corr) {
  const auto found = events(run, "session.instantiate", with("corr", corr));
  EXPECT_EQ(found.size(), 1u) << corr;
  return found.empty() ? json::object() : found.front();
}

inline std::vector<std::string> decided_by(const ScenarioRun& run, const std::string& corr) {
  std::vector<std::string> out;
  for (const auto& e : events(run, "session_ctrl.execute", with("corr", corr))) out.push_back(e["decided_by"]);
  return out;
}

}  // namespace pmixflow::test::session_conformance
