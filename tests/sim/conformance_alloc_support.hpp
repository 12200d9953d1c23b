// What the conformance tests of FLOW.md §2 (standalone DVM) and §5–7 share: running one scenario
// of tests/scenarios/ through the real `pmixflow`, and reading back its answers, events and hops.
//
// Hostfiles: the controller reads PMIX_HOSTFILE (and file= inside PMIX_HOST) as given, relative
// to its current directory. The shipped scenarios name their hostfiles relative to the
// repository root (where the README runs them by hand); the tests run from anywhere, so they
// run a copy of the scenario, generated into the test's scratch directory, whose hostfile
// paths are made absolute. The hostfiles themselves are read where they are shipped.
#pragma once

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "environments.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test::alloc_conformance {

struct ScenarioRun {
  std::vector<json> events;
  json summary;
};

inline constexpr const char* kScenarioDir = "tests/scenarios/";

inline ScenarioRun run_scenario(const Environment& env, const std::string& scenario) {
  const auto dir = scratch_dir(scenario);
  std::string text = slurp(source_path(kScenarioDir + scenario));
  // Hostfile paths relative to the repository root become absolute (see the top of the file).
  const std::string rel = kScenarioDir, abs = source_path(kScenarioDir);
  for (auto at = text.find(rel); at != std::string::npos; at = text.find(rel, at + abs.size()))
    text.replace(at, rel.size(), abs);
  const auto generated = dir / scenario;
  {
    std::ofstream out(generated);
    out << text;
  }
  const auto r = run_pmixflow(scenario_command(env, generated.string(), dir));
  EXPECT_EQ(r.exit_code, 0) << scenario << ": " << r.err << r.out;
  ScenarioRun run;
  run.events = read_events(dir / "events.jsonl");
  run.summary = json::parse(slurp(dir / "summary.json"));
  std::filesystem::remove_all(dir);
  return run;
}

// Each test runs its scenario in every environment (environments.hpp). Each suite on this base is
// declared, with PMIXFLOW_SCENARIO_SUITE, in the one file holding its tests.
class AllocConformance : public ::testing::TestWithParam<Environment> {
 protected:
  ScenarioRun simulate(const std::string& scenario) { return run_scenario(GetParam(), scenario); }
};

inline std::string ev_of(const json& e) { return e.value("ev", ""); }

// A message as the event log shows it, with what matters about it in brackets: the directive
// of a request, the status of an answer, the code of an event, the operation of a session
// control ("pmix.ssn.inst", "pmix.ssn.terminate", "pmix.ssn.complete").
inline std::string hop(const json& e) {
  std::string h = e["who"].get<std::string>() + ">" + e["to"].get<std::string>() + ":" + e["msg"].get<std::string>();
  const std::string msg = e["msg"];
  if (msg == "alloc_request")
    h += "(" + e["directive"].get<std::string>() + ")";
  else if (msg == "alloc_response" || msg == "session_ctrl_response" || msg == "spawn_response")
    h += "(" + e["status"].get<std::string>() + ")";
  else if (msg == "notify")
    h += "(" + e["code"].get<std::string>() + ")";
  else if (msg == "session_ctrl" && !e["directives"].empty())
    h += "(" + e["directives"][0][0].get<std::string>() + ")";
  return h;
}

// Every message sent on behalf of one request, in order.
inline std::vector<std::string> hops(const ScenarioRun& run, const std::string& corr) {
  std::vector<std::string> out;
  for (const auto& e : run.events)
    if (ev_of(e) == "send" && e.value("corr", "") == corr) out.push_back(hop(e));
  return out;
}

inline std::vector<json> events(const ScenarioRun& run, const std::string& ev, const std::string& corr = "") {
  std::vector<json> out;
  for (const auto& e : run.events)
    if (ev_of(e) == ev && (corr.empty() || e.value("corr", "") == corr)) out.push_back(e);
  return out;
}

// Position in the log of the first event matching, or -1.
template <class Pred>
long first_index(const ScenarioRun& run, Pred pred) {
  for (std::size_t i = 0; i < run.events.size(); ++i)
    if (pred(run.events[i])) return static_cast<long>(i);
  return -1;
}

