// `pmixflow compare RUN...`: one table of any number of runs, as text, CSV or JSON, with the
// inputs the runs differ in as columns; a RUN that is not a run refused naming it.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test::compare_cli_tests {
namespace {

namespace fs = std::filesystem;

// A run directory holding only a summary.json, as a run made after the percentiles were
// recorded writes it (those figures are made up: the table is what is checked).
fs::path fixture_run(const fs::path& dir, const std::string& policy, double mean_wait, int seed = 0) {
  const json summary{{"format", "pmixflow-summary"},
                     {"version", 1},
                     {"env", "sim"},
                     {"scenario", "golden.swf"},
                     {"seed", seed},
                     {"policy", policy},
                     {"nodes", 8},
                     {"options", {{"batch_delay", 0.01}}},
                     {"jobs", 148},
                     {"utilization", 0.7},
                     {"makespan_s", 20143.0},
                     {"mean_wait_s", mean_wait},
                     {"p50_wait_s", 38.0},
                     {"p90_wait_s", 6420.0},
                     {"p99_wait_s", 9000.0},
                     {"max_wait_s", 14243.0},
                     {"mean_bounded_slowdown", 23.5},
                     {"p50_bounded_slowdown", 1.0},
                     {"p90_bounded_slowdown", 40.0},
                     {"p99_bounded_slowdown", 400.0},
                     {"preemptions", policy == "priority-preempt" ? 3 : 0}};
  fs::create_directories(dir / policy);
  std::ofstream(dir / policy / "summary.json") << summary.dump(2);
  return dir / policy;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

TEST(CompareCli, FourRunsMakeOneTableWithAPolicyColumn) {
  const auto dir = scratch_dir("compare_four");
  std::vector<std::string> args{"compare"};
  const std::vector<std::pair<std::string, double>> runs = {
      {"fcfs", 6990.75}, {"easy", 946.9}, {"conservative", 1059.1}, {"priority-preempt", 984.2}};
  for (const auto& [policy, wait] : runs) args.push_back(fixture_run(dir, policy, wait).string());

  const auto text = run_pmixflow(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const auto lines = lines_of(text.out);
  ASSERT_GE(lines.size(), 5u) << text.out;
  EXPECT_EQ(lines[0].rfind("run ", 0), 0u) << text.out;
  for (const char* heading : {"policy", "mean wait", "p50 wait", "p90 wait", "p99 wait", "p99 bsld", "preempted"})
    EXPECT_TRUE(Contains(lines[0], heading)) << heading << "\n" << text.out;
  EXPECT_FALSE(Contains(lines[0], "seed")) << "the same in every run: not a column\n" << text.out;
  EXPECT_TRUE(Contains(lines[1], "1 h 57 min")) << "6990 s, as a person reads it\n" << text.out;
  EXPECT_TRUE(Contains(lines[1], "1 h 47 min")) << text.out;  // p90: 6420 s
  EXPECT_TRUE(Contains(lines[4], "priority-preempt")) << text.out;
  EXPECT_TRUE(Contains(text.out, "same in every run: env sim; scenario golden.swf; seed 0; nodes 8; batch_delay 0.01"))
      << text.out;
  EXPECT_FALSE(Contains(text.out, "no percentiles")) << text.out;

  args.insert(args.begin() + 1, {"--format", "csv", "--sort", "mean_wait_s"});
  const auto csv = run_pmixflow(args);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = lines_of(csv.out);
  ASSERT_EQ(rows.size(), 5u) << csv.out;
  EXPECT_EQ(rows[0],
            "run,policy,jobs,utilization,makespan_s,mean_wait_s,p50_wait_s,p90_wait_s,p99_wait_s,max_wait_s,"
            "mean_bounded_slowdown,p50_bounded_slowdown,p90_bounded_slowdown,p99_bounded_slowdown,preemptions");
  EXPECT_EQ(rows[1], "easy,easy,148,0.7,20143,946.9,38,6420,9000,14243,23.5,1,40,400,0") << "sorted by mean wait";
  EXPECT_EQ(rows[4].rfind("fcfs,", 0), 0u);

  args[2] = "json";
  const auto j = run_pmixflow(args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json table = json::parse(j.out);
  EXPECT_EQ(table["format"], "pmixflow-compare");
  ASSERT_EQ(table["rows"].size(), 4u);
  EXPECT_EQ(table["rows"][0]["policy"], "easy");
  EXPECT_EQ(table["rows"][0]["p90_wait_s"], 6420.0);
  fs::remove_all(dir);
}

TEST(CompareCli, RealRunsWithoutPercentilesShowADashAndSaySoOnce) {
  const auto dir = scratch_dir("compare_real");
  std::vector<std::string> args{"compare"};
  for (const char* policy : {"fcfs", "easy"}) {
    const auto out = dir / policy;
    ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--trace", source_path("traces/golden.swf"), "--policy", policy,
                            "--events", "none", "--out", out.string()})
                  .exit_code,
              0);
    args.push_back(out.string());
  }
  const auto r = run_pmixflow(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_TRUE(Contains(lines[0], "policy")) << r.out;
  EXPECT_TRUE(Contains(lines[1], "fcfs")) << r.out;
  // The percentiles are the summary's; until a run records them, the table says it lacks them.
  const json summary = json::parse(slurp(dir / "fcfs" / "summary.json"));
  if (!summary.contains("p50_wait_s")) {
    EXPECT_TRUE(Contains(lines[1], " - ")) << r.out;
    EXPECT_TRUE(Contains(r.out, "no percentiles in the summary of fcfs, easy")) << r.out;
  }
  const auto csv = run_pmixflow({"compare", "--format", "csv", args[1], args[2]});
  EXPECT_TRUE(Contains(csv.out, "\nfcfs,fcfs,148,")) << csv.out;
  fs::remove_all(dir);
}

TEST(CompareCli, ASweepDirectoryStandsForItsRuns) {
  const auto dir = scratch_dir("compare_sweep");
  fixture_run(dir / "study" / "runs", "easy", 946.9);
  fixture_run(dir / "study" / "runs", "fcfs", 6990.75);
  const auto r = run_pmixflow({"compare", "--format", "csv", (dir / "study").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines_of(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[1].rfind("easy,easy,", 0), 0u) << r.out;
  EXPECT_EQ(rows[2].rfind("fcfs,fcfs,", 0), 0u) << r.out;
  fs::remove_all(dir);
}

TEST(CompareCli, WhatIsNotARunIsRefusedNamingIt) {
  const auto dir = scratch_dir("compare_bad");
  const auto good = fixture_run(dir, "fcfs", 1);
  const auto missing = (dir / "nowhere").string();
  auto r = run_pmixflow({"compare", good.string(), missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "pmixflow compare: " + missing + ": no such file or directory")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  fs::create_directories(dir / "empty");
  r = run_pmixflow({"compare", (dir / "empty").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "not a run: it has no summary.json")) << r.err;

  std::ofstream(dir / "other.json") << R"({"format":"something-else"})";
  r = run_pmixflow({"compare", (dir / "other.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "not a pmixflow summary")) << r.err;

  r = run_pmixflow({"compare", "--sort", "mean_wiat_s", good.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "pmixflow compare: --sort: 'mean_wiat_s' is not a column")) << r.err;

  r = run_pmixflow({"compare", "--format", "xml", good.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--format")) << r.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test::compare_cli_tests
