// The summary a person reads at the end of a run: durations in days, hours and minutes, counts
// grouped and with the right plural, only the lines that say something about this run, and
// the figures summary.json holds for a study (percentiles, the comparison with the recording,
// the skip reasons) on the terminal too, written from the same numbers.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow/vocab/human_text.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test::summary_cli_tests {

namespace fs = std::filesystem;

struct SimRun {
  RunResult result;
  json summary;
};

SimRun sim(const fs::path& out, std::vector<std::string> args) {
  args.insert(args.begin(), "sim");
  args.insert(args.end(), {"--out", out.string()});
  SimRun r{run_pmixflow(args), json()};
  if (fs::is_regular_file(out / "summary.json")) r.summary = json::parse(slurp(out / "summary.json"));
  return r;
}

std::string duration(const json& summary, const char* key) { return human_duration(summary.at(key).get<double>()); }
std::string measure(const json& summary, const char* key) { return significant(summary.at(key).get<double>()); }

TEST(SummaryCli, AReplaySaysItsWaitsInAPersonsUnitsWithTheirPercentiles) {
  const auto dir = scratch_dir("golden");
  const SimRun r = sim(dir / "out", {"--trace", source_path("traces/golden.swf"), "--policy", "easy"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  const std::string& out = r.result.out;
  const json& s = r.summary;
  EXPECT_TRUE(Contains(out, "  SWF replay: 148 jobs\n"));
  EXPECT_TRUE(Contains(out, "8 compute nodes of 4 slots"));
  EXPECT_TRUE(Contains(out, "  jobs: 148 run (148 COMPLETED_SUCCESSFULLY)\n"));
  // The two lines golden.swf is made to skip, and why, as summary.json's skipped_by_reason.
  EXPECT_TRUE(Contains(out, "  skipped in the trace: 2 job lines (1 processors > MaxProcs, 1 runtime < 0)\n"));
  // The terminal's figures are summary.json's, written for people.
  EXPECT_TRUE(Contains(out, "  wait: mean " + duration(s, "mean_wait_s") + ", p50 " + duration(s, "p50_wait_s") +
                                ", p90 " + duration(s, "p90_wait_s") + ", p99 " + duration(s, "p99_wait_s") + ", max " +
                                duration(s, "max_wait_s") + "\n"));
  EXPECT_TRUE(Contains(out, "  bounded slowdown: mean " + measure(s, "mean_bounded_slowdown") + ", p50 " +
                                measure(s, "p50_bounded_slowdown") + ", p90 " + measure(s, "p90_bounded_slowdown") +
                                ", p99 " + measure(s, "p99_bounded_slowdown") + "\n"));
  EXPECT_TRUE(Contains(out, "  utilization " + measure(s, "utilization") + ", makespan " + duration(s, "makespan_s")));
  EXPECT_TRUE(Contains(out, " h ")) << "hours of waits and makespan are said in hours";
  EXPECT_EQ(out.find("e+0"), std::string::npos) << "no exponent anywhere: " << out;
  // Nothing was rejected and a trace has no expectations: neither is said.
  EXPECT_EQ(out.find("rejected"), std::string::npos) << out;
  EXPECT_EQ(out.find("expectations:"), std::string::npos) << out;
  EXPECT_EQ(out.find("recorded waits"), std::string::npos) << "not asked for: " << out;
  EXPECT_LE(s.at("p50_wait_s").get<double>(), s.at("p90_wait_s").get<double>());
  EXPECT_LE(s.at("p99_wait_s").get<double>(), s.at("max_wait_s").get<double>());
  fs::remove_all(dir);
}

TEST(SummaryCli, ReportFromTheLogPrintsWhatTheRunPrinted) {
  const auto dir = scratch_dir("again");
  const SimRun r = sim(dir / "out", {"--trace", source_path("traces/golden.swf"), "--policy", "conservative"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  const RunResult again = run_pmixflow({"report", (dir / "out").string(), "--out", (dir / "report").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto before_outputs = [](const std::string& text) { return text.substr(0, text.find("  outputs: ")); };
  EXPECT_EQ(before_outputs(again.out), before_outputs(r.result.out));
  EXPECT_EQ(json::parse(slurp(dir / "report" / "summary.json")), r.summary);
  fs::remove_all(dir);
}

TEST(SummaryCli, TheComparisonWithTheRecordingIsOnTheTerminal) {
  const auto dir = scratch_dir("recorded");
  // Field 3, what the machine did: waits of 0, 99 and 700 s, a mean of 266.3 s.
  std::ofstream(dir / "t.swf") << "; MaxNodes: 4\n; MaxProcs: 4\n"
                                  "1 1000 0 100 2 -1 -1 2 100 -1 1 7 1 -1 1 -1 -1 -1\n"
                                  "2 1001 99 100 4 -1 -1 4 100 -1 1 7 1 -1 1 -1 -1 -1\n"
                                  "3 1002 700 50 2 -1 -1 2 50 -1 1 8 1 -1 1 -1 -1 -1\n";
  const SimRun r = sim(dir / "out", {"--trace", (dir / "t.swf").string(), "--policy", "easy", "--compare-recorded"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  const json& rec = r.summary.at("recorded");
  EXPECT_TRUE(Contains(r.result.out,
                       "  recorded waits (--compare-recorded): 3 jobs compared; mean recorded wait 4 min 26 s"
                       ", mean absolute deviation " +
                           duration(rec, "mean_abs_deviation_s") + ", correlation " + measure(rec, "correlation") +
                           ", 66.7 % within 10 min\n"));
  EXPECT_EQ(r.result.out.find("skipped"), std::string::npos) << "nothing was: " << r.result.out;
  fs::remove_all(dir);
}

TEST(SummaryCli, OneOfAThingIsSingular) {
  const auto dir = scratch_dir("one");
  std::ofstream(dir / "t.swf") << "; MaxNodes: 1\n; MaxProcs: 1\n"
                                  "1 0 0 100 1 -1 -1 1 100 -1 1 7 1 -1 1 -1 -1 -1\n";
  const SimRun r = sim(dir / "out", {"--trace", (dir / "t.swf").string()});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_TRUE(Contains(r.result.out, "  SWF replay: 1 job\n"));
  EXPECT_TRUE(Contains(r.result.out, "1 compute node of 1 slot ("));
  EXPECT_TRUE(Contains(r.result.out, ", 1 daemon started;"));
  // One job is every percentile of its run.
  for (const char* p : {"p50_wait_s", "p90_wait_s", "p99_wait_s"}) EXPECT_EQ(r.summary.at(p), r.summary["max_wait_s"]);
  fs::remove_all(dir);
}

TEST(SummaryCli, WithoutAJobThatRanThereAreNoPercentilesNorWaitLines) {
  const auto dir = scratch_dir("none");
  std::ofstream(dir / "s.jsonl")
      << R"({"format":"pmixflow-scenario","version":1,"name":"none-ran","controller":{"dvm":"all"}})"
         "\n"
         R"({"at":1,"op":"alloc","requestor":"a","via":"scheduler","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NODE_LIST":"n99"},"expect":{"status":"PMIX_ERR_BAD_PARAM"}})"
         "\n";
  const SimRun r = sim(dir / "out", {"--scenario", (dir / "s.jsonl").string()});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.out << r.result.err;
  for (const char* p : {"p50_wait_s", "p90_wait_s", "p99_wait_s", "p50_bounded_slowdown", "p90_bounded_slowdown",
                        "p99_bounded_slowdown"})
    EXPECT_TRUE(r.summary.at(p).is_null()) << p;
  EXPECT_EQ(r.summary.at("mean_wait_s"), 0) << "the means stay as they were";
  EXPECT_TRUE(Contains(r.result.out, "  allocation requests: 1 REJECTED\n"));
  EXPECT_TRUE(Contains(r.result.out, "  expectations: 1 checked, 0 failed\n"));
  fs::remove_all(dir);
}

}  // namespace pmixflow::test::summary_cli_tests
