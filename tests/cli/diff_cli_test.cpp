// `pmixflow diff` as CI uses it: two runs of the real binary compared, exit status 0 when they
// are equal, 1 when not (naming the first diverging event and the jobs that moved), 2 on bad input.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backfill_trace.hpp"
#include "pmixflow_run.hpp"
#include "contains.hpp"

namespace pmixflow::test {
namespace {

constexpr const char* kTrace = kBackfillTrace;

// The 1-based line at which two event logs' events first differ (0: they do not). Line 1, the
// header, is not an event.
std::size_t first_differing_event_line(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::ifstream ia(a), ib(b);
  std::string la, lb;
  std::getline(ia, la);
  std::getline(ib, lb);
  for (std::size_t line = 2;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(ia, la));
    const bool more_b = static_cast<bool>(std::getline(ib, lb));
    if (!more_a && !more_b) return 0;
    if (more_a != more_b || la != lb) return line;
  }
}

TEST(DiffCli, TwoRunsOfTheDemoAreEqual) {
  const auto dir = scratch_dir("demo");
  const auto a = dir / "a", b = dir / "b";
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", a.string()}).exit_code, 0);
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", b.string()}).exit_code, 0);
  // wall_s differs between the two runs; nothing else does.
  const auto r = run_pmixflow({"diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, ": equal\n"));
  EXPECT_TRUE(Contains(r.out, "events: identical"));
  EXPECT_TRUE(Contains(r.out, "jobs: identical"));
  EXPECT_TRUE(Contains(r.out, "summary: identical"));
  EXPECT_TRUE(r.err.empty()) << r.err;

  const auto j = run_pmixflow({"diff", a.string(), b.string(), "--json"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report["equal"], true);
  EXPECT_EQ(report["events"]["identical"], true);
  EXPECT_TRUE(report["events"]["first_divergence"].is_null());
  EXPECT_TRUE(report["jobs"]["changed"].empty());
  std::filesystem::remove_all(dir);
}

TEST(DiffCli, EasyAgainstFcfsNamesTheFirstDivergingEventAndTheJobsThatMoved) {
  const auto dir = scratch_dir("policies");
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << kTrace;
  const auto fcfs = dir / "fcfs", easy = dir / "easy";
  ASSERT_EQ(
      run_pmixflow({"sim", "--quiet", "--trace", trace.string(), "--policy", "fcfs", "--out", fcfs.string()}).exit_code,
      0);
  ASSERT_EQ(
      run_pmixflow({"sim", "--quiet", "--trace", trace.string(), "--policy", "easy", "--out", easy.string()}).exit_code,
      0);
  // The headers differ in their inputs (the policy); the events further on.
  const std::size_t line = first_differing_event_line(fcfs / "events.jsonl", easy / "events.jsonl");
  ASSERT_GT(line, 1u);

  const auto r = run_pmixflow({"diff", fcfs.string(), easy.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "DIFFERENT"));
  EXPECT_TRUE(Contains(r.out, "header inputs that differ: policy"));
  EXPECT_TRUE(Contains(r.out, "first diverging event: line " + std::to_string(line) + ","));
  EXPECT_TRUE(Contains(r.out, "job 3: start 200."));
  EXPECT_TRUE(Contains(r.out, "(delta -198"));
  EXPECT_TRUE(Contains(r.out, "mean_wait_s"));
  EXPECT_TRUE(r.err.empty()) << r.err;

  const auto j = run_pmixflow({"diff", fcfs.string(), easy.string(), "--json"});
  EXPECT_EQ(j.exit_code, 1) << j.err;
  const json report = json::parse(j.out);
  EXPECT_EQ(report["equal"], false);
  EXPECT_EQ(report["events"]["first_divergence"]["line"].get<std::size_t>(), line);
  EXPECT_FALSE(report["events"]["first_divergence"]["field"].is_null());
  EXPECT_EQ(report["events"]["inputs"][0]["name"], "policy");
  bool found = false;
  for (const auto& job : report["jobs"]["changed"])
    if (job["job_id"] == "3") {
      found = true;
      EXPECT_NEAR(job["start_delta"].get<double>(), -198, 0.05);
    }
  EXPECT_TRUE(found) << report["jobs"].dump(2);
  EXPECT_GE(report["jobs"]["start_differs"].get<int>(), 1);

  // The event logs alone tell the same first divergence.
  const auto logs = run_pmixflow({"diff", (fcfs / "events.jsonl").string(), (easy / "events.jsonl").string()});
  EXPECT_EQ(logs.exit_code, 1) << logs.err;
  EXPECT_TRUE(Contains(logs.out, "first diverging event: line " + std::to_string(line) + ","));
  std::filesystem::remove_all(dir);
}

TEST(DiffCli, ARunMissingAnOutputTheOtherHasIsNotComparedButRefused) {
  const auto dir = scratch_dir("lacking");
  const auto full = dir / "full", summary_only = dir / "summary-only";
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", full.string()}).exit_code, 0);
  std::filesystem::create_directories(summary_only);
  std::filesystem::copy_file(full / "summary.json", summary_only / "summary.json");
  const auto r = run_pmixflow({"diff", summary_only.string(), full.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(Contains(r.err, "A has summary.json")) << r.err;
  EXPECT_TRUE(Contains(r.err, "has events.jsonl, jobs.csv, summary.json")) << r.err;
  EXPECT_FALSE(Contains(r.out, "equal")) << r.out;
  // Two event logs named alone are still compared.
  EXPECT_EQ(run_pmixflow({"diff", (full / "events.jsonl").string(), (full / "events.jsonl").string()}).exit_code, 0);
  std::filesystem::remove_all(dir);
}

TEST(DiffCli, AMissingRunIsBadInput) {
  const auto dir = scratch_dir("missing");
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", (dir / "a").string()}).exit_code, 0);
  const std::string missing = (dir / "no-such-run").string();
  const auto r = run_pmixflow({"diff", (dir / "a").string(), missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, missing));
  EXPECT_TRUE(r.out.empty()) << r.out;

  std::filesystem::create_directories(dir / "empty");
  const auto empty = run_pmixflow({"diff", (dir / "empty").string(), (dir / "a").string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(Contains(empty.err, (dir / "empty").string()));

  EXPECT_EQ(run_pmixflow({"diff", (dir / "a").string()}).exit_code, 2);  // RUN_B is required
  std::filesystem::remove_all(dir);
}

TEST(DiffCli, DeeplyNestedInputsAreBadInputNotACrash) {
  const auto dir = scratch_dir("deep");
  const auto a = dir / "a", b = dir / "b";
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", a.string()}).exit_code, 0);
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", b.string()}).exit_code, 0);
  // A summary.json nested two hundred thousand deep would overflow the stack of any walk of it.
  std::ofstream(b / "summary.json") << R"({"format":"pmixflow-summary","makespan_s":)" << std::string(200000, '[');
  auto r = run_pmixflow({"diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, (b / "summary.json").string() + ": field 'makespan_s"));
  EXPECT_TRUE(Contains(r.err, "nested deeper than 64 levels"));
  EXPECT_LT(r.err.size(), 600u);
  // So would the header of an event log.
  std::ofstream(b / "summary.json") << "{}";
  std::ofstream(b / "events.jsonl") << R"({"format":"pmixflow-events","inputs":)" << std::string(200000, '{') << "\n";
  r = run_pmixflow({"diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "events.jsonl:1")) << r.err;
  EXPECT_TRUE(Contains(r.err, "nested deeper than 64 levels")) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(DiffCli, HelpDescribesTheExitStatus) {
  const auto r = run_pmixflow({"diff", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.out, "RUN_A"));
  EXPECT_TRUE(Contains(r.out, "--json"));
  EXPECT_TRUE(Contains(r.out, "Exit status 0 when equal, 1 when not, 2 on bad input"));
}

}  // namespace
}  // namespace pmixflow::test
