// The fault harness's judge (fault_verdict.hpp), held to what it must see on runs whose truth is
// known: a real run's outputs (the simulator's, on a generated scenario), told that a signal hit
// one of its parties at a given moment, with the exit status the emulation would have given.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fault_verdict.hpp"
#include "scenario_generator.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Seed 3's scenario: the controller, the scheduler and the requestors up from 0, daemon:n05
// never (its start fails), the run quiescent at 11.2 s.
class FaultVerdict : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir("verdict");
    std::ofstream(dir_ / "scenario.jsonl") << ScenarioGenerator(3).scenario();
    const auto r =
        run_pmixflow({"sim", "--scenario", (dir_ / "scenario.jsonl").string(), "--out", out().string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path out() const { return dir_ / "out"; }

  // The run, told that `party` got `blow` `at` s into it (speed 1: scenario seconds).
  FaultedRun hit(const std::string& party, Blow blow, double at, int exit_code, const std::string& err = "") const {
    Action a{blow, party, blow == Blow::Kill ? SIGKILL : blow == Blow::Term ? SIGTERM : SIGSTOP, true};
    a.from_s = a.to_s = at;
    return FaultedRun{exit_code, err, out(), dir_ / "scenario.jsonl", 1.0, {a}};
  }

  fs::path dir_;
};

TEST_F(FaultVerdict, APartyKilledInTheFlowThatTheRunDidNotNoticeIsAFinding) {
  std::vector<std::string> notes;
  const auto found = fault_breaches(hit("controller", Blow::Kill, 2.0, 0), notes);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("SIGKILL to controller"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("instead of 3"), std::string::npos) << found[0];
}

TEST_F(FaultVerdict, AKillOfAPartyNotInTheFlowOrAsTheRunEndsProvesNothing) {
  std::vector<std::string> notes;
  EXPECT_TRUE(fault_breaches(hit("daemon:n05", Blow::Term, 2.0, 0), notes).empty());
  EXPECT_TRUE(fault_breaches(hit("scheduler", Blow::Kill, 11.0, 0), notes).empty());
  EXPECT_TRUE(fault_breaches(hit("scheduler", Blow::StopCont, 2.0, 0), notes).empty());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("not up"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("the run ended near then"), std::string::npos) << notes[1];
}

TEST_F(FaultVerdict, ACutRunMustNameAPartyTheHarnessKilledAndLookCut) {
  std::vector<std::string> notes;
  const std::string said = "pmixflow emul: scheduler's process killed by signal 9 (SIGKILL), not by the scenario; ...";
  // A stop alone never cuts a run; a cut run names whom the harness killed.
  EXPECT_FALSE(fault_breaches(hit("scheduler", Blow::StopCont, 2.0, 3, said), notes).empty());
  EXPECT_FALSE(fault_breaches(hit("controller", Blow::Kill, 2.0, 3, said), notes).empty());
  // The complete outputs of a finished run are not a cut run's.
  const auto whole = fault_breaches(hit("scheduler", Blow::Kill, 2.0, 3, said), notes);
  EXPECT_EQ(whole.size(), 4u);  // log.end, no party.down for the scheduler, summary.json, jobs.csv
  // Cut as the emulation cuts it: the log stops at the party's party.down, no results.
  std::string log, line;
  std::ifstream in(out() / "events.jsonl");
  for (int n = 0; std::getline(in, line) && n < 40; ++n) log += line + "\n";
  in.close();
  std::ofstream(out() / "events.jsonl") << log << R"({"t":5,"ev":"party.down","who":"scheduler"})"
                                        << "\n";
  fs::remove(out() / "summary.json");
  fs::remove(out() / "jobs.csv");
  const auto cut = fault_breaches(hit("scheduler", Blow::Kill, 2.0, 3, said), notes);
  EXPECT_TRUE(cut.empty()) << cut.front();
}

// The run made to end `stalled: WHO waits for N answers` (the emulation's end when nothing can
// move but calls wait), with one more of requestor:a's answers taken out of its log and its
// account when `drop`.
void stall(const fs::path& out, const std::string& waits, bool drop) {
  std::vector<nlohmann::ordered_json> events;  // the reader wants its keys in order
  std::ifstream in(out / "events.jsonl");
  bool dropped = !drop;
  for (std::string line; std::getline(in, line);) {
    auto e = nlohmann::ordered_json::parse(line);
    if (!dropped && e.value("ev", "") == "answer" && e.value("who", "") == "requestor:a") {
      dropped = true;
      continue;
    }
    if (e.value("ev", "") == "log.end") e["end"] = "stalled: " + waits;
    events.push_back(e);
  }
  in.close();
  std::ofstream log(out / "events.jsonl");
  for (const auto& e : events) log << e.dump() << "\n";
  if (!drop) return;
  json summary = json::parse(slurp(out / "summary.json"));
  summary["call_account"]["answered"] = summary["call_account"]["answered"].get<int>() - 1;
  summary["call_account"]["never_answered"] = summary["call_account"]["never_answered"].get<int>() + 1;
  std::ofstream(out / "summary.json") << summary.dump();
}

TEST_F(FaultVerdict, AStalledRunLeavesUnansweredExactlyTheCallsItSaysWait) {
  std::vector<std::string> notes;
  stall(out(), "requestor:a waits for 1 answer", true);
  const auto held = fault_breaches(hit("scheduler", Blow::StopCont, 2.0, 1), notes);
  EXPECT_TRUE(held.empty()) << held.front();
  // The stalled end says more waits than the log leaves unanswered (or the other way round: a
  // call answered after the run was found stuck).
  stall(out(), "requestor:a waits for 2 answers", false);
  const auto found = fault_breaches(hit("scheduler", Blow::StopCont, 2.0, 1), notes);
  ASSERT_FALSE(found.empty());
  EXPECT_NE(found.back().find("other calls are left unanswered"), std::string::npos) << found.back();
}

TEST_F(FaultVerdict, OnlyTheDocumentedStatusesAreAllowed) {
  std::vector<std::string> notes;
  for (int code : {2, 70, 130, 134, 137})
    EXPECT_FALSE(fault_breaches(hit("scheduler", Blow::StopCont, 2.0, code), notes).empty()) << code;
}

}  // namespace
}  // namespace pmixflow::test
