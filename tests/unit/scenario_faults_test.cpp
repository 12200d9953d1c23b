// Failure injection in scenario files: what each fault op becomes (a repair following its
// failure, a trigger with its nth and delay), and how a bad one is refused by line and field.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/trace/fault_triggers.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::scenario_faults_test {
namespace {

const std::string kHeader = R"({"format":"pmixflow-scenario","version":1})";

Scenario parse(const std::string& line) {
  std::istringstream in(kHeader + "\n" + line + "\n");
  return parse_scenario(in, "f.jsonl");
}

// The field a refused line names (its line is always 2).
std::string refused_field(const std::string& line) {
  try {
    parse(line);
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2u) << e.what();
    return e.field();
  }
  ADD_FAILURE() << "accepted: " << line;
  return "";
}

TEST(ScenarioFaults, EachOpIsItsFaultAndARepairFollowsItsFailure) {
  const Scenario sc = parse(R"({"at":3,"op":"daemon_fail","node":"n02","restart_after":5})");
  ASSERT_EQ(sc.faults.size(), 2u);
  EXPECT_EQ(sc.faults[0].fault, Fault::DaemonDies);
  EXPECT_EQ(sc.faults[0].node, "n02");
  EXPECT_EQ(sc.faults[0].at, 3);
  EXPECT_EQ(sc.faults[1].fault, Fault::DaemonRestarts);
  EXPECT_EQ(sc.faults[1].at, 8);
  const Scenario back = parse(R"({"at":1,"op":"node_fail","node":"+n0","return_after":2.5})");
  ASSERT_EQ(back.faults.size(), 2u);
  EXPECT_EQ(back.faults[1].fault, Fault::NodeReturns);
  EXPECT_EQ(back.faults[1].at, 3.5);
  for (Fault f :
       {Fault::NodeDies, Fault::NodeReturns, Fault::DaemonDies, Fault::DaemonRestarts, Fault::DaemonStartFails}) {
    const Scenario one = parse(R"({"at":1,"op":")" + std::string(fault_op(f)) + R"(","node":"n01"})");
    ASSERT_EQ(one.faults.size(), 1u) << fault_op(f);
    EXPECT_EQ(one.faults[0].fault, f);
  }
  const Scenario stall = parse(R"({"at":1,"op":"scheduler_stall","for":2})");
  ASSERT_EQ(stall.faults.size(), 1u);
  EXPECT_EQ(stall.faults[0].fault, Fault::SchedulerStalls);
  EXPECT_EQ(stall.faults[0].lasting, 2);
  const Scenario slow = parse(R"({"at":1,"op":"daemon_start_slow","node":"n02","by":10})");
  ASSERT_EQ(slow.faults.size(), 1u);
  EXPECT_EQ(slow.faults[0].fault, Fault::DaemonStartsSlowly);
  EXPECT_EQ(slow.faults[0].node, "n02");
  EXPECT_EQ(slow.faults[0].lasting, 10);
}

TEST(ScenarioFaults, ATriggerKeepsItsMatchItsNthAndItsDelayAndTheRepairSharesIt) {
  const Scenario sc = parse(
      R"({"op":"node_fail","node":"n03","when":{"ev":"alloc.grant","who":"scheduler"},"nth":3,"delay":0.5,"return_after":1})");
  ASSERT_EQ(sc.faults.size(), 2u);
  ASSERT_TRUE(sc.faults[0].when);
  EXPECT_EQ(sc.faults[0].when->match.kind, log::EventKind::AllocGrant);
  EXPECT_EQ(sc.faults[0].when->match.who, "scheduler");
  EXPECT_EQ(sc.faults[0].when->nth, 3u);
  EXPECT_EQ(sc.faults[0].at, 0.5);  // the delay after the trigger
  ASSERT_TRUE(sc.faults[1].when);
  EXPECT_EQ(sc.faults[1].at, 1.5);
}

