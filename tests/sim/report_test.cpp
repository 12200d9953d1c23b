// Results come from the log alone: `pmixflow report` rebuilds a run's jobs.csv, summary.json
// and recorded.csv byte for byte from its events.jsonl; a cut log is refused, naming its last
// good line; and a running log can be followed, whole line by whole line.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/log/reader.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

// Runs `sim_args` with an event log, rebuilds the outputs from it elsewhere, and requires the
// same bytes.
void expect_report_reproduces(const std::vector<std::string>& sim_args, const std::string& name) {
  const auto dir = scratch_dir(name);
  std::vector<std::string> args{"sim"};
  args.insert(args.end(), sim_args.begin(), sim_args.end());
  args.insert(args.end(), {"--out", (dir / "run").string(), "--quiet"});
  const auto sim = run_pmixflow(args, PMIXFLOW_SOURCE_DIR);
  ASSERT_EQ(sim.exit_code, 0) << name << ": " << sim.err;
  const auto report = run_pmixflow({"report", (dir / "run").string(), "--out", (dir / "again").string(), "--quiet"});
  ASSERT_EQ(report.exit_code, 0) << name << ": " << report.err;
  for (const char* file : {"jobs.csv", "summary.json", "recorded.csv"}) {
    const bool ran = fs::exists(dir / "run" / file);
    EXPECT_EQ(ran, fs::exists(dir / "again" / file)) << name << ": " << file;
    if (ran) {
      EXPECT_EQ(slurp(dir / "run" / file), slurp(dir / "again" / file)) << name << ": " << file << " differs";
    }
  }
  fs::remove_all(dir);
}

std::vector<std::vector<std::string>> golden_options() {
  std::vector<std::vector<std::string>> out;
  std::ifstream in(source_path("tests/golden/runs.txt"));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name, w;
    if (!(words >> name) || name[0] == '#') continue;
    std::vector<std::string> options{"--trace", "traces/golden.swf", "--compare-recorded"};
    while (words >> w) options.push_back(w == "@smallest_first" ? PMIXFLOW_EXAMPLE_POLICY : w);
    out.push_back(options);
  }
  return out;
}

TEST(Report, RebuildsEveryGoldenRunFromItsLogByteForByte) {
  const auto runs = golden_options();
  ASSERT_GE(runs.size(), 5u);
  for (std::size_t i = 0; i < runs.size(); ++i) expect_report_reproduces(runs[i], "golden" + std::to_string(i));
}

TEST(Report, RebuildsScenarioRunsByteForByte) {
  expect_report_reproduces({}, "demo");
  for (const char* scenario :
       {"traces/session-control.jsonl", "traces/spawn-alloc.jsonl", "traces/scheduler-detach.jsonl",
        "tests/scenarios/preempt-priority.jsonl", "tests/scenarios/fail-node-down.jsonl"})
    expect_report_reproduces({"--scenario", scenario}, fs::path(scenario).stem().string());
}

TEST(Report, RebuildsAKthReplayByteForByte) {
  PMIXFLOW_REQUIRE_SHARED_DATA();
#ifndef NDEBUG
  GTEST_SKIP() << "28,000 jobs through the flow with their whole log: checked by the optimised build";
#endif
  expect_report_reproduces(
      {"--trace", shared_path("data/traces/KTH-SP2-1996-2.1-cln.swf.gz"), "--policy", "easy", "--compare-recorded"},
      "kth");
}

// A whole run's log, its last lines cut in two ways.
class CutLog : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir("cut");
    ASSERT_EQ(run_pmixflow({"sim", "--out", (dir_ / "run").string(), "--quiet"}).exit_code, 0);
    text_ = slurp(dir_ / "run" / "events.jsonl");
    lines_ = static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n'));
  }
  void TearDown() override { fs::remove_all(dir_); }
  void keep(std::size_t bytes) {
    std::ofstream(dir_ / "run" / "events.jsonl", std::ios::binary) << text_.substr(0, bytes);
  }
  RunResult report(bool partial) {
    std::vector<std::string> args{"report", (dir_ / "run").string(), "--out", (dir_ / "again").string(), "--quiet"};
    if (partial) args.push_back("--partial");
    return run_pmixflow(args);
  }
  fs::path dir_;
  std::string text_;
  std::size_t lines_ = 0;
};

