// Every call a workload plans is accounted for once (README, "Exit status"): answered,
// abandoned by a requestor that exited, or refused at input; a call that could never be made
// is refused before the run, and one the log lacks fails the run. Said in summary.json, on the
// closing line and on the terminal.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

constexpr const char* kHeader =
    R"({"format":"pmixflow-scenario","version":1,"name":"lives","controller":{"dvm":"all"}})";

std::string alloc_at(int at, const std::string& requestor) {
  return R"({"at":)" + std::to_string(at) + R"(,"op":"alloc","requestor":")" + requestor +
         R"(","via":"controller","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":1},"expect":{"status":"PMIX_SUCCESS"}})";
}

std::string transition(const char* op, int at, const std::string& requestor) {
  return R"({"at":)" + std::to_string(at) + R"(,"op":")" + op + R"(","requestor":")" + requestor + R"("})";
}

std::filesystem::path scenario(const std::filesystem::path& dir, const std::vector<std::string>& lines) {
  const auto file = dir / "s.jsonl";
  std::ofstream out(file);
  out << kHeader << "\n";
  for (const auto& l : lines) out << l << "\n";
  return file;
}

json summary_of(const std::filesystem::path& out) { return json::parse(slurp(out / "summary.json")); }

// A scenario of `lines` that `sim` refuses at input: exit 2, the error naming the file, the line
// and what is wrong (`says`, after "FILE:LINE: "), and nothing written to --out.
void expect_refused(const char* name, const std::vector<std::string>& lines, int line, const std::string& says) {
  const auto dir = scratch_dir(name);
  const auto file = scenario(dir, lines);
  const auto r = run_pmixflow({"sim", "--scenario", file.string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(file.string() + ":" + std::to_string(line) + ": " + says), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "summary.json"));
  std::filesystem::remove_all(dir);
}

TEST(CallAccount, ACallAfterItsRequestorExitedIsRefusedNamingBothLines) {
  expect_refused("after-exit", {alloc_at(1, "alice"), transition("requestor_exit", 5, "alice"), alloc_at(6, "alice")},
                 4, "field 'at': 'alice' calls at 6 s, at or after its requestor_exit at 5 s (line 3)");
  // A call at the very time of the exit has no time to be made either.
  expect_refused("at-exit", {transition("requestor_exit", 5, "alice"), alloc_at(5, "alice")}, 3,
                 "field 'at': 'alice' calls at 5 s, at or after its requestor_exit at 5 s (line 2)");
}

TEST(CallAccount, StartsAndExitsOfARequestorMustAlternate) {
  expect_refused(
      "exits-twice",
      {alloc_at(1, "alice"), transition("requestor_exit", 2, "alice"), transition("requestor_exit", 3, "alice")}, 4,
      "field 'op': 'alice' has already exited (line 3)");
  expect_refused("starts-running", {alloc_at(1, "alice"), transition("requestor_start", 2, "alice")}, 3,
                 "field 'op': 'alice' is running");
}

TEST(CallAccount, TheSchedulersOwnCallWhileItIsDetachedIsRefused) {
  expect_refused("scheduler-down",
                 {alloc_at(1, "alice"), R"({"at":2,"op":"scheduler_detach"})",
                  R"({"at":3,"op":"scheduler_session_control","session":1,"directives":{"PMIX_SESSION_PAUSE":true}})",
                  R"({"at":4,"op":"scheduler_attach"})"},
                 4, "field 'at': the scheduler makes this call at 3 s, while it is not running");
}

// Found by the whole-run fuzzer (seed 1309): a stall while the scheduler was detached held its
// next start back past a call of its own, which was then never made (exit 1, "never made").
TEST(CallAccount, AStallWhileTheSchedulerIsDetachedIsRefused) {
  expect_refused("stall-detached",
                 {alloc_at(1, "alice"), R"({"at":2,"op":"scheduler_detach"})",
                  R"({"at":2.5,"op":"scheduler_stall","for":3})", R"({"at":4,"op":"scheduler_attach"})"},
                 4, "field 'at': scheduler_stall at 2.5 s, while the scheduler is not running");
}