inline long index_of(const ScenarioRun& run, const std::string& ev, const std::string& corr = "") {
  return first_index(run,
                     [&](const json& e) { return ev_of(e) == ev && (corr.empty() || e.value("corr", "") == corr); });
}

inline long index_of_hop(const ScenarioRun& run, const std::string& corr, const std::string& h) {
  return first_index(run,
                     [&](const json& e) { return ev_of(e) == "send" && e.value("corr", "") == corr && hop(e) == h; });
}

inline const json& call(const ScenarioRun& run, const std::string& corr) {
  for (const auto& c : run.summary["calls"])
    if (c["corr"] == corr) return c;
  static const json none = json::object();
  ADD_FAILURE() << "no call " << corr;
  return none;
}

inline std::string status(const ScenarioRun& run, const std::string& corr) {
  return call(run, corr).value("status", "?");
}

// One key of the info an answer carried (null when absent).
inline json answer_info(const ScenarioRun& run, const std::string& corr, const std::string& key) {
  const json& c = call(run, corr);
  if (!c.contains("info") || !c["info"].contains(key)) return nullptr;
  return c["info"][key];
}

// The one event of a kind for a request (an empty object, and a failure, when not exactly one).
inline json only(const ScenarioRun& run, const std::string& ev, const std::string& corr) {
  const auto found = events(run, ev, corr);
  if (found.size() == 1) return found.front();
  ADD_FAILURE() << found.size() << " events " << ev << " for " << corr << ", expected one";
  return json::object();
}

inline double answered(const ScenarioRun& run, const std::string& corr) {
  return call(run, corr).value("answered", -1.0);
}

// An info array of the log ([[key, value], ...]) as an object.
inline json info_of(const json& e, const std::string& field = "info") {
  json out = json::object();
  for (const auto& kv : e.value(field, json::array())) out[kv[0].get<std::string>()] = kv[1];
  return out;
}

// Nodes whose daemon the controller started (node events "starting") within [from, to).
inline std::vector<std::string> daemons_started(const ScenarioRun& run, double from, double to) {
  std::vector<std::string> out;
  for (const auto& e : run.events) {
    if (ev_of(e) != "node" || e["daemon"] != "starting") continue;
    const double t = e["t"];
    const std::string node = e["node"];
    if (t >= from && t < to && std::find(out.begin(), out.end(), node) == out.end()) out.push_back(node);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// launch_procs sent for a request: daemon -> ranks.
inline std::map<std::string, int> launches(const ScenarioRun& run, const std::string& corr) {
  std::map<std::string, int> out;
  for (const auto& e : run.events)
    if (ev_of(e) == "send" && e["msg"] == "launch_procs" && e.value("corr", "") == corr)
      out[e["to"].get<std::string>()] += e["procs"].get<int>();
  return out;
}

// The events a requestor received (PMIX_DVM_IS_READY, ...): code and info.
inline std::vector<json> received(const ScenarioRun& run, const std::string& requestor) {
  std::vector<json> out;
  for (const auto& e : run.events)
    if (ev_of(e) == "event.received" && e["who"] == "requestor:" + requestor) out.push_back(e);
  return out;
}

// No request reached the scheduler for this corr, and the scheduler decided nothing for it.
inline void expect_no_scheduler_decision(const ScenarioRun& run, const std::string& corr) {
  for (const auto& h : hops(run, corr)) {
    EXPECT_EQ(h.find(">scheduler:alloc_request"), std::string::npos) << corr << ": " << h;
    EXPECT_EQ(h.find(">scheduler:session_ctrl"), std::string::npos) << corr << ": " << h;
    EXPECT_EQ(h.find(">scheduler:spawn"), std::string::npos) << corr << ": " << h;
  }
  for (const auto& e : run.events)
    if (e.value("who", "") == "scheduler" && e.value("corr", "") == corr && ev_of(e) != "recv")
      ADD_FAILURE() << corr << " reached the scheduler: " << e.dump();
}

inline bool is_subsequence(const std::vector<std::string>& want, const std::vector<std::string>& have) {
  auto it = have.begin();
  for (const auto& w : want) {
    it = std::find(it, have.end(), w);
    if (it == have.end()) return false;
    ++it;
  }
  return true;
}

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

inline const std::vector<std::string> kAllCompute{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08"};

}  // namespace pmixflow::test::alloc_conformance
