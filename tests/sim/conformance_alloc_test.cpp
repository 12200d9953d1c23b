// Conformance, FLOW.md §2 (standalone DVM) and §5–7: PMIX_ALLOC_ACTIVATE, the DVM versus the
// allocation, PMIx_Spawn with PMIX_SPAWN_ALLOC, and failure injection. One test per scenario of
// tests/scenarios/ (see its README), each run through the real `pmixflow` in every environment; every test
// checks the answers and the events or hops that prove the behaviour.
//
// Hostfiles: the controller reads PMIX_HOSTFILE (and file= inside PMIX_HOST) as given, relative
// to its current directory. The shipped scenarios name their hostfiles relative to the
// repository root (where the README runs them by hand); the tests run from anywhere, so they
// run a copy of the scenario, generated into the test's scratch directory, whose hostfile
// paths are made absolute. The hostfiles themselves are read where they are shipped.
#include <algorithm>
#include <map>
#include <set>
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

constexpr const char* kScenarioDir = "tests/scenarios/";

ScenarioRun run_scenario(const Environment& env, const std::string& scenario) {
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

// Each test runs its scenario in every environment (environments.hpp).
class AllocConformance : public ::testing::TestWithParam<Environment> {
 protected:
  ScenarioRun simulate(const std::string& scenario) { return run_scenario(GetParam(), scenario); }
};
PMIXFLOW_SCENARIO_SUITE(Activate, AllocConformance);
PMIXFLOW_SCENARIO_SUITE(DvmVersusAllocation, AllocConformance);
PMIXFLOW_SCENARIO_SUITE(Failures, AllocConformance);
PMIXFLOW_SCENARIO_SUITE(SpawnAlloc, AllocConformance);
PMIXFLOW_SCENARIO_SUITE(Standalone, AllocConformance);

std::string ev_of(const json& e) { return e.value("ev", ""); }

// A message as the event log shows it, with what matters about it in brackets: the directive
// of a request, the status of an answer, the code of an event, the operation of a session
// control ("pmix.ssn.inst", "pmix.ssn.terminate", "pmix.ssn.complete").
std::string hop(const json& e) {
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
std::vector<std::string> hops(const ScenarioRun& run, const std::string& corr) {
  std::vector<std::string> out;
  for (const auto& e : run.events)
    if (ev_of(e) == "send" && e.value("corr", "") == corr) out.push_back(hop(e));
  return out;
}

std::vector<json> events(const ScenarioRun& run, const std::string& ev, const std::string& corr = "") {
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

long index_of(const ScenarioRun& run, const std::string& ev, const std::string& corr = "") {
  return first_index(run,
                     [&](const json& e) { return ev_of(e) == ev && (corr.empty() || e.value("corr", "") == corr); });
}

long index_of_hop(const ScenarioRun& run, const std::string& corr, const std::string& h) {
  return first_index(run,
                     [&](const json& e) { return ev_of(e) == "send" && e.value("corr", "") == corr && hop(e) == h; });
}

const json& call(const ScenarioRun& run, const std::string& corr) {
  for (const auto& c : run.summary["calls"])
    if (c["corr"] == corr) return c;
  static const json none = json::object();
  ADD_FAILURE() << "no call " << corr;
  return none;
}

std::string status(const ScenarioRun& run, const std::string& corr) { return call(run, corr).value("status", "?"); }

// One key of the info an answer carried (null when absent).
json answer_info(const ScenarioRun& run, const std::string& corr, const std::string& key) {
  const json& c = call(run, corr);
  if (!c.contains("info") || !c["info"].contains(key)) return nullptr;
  return c["info"][key];
}

// The one event of a kind for a request (an empty object, and a failure, when not exactly one).
json only(const ScenarioRun& run, const std::string& ev, const std::string& corr) {
  const auto found = events(run, ev, corr);
  if (found.size() == 1) return found.front();
  ADD_FAILURE() << found.size() << " events " << ev << " for " << corr << ", expected one";
  return json::object();
}

double answered(const ScenarioRun& run, const std::string& corr) { return call(run, corr).value("answered", -1.0); }

// An info array of the log ([[key, value], ...]) as an object.
json info_of(const json& e, const std::string& field = "info") {
  json out = json::object();
  for (const auto& kv : e.value(field, json::array())) out[kv[0].get<std::string>()] = kv[1];
  return out;
}

// Nodes whose daemon the controller started (node events "starting") within [from, to).
std::vector<std::string> daemons_started(const ScenarioRun& run, double from, double to) {
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
std::map<std::string, int> launches(const ScenarioRun& run, const std::string& corr) {
  std::map<std::string, int> out;
  for (const auto& e : run.events)
    if (ev_of(e) == "send" && e["msg"] == "launch_procs" && e.value("corr", "") == corr)
      out[e["to"].get<std::string>()] += e["procs"].get<int>();
  return out;
}

// The events a requestor received (PMIX_DVM_IS_READY, ...): code and info.
std::vector<json> received(const ScenarioRun& run, const std::string& requestor) {
  std::vector<json> out;
  for (const auto& e : run.events)
    if (ev_of(e) == "event.received" && e["who"] == "requestor:" + requestor) out.push_back(e);
  return out;
}

// No request reached the scheduler for this corr, and the scheduler decided nothing for it.
void expect_no_scheduler_decision(const ScenarioRun& run, const std::string& corr) {
  for (const auto& h : hops(run, corr)) {
    EXPECT_EQ(h.find(">scheduler:alloc_request"), std::string::npos) << corr << ": " << h;
    EXPECT_EQ(h.find(">scheduler:session_ctrl"), std::string::npos) << corr << ": " << h;
    EXPECT_EQ(h.find(">scheduler:spawn"), std::string::npos) << corr << ": " << h;
  }
  for (const auto& e : run.events)
    if (e.value("who", "") == "scheduler" && e.value("corr", "") == corr && ev_of(e) != "recv")
      ADD_FAILURE() << corr << " reached the scheduler: " << e.dump();
}

bool is_subsequence(const std::vector<std::string>& want, const std::vector<std::string>& have) {
  auto it = have.begin();
  for (const auto& w : want) {
    it = std::find(it, have.end(), w);
    if (it == have.end()) return false;
    ++it;
  }
  return true;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

const std::vector<std::string> kAllCompute{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08"};

// ------------------------------------------------------------------ §2: the standalone DVM

TEST_P(Standalone, ServesFromItsOwnPool) {
  const ScenarioRun run = simulate("standalone-serve.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "b#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "c#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  // The controller decides each request itself; nothing goes to a scheduler.
  for (const char* corr : {"a#1", "b#1", "c#1"}) {
    ASSERT_EQ(events(run, "alloc.standalone", corr).size(), 1u) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  // With an app, answered once it is launched, as on the scheduler's path (FLOW.md 4).
  EXPECT_EQ(hops(run, "a#1"), (std::vector<std::string>{
                                  "requestor:a>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>daemon:n01:launch_procs",  // the session's app, once the DVM has grown
                                  "controller>daemon:n02:launch_procs",
                                  "controller>requestor:a:alloc_response(PMIX_SUCCESS)",
                              }));
  EXPECT_EQ(hops(run, "b#1"), (std::vector<std::string>{
                                  "requestor:b>daemon:n01:alloc_request(PMIX_ALLOC_NEW)",
                                  "daemon:n01>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>daemon:n01:alloc_response(PMIX_SUCCESS)",
                                  "daemon:n01>requestor:b:alloc_response(PMIX_SUCCESS)",
                              }));
  EXPECT_EQ(hops(run, "c#1"), (std::vector<std::string>{
                                  "requestor:c>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>requestor:c:alloc_response(PMIX_ERR_OUT_OF_RESOURCE)",
                              }));
  // Sessions made from the pool, by the controller; the second skips the withheld nodes.
  const auto inst = events(run, "session.instantiate");
  ASSERT_EQ(inst.size(), 2u);
  EXPECT_EQ(inst[0]["by"], "controller");
  EXPECT_EQ(inst[0]["node_list"], "n01:8,n02:4");
  EXPECT_EQ(inst[1]["by"], "controller");
  EXPECT_EQ(inst[1]["node_list"], "n03:8,n04:8");
  EXPECT_EQ(answer_info(run, "a#1", "pmix.alloc.id"), "dvm-alloc-1");
  EXPECT_EQ(answer_info(run, "a#1", "pmix.alloc.nlist"), "n01:8,n02:4");
  EXPECT_EQ(answer_info(run, "b#1", "pmix.alloc.id"), "dvm-alloc-2");
  EXPECT_EQ(answer_info(run, "b#1", "pmix.alloc.nlist"), "n03:8,n04:8");
  EXPECT_EQ(launches(run, "a#1"), (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 4}}));
  ASSERT_EQ(events(run, "job.end", "a#1").size(), 1u);
  EXPECT_EQ(only(run, "job.end", "a#1").value("status", ""), "PMIX_SUCCESS");
}

TEST_P(Standalone, RefusesWithoutASchedulerWhenConfiguredTo) {
  const ScenarioRun run = simulate("refuse-without-scheduler.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_ERR_UNREACH");
  EXPECT_EQ(hops(run, "r#1"), (std::vector<std::string>{
                                  "requestor:r>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>requestor:r:alloc_response(PMIX_ERR_UNREACH)",
                              }));
  EXPECT_EQ(events(run, "request.refused", "r#1").size(), 1u);
  EXPECT_TRUE(events(run, "alloc.standalone").empty());  // not served from the pool
  EXPECT_TRUE(events(run, "request.held").empty());      // nor held
  EXPECT_TRUE(events(run, "session.instantiate").empty());
}

TEST_P(Standalone, ReleaseIsServedByTheController) {
  const ScenarioRun run = simulate("standalone-release.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "b#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(status(run, "a#2"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "a#3"), "PMIX_ERR_NOT_FOUND");
  EXPECT_EQ(status(run, "c#1"), "PMIX_SUCCESS");
  for (const char* corr : {"a#1", "b#1", "a#2", "a#3", "c#1"}) {
    EXPECT_EQ(events(run, "alloc.standalone", corr).size(), 1u) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  EXPECT_EQ(hops(run, "a#2"), (std::vector<std::string>{
                                  "requestor:a>controller:alloc_request(PMIX_ALLOC_RELEASE)",
                                  "controller>requestor:a:alloc_response(PMIX_SUCCESS)",
                              }));
  // Released: reclaimed into the DVM pool before the owner hears so; the refused release
  // changed nothing.
  const auto reclaimed = events(run, "session.reclaimed");
  ASSERT_EQ(reclaimed.size(), 1u);
  EXPECT_EQ(reclaimed[0]["alloc"], "dvm-alloc-1");
  EXPECT_EQ(reclaimed[0]["nodes_to"], "dvm-pool");
  EXPECT_GT(reclaimed[0]["t"].get<double>(), answered(run, "b#1"));
  EXPECT_LT(index_of(run, "session.reclaimed"),
            index_of_hop(run, "a#2", "controller>requestor:a:alloc_response(PMIX_SUCCESS)"));
  // The released nodes are granted again: the whole machine.
  EXPECT_EQ(answer_info(run, "c#1", "pmix.alloc.nlist"), "n01:8,n02:8,n03:8,n04:8,n05:8,n06:8,n07:8,n08:8");
}

// ------------------------------------------------------------------ §5: PMIX_ALLOC_ACTIVATE

TEST_P(Activate, AnsweredByTheControllerNotTheScheduler) {
  const ScenarioRun run = simulate("activate-local.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "v#1"), "PMIX_SUCCESS");
  EXPECT_FALSE(events(run, "scheduler.attached").empty());  // a scheduler is there, and is not asked
  // At the controller: answered there; the scheduler only hears of the DVM's new size.
  EXPECT_EQ(hops(run, "u#1"), (std::vector<std::string>{
                                  "requestor:u>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:u:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:u:notify(PMIX_DVM_IS_READY)",
                                  "controller>scheduler:notify(PMIX_DVM_IS_READY)",
                              }));
  // Through a daemon: relayed to the controller, answered by it, back through the daemon.
  EXPECT_EQ(hops(run, "v#1"), (std::vector<std::string>{
                                  "requestor:v>daemon:n01:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "daemon:n01>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>daemon:n01:alloc_response(PMIX_SUCCESS)",
                                  "daemon:n01>requestor:v:alloc_response(PMIX_SUCCESS)",
                                  "controller>daemon:n01:notify(PMIX_DVM_IS_READY)",
                                  "controller>scheduler:notify(PMIX_DVM_IS_READY)",
                                  "daemon:n01>requestor:v:notify(PMIX_DVM_IS_READY)",
                              }));
  expect_no_scheduler_decision(run, "u#1");
  expect_no_scheduler_decision(run, "v#1");
  EXPECT_TRUE(events(run, "request.forward").empty());
  EXPECT_EQ(daemons_started(run, 0.5, 1.5), (std::vector<std::string>{"n03"}));
  EXPECT_EQ(daemons_started(run, 1.5, 100), (std::vector<std::string>{"n04"}));
}

TEST_P(Activate, GrantedWithNoSchedulerAttached) {
  const ScenarioRun run = simulate("activate-without-scheduler.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_ERR_UNREACH");  // a NEW needs the scheduler: refused
  EXPECT_EQ(status(run, "r#2"), "PMIX_SUCCESS");      // an ACTIVATE does not
  EXPECT_EQ(events(run, "request.refused", "r#1").size(), 1u);
  EXPECT_TRUE(events(run, "request.refused", "r#2").empty());
  EXPECT_EQ(hops(run, "r#2"), (std::vector<std::string>{
                                  "requestor:r>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:r:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:r:notify(PMIX_DVM_IS_READY)",
                              }));
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03"}));
}

TEST_P(Activate, ServedWhereTheSchedulerOwnsTheAllocation) {
  const ScenarioRun run = simulate("activate-scheduler-owned.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "r#2"), "PMIX_SUCCESS");
  // alloc-1 is the scheduler's: granted by it and instantiated on its order.
  const auto inst = events(run, "session.instantiate", "r#1");
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(inst[0]["by"], "scheduler");
  EXPECT_EQ(inst[0]["alloc"], "alloc-1");
  EXPECT_EQ(inst[0]["node_list"], "n01:8,n02:8");
  EXPECT_EQ(events(run, "alloc.grant", "r#1").size(), 1u);
  // n02 is allocated but outside the DVM: its daemon failed to start.
  const auto first = events(run, "dvm.ready", "r#1");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["code"], "PMIX_ERR_DVM_MOD");
  // The activation naming alloc-1 is answered by the controller; the scheduler decides nothing
  // and its allocation is unchanged (no EXTEND, no new session).
  EXPECT_EQ(hops(run, "r#2"), (std::vector<std::string>{
                                  "requestor:r>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:r:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:r:notify(PMIX_DVM_IS_READY)",
                                  "controller>scheduler:notify(PMIX_DVM_IS_READY)",
                              }));
  expect_no_scheduler_decision(run, "r#2");
  EXPECT_EQ(events(run, "session.instantiate").size(), 1u);
  EXPECT_TRUE(events(run, "session.extend").empty());
  const auto act = events(run, "activate", "r#2");
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(act[0]["alloc"], "alloc-1");
  EXPECT_EQ(act[0]["num_starting"], 1);
  EXPECT_EQ(daemons_started(run, 2, 100), (std::vector<std::string>{"n02"}));
  const auto up = first_index(run, [](const json& e) { return ev_of(e) == "daemon.up" && e["who"] == "daemon:n02"; });
  EXPECT_GT(up, index_of(run, "activate", "r#2"));
  EXPECT_EQ(answer_info(run, "r#2", "pmix.alloc.id"), "alloc-1");
}

TEST_P(Activate, HostfileNamesTheNodes) {
  const ScenarioRun run = simulate("activate-hostfile.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  // PMIX_HOSTFILE alone: its two names.
  EXPECT_EQ(daemons_started(run, 0.5, 2), (std::vector<std::string>{"n03", "n04"}));
  // PMIX_HOST and PMIX_HOSTFILE together: merged; the file's nodes are already up.
  const auto act = events(run, "activate", "u#2");
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(act[0]["num_nodes"], 3);
  EXPECT_EQ(act[0]["num_starting"], 1);
  EXPECT_EQ(daemons_started(run, 2, 100), (std::vector<std::string>{"n05"}));
  expect_no_scheduler_decision(run, "u#1");
  expect_no_scheduler_decision(run, "u#2");
}

TEST_P(Activate, AllMeansEveryAllocatedNodeNotInTheDvm) {
  const ScenarioRun run = simulate("activate-all.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  const auto grow = events(run, "dvm.grow", "u#1");
  ASSERT_EQ(grow.size(), 1u);
  EXPECT_EQ(grow[0]["num_daemons"], 6);
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n04", "n05", "n06", "n07", "n08"}));
  ASSERT_EQ(events(run, "dvm.ready", "u#1").size(), 1u);
  EXPECT_EQ(only(run, "dvm.ready", "u#1").value("code", ""), "PMIX_DVM_IS_READY");
}

TEST_P(Activate, RelativeNamesCountFromZero) {
  const ScenarioRun run = simulate("activate-relative.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n06"}));  // +n2, +n5
}

TEST_P(Activate, FileInsideTheHostListIsRead) {
  const ScenarioRun run = simulate("activate-file-in-host.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n04", "n05"}));
}

TEST_P(Activate, HostfileExclusionsWork) {
  const ScenarioRun run = simulate("activate-hostfile-exclude.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n04", "n05", "n06"}));
  const auto act = events(run, "activate", "u#1");
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(act[0]["num_nodes"], 6);  // +all minus ^n07 and ^n08
}

TEST_P(Activate, HostfileSlotCountsAreIgnored) {
  const ScenarioRun run = simulate("activate-hostfile-slots.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");  // not refused as :N would be
  EXPECT_TRUE(events(run, "activate.refused").empty());
  EXPECT_EQ(daemons_started(run, 0.5, 2), (std::vector<std::string>{"n03", "n04"}));
  // The nodes kept their 8 slots each (the file says 2 and 4): 16 ranks fit on the two.
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  EXPECT_EQ(launches(run, "u#2"), (std::map<std::string, int>{{"daemon:n03", 8}, {"daemon:n04", 8}}));
}

TEST_P(Activate, SlotCountsAndEmptyNodesAreRefused) {
  const ScenarioRun run = simulate("activate-refused.jsonl");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"u#1", "':N' is refused"}, {"u#2", "':N' is refused"}, {"u#3", "+e would pick"}, {"u#4", "+e would pick"}};
  for (const auto& [corr, why] : cases) {
    EXPECT_EQ(status(run, corr), "PMIX_ERR_BAD_PARAM") << corr;
    const auto refused = events(run, "activate.refused", corr);
    ASSERT_EQ(refused.size(), 1u) << corr;
    EXPECT_NE(refused[0]["detail"].get<std::string>().find(why), std::string::npos)
        << corr << ": " << refused[0].dump();
    EXPECT_EQ(hops(run, corr), (std::vector<std::string>{
                                   "requestor:u>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                   "controller>requestor:u:alloc_response(PMIX_ERR_BAD_PARAM)",
                               }))
        << corr;
    EXPECT_TRUE(events(run, "dvm.grow", corr).empty()) << corr;
  }
  EXPECT_TRUE(daemons_started(run, 0.5, 100).empty());  // n03 named in three of them: never started
  EXPECT_TRUE(received(run, "u").empty());
}

TEST_P(Activate, AlreadyActiveIsSatisfied) {
  const ScenarioRun run = simulate("activate-already-active.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");  // nodes already in the DVM: not an error
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");  // +all with nothing left: satisfied, not refused
  for (const char* corr : {"u#1", "u#2"}) {
    const auto act = events(run, "activate", corr);
    ASSERT_EQ(act.size(), 1u) << corr;
    EXPECT_EQ(act[0]["num_starting"], 0) << corr;
    EXPECT_TRUE(events(run, "dvm.grow", corr).empty()) << corr;
    EXPECT_TRUE(events(run, "activate.refused", corr).empty()) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  EXPECT_TRUE(daemons_started(run, 0.5, 100).empty());
  // FLOW.md 5: "answered when it is granted; the daemons themselves are reported by the
  // PMIX_DVM_IS_READY event": the requestor hears the answer first, then the event.
  const auto got = received(run, "u");
  ASSERT_EQ(got.size(), 2u);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::string corr = "u#" + std::to_string(i + 1);
    EXPECT_EQ(got[i]["code"], "PMIX_DVM_IS_READY") << corr;
    const long answer = first_index(run, [&](const json& e) { return ev_of(e) == "answer" && e["corr"] == corr; });
    const long event = first_index(run, [&](const json& e) { return e == got[i]; });
    EXPECT_LT(answer, event) << corr << ": the ready event reached the requestor before the answer to its ACTIVATE";
  }
}

TEST_P(Activate, NodeOutsideTheAllocationIsAnError) {
  const ScenarioRun run = simulate("activate-outside-allocation.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "r#1", "pmix.alloc.nlist"), "n01:8");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"u#1", "node 'n99' is not in the allocation"},  // not in the machine
      {"u#2", "+n8 is out of range"},                  // past the last allocated node
      {"u#3", "node 'n99' is not in the allocation"},  // a good node with a bad one
      {"r#2", "node 'n05' is not in the allocation"},  // in the machine, not in alloc-1
  };
  for (const auto& [corr, why] : cases) {
    EXPECT_EQ(status(run, corr), "PMIX_ERR_BAD_PARAM") << corr;
    const auto refused = events(run, "activate.refused", corr);
    ASSERT_EQ(refused.size(), 1u) << corr;
    EXPECT_NE(refused[0]["detail"].get<std::string>().find(why), std::string::npos)
        << corr << ": " << refused[0].dump();
    EXPECT_TRUE(events(run, "dvm.grow", corr).empty()) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  // Nothing of a refused request is started: not n03 (u#3), not n05 (r#2).
  EXPECT_TRUE(daemons_started(run, 0.5, 100).empty());
}

TEST_P(Activate, AnsweredOnGrantThenTheReadyEventNamesTheAllocation) {
  const ScenarioRun run = simulate("activate-ready-event.jsonl");
  for (const char* corr : {"r#1", "r#2", "r#3"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  const auto got = received(run, "r");
  ASSERT_EQ(got.size(), 2u);
  // r#2 carried PMIX_ALLOC_REQ_ID: the event names the allocation and the request.
  EXPECT_EQ(got[0]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(info_of(got[0]), (json{{"pmix.alloc.id", "alloc-1"}, {"pmix.alloc.reqid", "act-n02"}}));
  // r#3 had no request id: the allocation only.
  EXPECT_EQ(got[1]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(info_of(got[1]), (json{{"pmix.alloc.id", "alloc-1"}}));
  // Answered on grant, before the daemon is up; the event follows once it has reported in.
  const double up_n02 = [&] {
    for (const auto& e : events(run, "daemon.up"))
      if (e["who"] == "daemon:n02") return e["t"].get<double>();
    return -1.0;
  }();
  ASSERT_GT(up_n02, 3.0);
  EXPECT_LT(answered(run, "r#2"), up_n02);
  EXPECT_GT(got[0]["t"].get<double>(), up_n02);
  EXPECT_LT(answered(run, "r#3"), got[1]["t"].get<double>());
  EXPECT_LT(index_of(run, "answer", "r#2"), first_index(run, [&](const json& e) { return e == got[0]; }));
  EXPECT_LT(index_of(run, "answer", "r#3"), first_index(run, [&](const json& e) { return e == got[1]; }));
  // The controller's own record of the change matches.
  const auto ready = events(run, "dvm.ready", "r#2");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(info_of(ready[0]), (json{{"pmix.alloc.id", "alloc-1"}, {"pmix.alloc.reqid", "act-n02"}}));
}

TEST_P(Activate, FailedDaemonStartEndsTheChangeWithDvmMod) {
  const ScenarioRun run = simulate("activate-dvm-mod.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");  // granted: the failure comes later, as the event
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  const auto failed =
      first_index(run, [](const json& e) { return ev_of(e) == "daemon.start_failed" && e["who"] == "daemon:n03"; });
  ASSERT_GE(failed, 0);
  const auto noticed = events(run, "daemon.failed");
  ASSERT_EQ(noticed.size(), 1u);
  EXPECT_EQ(noticed[0]["node"], "n03");
  const auto ready = events(run, "dvm.ready", "u#1");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0]["code"], "PMIX_ERR_DVM_MOD");
  const auto got = received(run, "u");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["code"], "PMIX_ERR_DVM_MOD");
  EXPECT_GT(got[0]["t"].get<double>(), answered(run, "u#1"));
  EXPECT_EQ(hops(run, "u#1"), (std::vector<std::string>{
                                  "requestor:u>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:u:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:u:notify(PMIX_ERR_DVM_MOD)",
                                  "controller>scheduler:notify(PMIX_ERR_DVM_MOD)",
                              }));
  // n04 of the same request did come up; n03, activated again, comes up too.
  std::set<std::string> up;
  for (const auto& e : events(run, "daemon.up")) up.insert(e["who"].get<std::string>());
  EXPECT_TRUE(up.count("daemon:n04"));
  EXPECT_TRUE(up.count("daemon:n03"));
  EXPECT_EQ(got[1]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(only(run, "dvm.ready", "u#2").value("code", ""), "PMIX_DVM_IS_READY");
}

TEST_P(Activate, JobsSubmittedWhileTheDvmGrowsWaitForTheReadyEvent) {
  const ScenarioRun run = simulate("activate-launch-fence.jsonl");
  for (const char* corr : {"u#1", "s#1", "t#1"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  const long fenced = index_of(run, "job.fenced", "s#1");
  const long ready = index_of(run, "dvm.ready", "u#1");
  const long launch = index_of(run, "job.launch", "s#1");
  const long procs = first_index(run, [](const json& e) {
    return ev_of(e) == "send" && e["msg"] == "launch_procs" && e.value("corr", "") == "s#1";
  });
  ASSERT_GE(fenced, 0);
  ASSERT_GE(ready, 0);
  EXPECT_LT(fenced, ready);
  EXPECT_LT(ready, launch);
  EXPECT_LT(ready, procs);
  EXPECT_DOUBLE_EQ(run.events[static_cast<std::size_t>(launch)]["t"].get<double>(),
                   run.events[static_cast<std::size_t>(ready)]["t"].get<double>());  // released by the event itself
  // After the change, a new job is not fenced.
  EXPECT_TRUE(events(run, "job.fenced", "t#1").empty());
  EXPECT_EQ(events(run, "job.launch", "t#1").size(), 1u);
}

// ------------------------------------------------------------------ §6: the DVM versus the allocation

TEST_P(DvmVersusAllocation, HostNarrowedDvmLeavesAllocatedNodesUnusableUntilActivated) {
  const ScenarioRun run = simulate("dvm-host-narrowed.jsonl");
  // --host n01,n02: two daemons at start-up, on eight allocated nodes.
  const auto start = events(run, "dvm.grow", "dvm-start");
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0]["num_daemons"], 2);
  EXPECT_EQ(daemons_started(run, 0, 0.5), (std::vector<std::string>{"n01", "n02"}));
  // FLOW.md 6 and 8: the other nodes are allocated and not in the DVM, and the log says so.
  std::set<std::string> logged_without_daemon;
  for (const auto& e : run.events)
    if (ev_of(e) == "node" && e["t"].get<double>() < 0.5 && e["daemon"] == "none")
      logged_without_daemon.insert(e["node"].get<std::string>());
  EXPECT_EQ(logged_without_daemon, (std::set<std::string>{"n03", "n04", "n05", "n06", "n07", "n08"}))
      << "the event log does not show the allocated nodes that have no daemon (FLOW.md 8: every node, allocated or "
         "not, in the DVM or not)";
  // Unusable: 24 ranks do not fit the 16 slots of the DVM.
  EXPECT_EQ(status(run, "s#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_TRUE(launches(run, "s#1").empty());
  // Usable once activated, with no scheduler involved.
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  expect_no_scheduler_decision(run, "u#1");
  EXPECT_EQ(daemons_started(run, 1.5, 3), (std::vector<std::string>{"n03", "n04", "n05", "n06", "n07", "n08"}));
  EXPECT_EQ(status(run, "s#2"), "PMIX_SUCCESS");
  EXPECT_EQ(launches(run, "s#2"),
            (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 8}, {"daemon:n03", 8}}));
}

TEST_P(DvmVersusAllocation, ReleasedReservationHandsNodesBackWithoutDaemonsUntilActivated) {
  const ScenarioRun run = simulate("dvm-released-reservation.jsonl");
  for (const char* corr : {"r#1", "r#2", "r#4", "r#5"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  EXPECT_EQ(answer_info(run, "r#1", "pmix.alloc.nlist"), "n01:8,n02:8");
  // Released with inheritance NONE: the nodes go back to the scheduler and their daemons away.
  const auto reclaimed = events(run, "session.reclaimed");
  ASSERT_EQ(reclaimed.size(), 1u);
  EXPECT_EQ(reclaimed[0]["nodes_to"], "scheduler");
  std::set<std::string> shut, exited;
  for (const auto& e : run.events) {
    if (ev_of(e) == "send" && e["msg"] == "daemon_shutdown") shut.insert(e["to"].get<std::string>());
    if (ev_of(e) == "daemon.exit") exited.insert(e["who"].get<std::string>());
  }
  EXPECT_EQ(shut, (std::set<std::string>{"daemon:n01", "daemon:n02"}));
  EXPECT_EQ(exited, (std::set<std::string>{"daemon:n01", "daemon:n02"}));
  for (const char* n : {"n01", "n02"}) {
    const long gone =
        first_index(run, [&](const json& e) { return ev_of(e) == "node" && e["node"] == n && e["daemon"] == "none"; });
    EXPECT_GE(gone, 0) << n;
    EXPECT_LT(gone, index_of(run, "answer", "r#2")) << n;
  }
  // Without daemons the DVM no longer spans them: a whole-machine job does not fit.
  EXPECT_EQ(status(run, "r#3"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_TRUE(launches(run, "r#3").empty());
  // ACTIVATE brings them back, answered locally; the DVM is whole again.
  expect_no_scheduler_decision(run, "r#4");
  EXPECT_EQ(daemons_started(run, 5.5, 7), (std::vector<std::string>{"n01", "n02"}));
  const auto got = received(run, "r");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["code"], "PMIX_DVM_IS_READY");
  std::map<std::string, int> whole;
  for (const auto& n : kAllCompute) whole["daemon:" + n] = 8;
  EXPECT_EQ(launches(run, "r#5"), whole);
}

TEST_P(DvmVersusAllocation, InstantiationOnNodesWithoutDaemonsGrowsTheDvm) {
  const ScenarioRun run = simulate("session-lifecycle.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_SUCCESS");
  const auto grow = events(run, "dvm.grow", "r#1");
  ASSERT_EQ(grow.size(), 1u);
  EXPECT_EQ(grow[0]["num_daemons"], 2);
  EXPECT_EQ(grow[0]["alloc"], "alloc-1");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n01", "n02"}));
  // The session's job waits for the new daemons: fenced, then launched by the ready event.
  const long fenced = index_of(run, "job.fenced", "r#1");
  long last_up = -1;
  for (std::size_t i = 0; i < run.events.size(); ++i)
    if (ev_of(run.events[i]) == "daemon.up") last_up = static_cast<long>(i);
  const long ready = index_of(run, "dvm.ready", "r#1");
  const long launch = index_of(run, "job.launch", "r#1");
  ASSERT_GE(fenced, 0);
  EXPECT_LT(index_of(run, "session.instantiate", "r#1"), fenced);
  EXPECT_LT(fenced, last_up);
  EXPECT_LT(last_up, ready);
  EXPECT_LT(ready, launch);
  EXPECT_EQ(info_of(run.events[static_cast<std::size_t>(ready)]), (json{{"pmix.alloc.id", "alloc-1"}}));
  EXPECT_EQ(run.events[static_cast<std::size_t>(ready)]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(launches(run, "r#1"), (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 8}}));
}

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
  EXPECT_EQ(answer_info(run, "s#1", "pmix.alloc.id"), "alloc-1");
  EXPECT_EQ(answer_info(run, "s#1", "pmix.session.id"), 1);
  EXPECT_EQ(answer_info(run, "s#1", "pmix.nspace"), "job-1.1");
}

TEST_P(SpawnAlloc, ActivateIsAnsweredLocally) {
  const ScenarioRun run = simulate("spawn-alloc-activate.jsonl");
  EXPECT_EQ(status(run, "s#1"), "PMIX_SUCCESS");
  EXPECT_EQ(hops(run, "s#1"), (std::vector<std::string>{
                                  "requestor:s>controller:spawn",
                                  "controller>requestor:s:notify(PMIX_DVM_IS_READY)",
                                  "controller>scheduler:notify(PMIX_DVM_IS_READY)",
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
                                  "controller>requestor:s:spawn_response(PMIX_SUCCESS)",
                              }));
  EXPECT_EQ(answer_info(run, "s#1", "pmix.alloc.id"), "dvm-alloc-1");
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
      first_index(run, [](const json& e) { return ev_of(e) == "session.reclaimed" && e["alloc"] == "dvm-alloc-2"; });
  ASSERT_GE(reclaimed, 0);
  EXPECT_LT(reclaimed, index_of(run, "answer", "x#1"));
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

// ------------------------------------------------------------------ failure injection

TEST_P(Failures, ADaemonThatFailsToStart) {
  const ScenarioRun run = simulate("fail-daemon-start.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_ERR_JOB_FAILED_TO_LAUNCH");
  EXPECT_EQ(status(run, "b#1"), "PMIX_SUCCESS");
  const long start_failed =
      first_index(run, [](const json& e) { return ev_of(e) == "daemon.start_failed" && e["who"] == "daemon:n02"; });
  ASSERT_GE(start_failed, 0);
  const auto noticed = events(run, "daemon.failed");
  ASSERT_EQ(noticed.size(), 1u);
  EXPECT_EQ(noticed[0]["node"], "n02");
  // The DVM change of a's instantiation ends PMIX_ERR_DVM_MOD, and the scheduler hears it.
  const auto ready = events(run, "dvm.ready", "a#1");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0]["code"], "PMIX_ERR_DVM_MOD");
  EXPECT_EQ(info_of(ready[0]), (json{{"pmix.alloc.id", "alloc-1"}}));
  EXPECT_GE(index_of_hop(run, "a#1", "controller>scheduler:notify(PMIX_ERR_DVM_MOD)"), 0);
  // The job cannot launch there: nothing is sent to the node without a daemon; it fails.
  EXPECT_EQ(launches(run, "a#1").count("daemon:n02"), 0u);
  const auto failed = events(run, "job.launch_failed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]["node"], "n02");
  const auto end = events(run, "job.end", "a#1");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["status"], "PMIX_ERR_JOB_FAILED_TO_LAUNCH");
  // Reclaimed, and COMPLETE carries the job's status.
  bool complete = false;
  for (const auto& e : run.events) {
    if (ev_of(e) != "send" || e["msg"] != "session_ctrl" || e.value("corr", "") != "a#1" || e["who"] != "controller")
      continue;
    const json d = info_of(e, "directives");
    if (!d.contains("pmix.ssn.complete")) continue;
    complete = true;
    EXPECT_EQ(d["pmix.job.arr"],
              (json::array({json::array({"pmix.nspace", "job-1.1"}),
                            json::array({"pmix.job.term.status", "PMIX_ERR_JOB_FAILED_TO_LAUNCH"})})));
  }
  EXPECT_TRUE(complete);
  // The next session on the node starts a fresh daemon there and runs.
  EXPECT_EQ(daemons_started(run, 10, 100), (std::vector<std::string>{"n02"}));
  EXPECT_EQ(launches(run, "b#1"), (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 8}}));
  EXPECT_EQ(only(run, "job.end", "b#1").value("status", ""), "PMIX_SUCCESS");
}

TEST_P(Failures, ANodeThatDiesWhileASessionRuns) {
  const ScenarioRun run = simulate("fail-node-down.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "a#1", "pmix.alloc.nlist"), "n01:8,n02:8");
  const auto fail = events(run, "node.fail");
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_EQ(fail[0]["node"], "n02");
  const auto down = events(run, "node.down");
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0]["code"], "PMIX_EVENT_NODE_DOWN");
  // The job with ranks there ends aborted by the system event; its other ranks are killed.
  const auto end = events(run, "job.end", "a#1");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["status"], "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT");
  EXPECT_NEAR(end[0]["t"].get<double>(), 5.0, 0.01);
  bool killed_n01 = false;
  for (const auto& e : run.events)
    killed_n01 = killed_n01 || (ev_of(e) == "send" && e["msg"] == "kill_procs" && e["to"] == "daemon:n01" &&
                                e["reason"] == "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT");
  EXPECT_TRUE(killed_n01);
  bool complete = false;
  for (const auto& e : run.events) {
    if (ev_of(e) != "send" || e["msg"] != "session_ctrl" || e.value("corr", "") != "a#1" || e["who"] != "controller")
      continue;
    const json d = info_of(e, "directives");
    if (!d.contains("pmix.ssn.complete")) continue;
    complete = true;
    EXPECT_EQ(d["pmix.job.arr"][1], json::array({"pmix.job.term.status", "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT"}));
  }
  EXPECT_TRUE(complete);
  // PMIX_EVENT_NODE_DOWN reaches the scheduler, which removes the node from its pool...
  const long notified = first_index(run, [](const json& e) {
    return ev_of(e) == "recv" && e["who"] == "scheduler" && e["msg"] == "notify" && e["code"] == "PMIX_EVENT_NODE_DOWN";
  });
  ASSERT_GE(notified, 0);
  EXPECT_EQ(info_of(run.events[static_cast<std::size_t>(notified)]), (json{{"pmix.hname", "n02"}}));
  const auto removed = events(run, "node.removed");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0]["node"], "n02");
  EXPECT_GT(first_index(run, [](const json& e) { return ev_of(e) == "node.removed"; }), notified);
  // ...and never grants it again: the whole machine is no longer there; seven nodes are.
  EXPECT_EQ(status(run, "b#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_EQ(status(run, "c#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "c#1", "pmix.alloc.nlist"), "n01:8,n03:8,n04:8,n05:8,n06:8,n07:8,n08:8");
  for (const auto& g : events(run, "alloc.grant")) {
    if (g["t"].get<double>() > 5.0) {
      EXPECT_EQ(g["node_list"].get<std::string>().find("n02"), std::string::npos) << g.dump();
    }
  }
}

}  // namespace
}  // namespace pmixflow::test