TEST_F(CutLog, WithoutItsClosingLineItIsRefusedNamingTheLastGoodLine) {
  keep(text_.rfind("{\"t\":"));  // every line but the closing one
  const auto r = report(false);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no closing line"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("last good line " + std::to_string(lines_ - 1)), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "again" / "summary.json"));  // nothing that looks whole
}

TEST_F(CutLog, CutInTheMiddleOfALineItIsRefusedNamingTheLineBefore) {
  keep(text_.rfind("{\"t\":") - 40);  // into the last event
  const auto r = report(false);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(":" + std::to_string(lines_ - 1) + ":"), std::string::npos) << r.err;  // the cut line
  EXPECT_NE(r.err.find("cut short"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("last good line " + std::to_string(lines_ - 2)), std::string::npos) << r.err;
}

TEST_F(CutLog, PartialReportsWhatIsThereAndSaysSo) {
  keep(text_.rfind("{\"t\":"));
  const auto r = report(true);
  EXPECT_NE(r.exit_code, 2) << r.err;
  const auto summary = json::parse(slurp(dir_ / "again" / "summary.json"));
  EXPECT_EQ(summary["partial"], true);
  EXPECT_FALSE(summary.contains("wall_s"));  // the run's own figures are in the closing line
  EXPECT_EQ(summary["calls"].size(), json::parse(slurp(dir_ / "run" / "summary.json"))["calls"].size());
}

// The lines of a log so far: a cut log is expected while the run goes on, a malformed line never.
struct Seen {
  std::uint64_t lines = 0;
  bool whole = false;
  std::string problem;
};

Seen look(const fs::path& log_file) {
  Seen s;
  try {
    log::LogReader r(log_file.string(), {.strict = true});
    while (r.next()) {
    }
    s.lines = r.last_good_line();
    s.whole = r.complete();
    if (!r.complete()) {
      const std::string what = r.problem() ? r.problem()->what() : "";
      if (what.find("no closing line") == std::string::npos && what.find("cut short") == std::string::npos)
        s.problem = what;
    }
  } catch (const InputError& e) {  // the header itself not written yet is no error
    if (std::string(e.what()).find("empty") == std::string::npos) s.problem = e.what();
  }
  return s;
}

TEST(FollowingALog, ItGrowsWhileTheRunGoesAndEveryLineInItParses) {
  PMIXFLOW_REQUIRE_SHARED_DATA();
#ifndef NDEBUG
  GTEST_SKIP() << "needs a replay long enough to watch: checked by the optimised build";
#endif
  const auto dir = scratch_dir("follow");
  const fs::path log_file = dir / "run" / "events.jsonl";
  const std::string cmd = quote(PMIXFLOW_BIN) + " sim --trace " +
                          quote(shared_path("data/traces/KTH-SP2-1996-2.1-cln.swf.gz")) + " --policy easy --out " +
                          quote((dir / "run").string()) + " --quiet";
  FILE* run = ::popen(cmd.c_str(), "r");
  ASSERT_NE(run, nullptr);
  std::vector<std::uint64_t> sizes;
  for (int i = 0; i < 600 && sizes.size() < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    if (!fs::exists(log_file)) continue;
    const Seen seen = look(log_file);
    EXPECT_TRUE(seen.problem.empty()) << seen.problem;
    if (seen.whole) break;
    if (sizes.empty() || seen.lines > sizes.back()) sizes.push_back(seen.lines);
  }
  const int status = ::pclose(run);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_GE(sizes.size(), 3u) << "the log did not grow in sight while the run went on";
  const Seen end = look(log_file);
  EXPECT_TRUE(end.whole) << end.problem;
  EXPECT_GT(end.lines, sizes.empty() ? 0 : sizes.back());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