TEST(ScenarioFaults, BadFaultsAreRefusedByField) {
  EXPECT_EQ(refused_field(R"({"op":"node_fail","node":"n01"})"), "at");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"node_fail"})"), "node");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"node_fail","node":"n01","restart_after":1})"), "restart_after");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"daemon_fail","node":"n01","return_after":1})"), "return_after");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"scheduler_stall"})"), "for");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"scheduler_stall","for":0})"), "for");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"scheduler_stall","for":1,"node":"n01"})"), "node");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"daemon_start_slow","node":"n01"})"), "by");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"daemon_start_slow","node":"n01","by":0})"), "by");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"daemon_start_slow","by":1})"), "node");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"daemon_fail","node":"n01","by":1})"), "by");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"node_fail","node":"n01","when":{"ev":"alloc.grant"}})"), "at");
  EXPECT_EQ(refused_field(R"({"at":1,"op":"node_fail","node":"n01","nth":2})"), "nth");
  EXPECT_EQ(refused_field(R"({"op":"node_fail","node":"n01","when":{"ev":"no.such"}})"), "when.ev");
  EXPECT_EQ(refused_field(R"({"op":"node_fail","node":"n01","when":{"ev":"alloc.grant","nope":1}})"), "when.nope");
  EXPECT_EQ(refused_field(R"({"op":"node_fail","node":"n01","when":{"ev":"alloc.grant"},"nth":0})"), "nth");
  EXPECT_EQ(refused_field(R"({"op":"node_fail","node":"n01","when":"alloc.grant"})"), "when");
}

TEST(ScenarioFaults, ALaunchFailingOnSomeNodesNamesThemAndOnlyThemFail) {
  const Scenario sc = parse(
      R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"NEW","info":{"PMIX_ALLOC_NUM_NODES":2},)"
      R"("app":{"cmd":"sleep","argv":["1"],"np":2,"fail_launch":["n02","n05"]}})");
  const auto* apps = std::get<AllocRequest>(sc.calls.at(0).call).info.get<std::vector<App>>(key::SESSION_APP);
  ASSERT_TRUE(apps && apps->size() == 1);
  const AppBehaviour b = app_behaviour(apps->front());
  EXPECT_TRUE(launch_fails_on(b, "n02"));
  EXPECT_TRUE(launch_fails_on(b, "n05"));
  EXPECT_FALSE(launch_fails_on(b, "n01"));
  EXPECT_EQ(
      refused_field(
          R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"NEW","info":{"PMIX_ALLOC_NUM_NODES":1},)"
          R"("app":{"cmd":"sleep","argv":["1"],"np":1,"fail_launch":[]}})"),
      "app.fail_launch");
  EXPECT_EQ(
      refused_field(
          R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"NEW","info":{"PMIX_ALLOC_NUM_NODES":1},)"
          R"("app":{"cmd":"sleep","argv":["1"],"np":1,"fail_launch":["n01,n02"]}})"),
      "app.fail_launch");
}

TEST(FaultTriggersWatch, EachFiresOnceAtItsNthMatchingEvent) {
  const Scenario sc = parse(R"({"op":"daemon_fail","node":"n01","when":{"ev":"alloc.grant","corr":"b#1"}})");
  FaultTrigger third = *sc.faults[0].when;
  third.match.fields.clear();
  third.nth = 3;
  std::vector<std::pair<std::size_t, double>> fired;
  FaultTriggers watch({*sc.faults[0].when, third}, [&](std::size_t i, double t) { fired.emplace_back(i, t); });
  EXPECT_TRUE(watch.kinds()[static_cast<std::size_t>(log::EventKind::AllocGrant)]);
  const auto grant = [&](const char* corr, double t) {
    log::EventBuilder b(log::EventKind::AllocGrant);
    fill(ev::AllocGrant{.corr = corr, .alloc = "alloc-1", .session = 1, .node_list = "n01:1", .resources = "0"}, b);
    watch.event(b.view(t, "scheduler"));
  };
  grant("a#1", 1);
  grant("b#1", 2);
  grant("c#1", 3);
  grant("b#1", 4);  // a trigger fires once
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0], std::make_pair(std::size_t{0}, 2.0));
  EXPECT_EQ(fired[1], std::make_pair(std::size_t{1}, 3.0));
}

}  // namespace
}  // namespace pmixflow::scenario_faults_test