// A scheduler stalled, then detached before it resumed: its next process starts when planned, not
// when the stalled one would have resumed, and makes the calls planned for its life.
TEST(CallAccount, ASchedulerDetachedWhileStalledStartsAgainUnstalled) {
  const auto dir = scratch_dir("stalled-then-detached");
  const auto file = scenario(
      dir, {alloc_at(1, "alice"), R"({"at":2,"op":"scheduler_stall","for":5})", R"({"at":3,"op":"scheduler_detach"})",
            R"({"at":4,"op":"scheduler_attach"})",
            R"({"at":4.5,"op":"scheduler_session_control","session":1,"directives":{"PMIX_SESSION_PAUSE":true}})"});
  const auto out = dir / "out";
  const auto r = run_pmixflow({"sim", "--scenario", file.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(summary_of(out)["call_account"]["never_made"], 0);
  double up_again = -1, scheduler_call = -1;
  for (const auto& e : read_events(out / "events.jsonl")) {
    const std::string ev = e.value("ev", "");
    if (ev == "party.up" && e.value("who", "") == "scheduler" && e["t"].get<double>() > 0) up_again = e["t"];
    if (ev == "call" && e.value("who", "") == "scheduler") scheduler_call = e["t"];
  }
  EXPECT_DOUBLE_EQ(up_again, 4);
  EXPECT_DOUBLE_EQ(scheduler_call, 4.5);
  std::filesystem::remove_all(dir);
}

TEST(CallAccount, ARequestorStartedAgainMakesTheCallsOfItsNewLife) {
  const auto dir = scratch_dir("restart");
  const auto file = scenario(dir, {alloc_at(1, "alice"), transition("requestor_exit", 5, "alice"),
                                   transition("requestor_start", 8, "alice"), alloc_at(9, "alice")});
  const auto out = dir / "out";
  const auto r = run_pmixflow({"sim", "--scenario", file.string(), "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json account = summary_of(out)["call_account"];
  EXPECT_EQ(account["planned"], 2);
  EXPECT_EQ(account["answered"], 2);
  EXPECT_EQ(account["never_made"], 0);
  // The second call was made by the second process, after it came up.
  double up_again = -1, second_call = -1;
  for (const auto& e : read_events(out / "events.jsonl")) {
    const std::string ev = e.value("ev", "");  // the header has none
    if (ev == "party.up" && e.value("who", "") == "requestor:alice" && e["t"].get<double>() > 0) up_again = e["t"];
    if (ev == "call" && e.value("corr", "") == "alice#2") second_call = e["t"];
  }
  EXPECT_DOUBLE_EQ(up_again, 8);
  EXPECT_DOUBLE_EQ(second_call, 9);
  std::filesystem::remove_all(dir);
}

TEST(CallAccount, EveryClassIsCountedInTheSummaryTheClosingLineAndOnTheTerminal) {
  const auto dir = scratch_dir("classes");
  const auto out = dir / "out";
  const auto r = run_pmixflow(
      {"sim", "--scenario", source_path("tests/faults/requestor-exits-queued.jsonl"), "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json account = summary_of(out)["call_account"];
  EXPECT_EQ(account["planned"], 2);
  EXPECT_EQ(account["made"], 2);
  EXPECT_EQ(account["answered"], 1);
  EXPECT_EQ(account["abandoned"], 1);
  EXPECT_EQ(account["abandoned_by_reason"]["requestor_exit"], 1);
  EXPECT_EQ(account["never_answered"], 0);
  EXPECT_EQ(account["never_made"], 0);
  const auto events = read_events(out / "events.jsonl");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["ev"], "log.end");
  EXPECT_EQ(events.back()["stats"]["call_account"], account);
  EXPECT_NE(r.out.find("  calls: 2 planned: 1 answered, 1 abandoned (its requestor exited)\n"), std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

// A log whose header plans a call it does not show: the run did not do what it was given,
// and its report says so and fails, whoever wrote the log.
TEST(CallAccount, APlannedCallTheLogLacksFailsTheReport) {
  const auto dir = scratch_dir("never-made");
  const auto out = dir / "out";
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", out.string()}).exit_code, 0);
  std::string log = slurp(out / "events.jsonl");
  const auto first_line = log.substr(0, log.find('\n'));
  json header = json::parse(first_line);
  const std::uint64_t planned = header["inputs"]["calls_planned"];
  header["inputs"]["calls_planned"] = planned + 1;
  std::ofstream(dir / "events.jsonl") << header.dump() << log.substr(first_line.size());
  const auto r = run_pmixflow({"report", (dir / "events.jsonl").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("1 of the " + std::to_string(planned + 1) + " planned calls were never made"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_NE(r.out.find(", 1 never made"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
