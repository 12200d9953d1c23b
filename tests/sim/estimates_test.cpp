// A trace's estimates are the user's choice, said out loud: --estimates raised (the default)
// gives a job whose estimate is missing or shorter than its run time its run time, recorded
// keeps the trace's and ends a job that outlives it at its limit, as Slurm and Batsim do. Each
// run counts what it did in summary.json and on the terminal, its log's header records the
// rule and the cases (so that `pmixflow report` rebuilds the same summary), and
// `pmixflow diff` names the option when two runs differ in it.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow_run.hpp"
#include "trace_run.hpp"

namespace pmixflow::test::estimates_tests {
namespace {

namespace fs = std::filesystem;

// Three jobs of 100 s on a machine that runs them all at once: job 1 with no estimate (-1),
// job 2 with one shorter than its run (50 s), job 3 with a fine one (200 s).
constexpr const char* kTrace =
    "; MaxNodes: 4\n; MaxProcs: 4\n"
    "1 0 -1 100 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 0 -1 100 1 -1 -1 1 50 -1 1 1 1 -1 1 -1 -1 -1\n"
    "3 0 -1 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n";

struct Outcome {
  TraceRun run;
  json header;           // the log's first line
  json rebuilt_summary;  // `pmixflow report` of the log
};

Outcome replay(const std::vector<std::string>& options) {
  Outcome o;
  o.run = replay_trace("estimates", kTrace, options, [&o](const fs::path& out, TraceRun&) {
    o.header = read_events(out / "events.jsonl").front();
    const auto again = out.parent_path() / "again";
    const RunResult r = run_pmixflow({"report", out.string(), "--out", again.string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code == 0) o.rebuilt_summary = json::parse(slurp(again / "summary.json"));
  });
  return o;
}

const CsvRow& job(const TraceRun& r, const std::string& id) {
  for (const auto& row : r.rows)
    if (row.at("job_id") == id) return row;
  static const CsvRow none;
  ADD_FAILURE() << "no job " << id;
  return none;
}

double num(const CsvRow& row, const std::string& column) { return std::stod(row.at(column)); }

void expect_header_and_report(const Outcome& o, const std::string& rule) {
  EXPECT_EQ(o.header["inputs"]["options"]["estimates"], rule) << o.header.dump();
  EXPECT_EQ(o.header["inputs"]["estimates_by_case"], json({{"missing", 1}, {"shorter", 1}})) << o.header.dump();
  EXPECT_EQ(o.rebuilt_summary, o.run.summary) << "the counts come from the log, not from the run's memory";
}

TEST(Estimates, RaisedByDefaultGivesTheRunTimeAndSaysSo) {
  const Outcome o = replay({});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.terminal;
  EXPECT_NEAR(num(job(o.run, "1"), "requested_time"), 100, 1e-9);
  EXPECT_NEAR(num(job(o.run, "2"), "requested_time"), 100, 1e-9);
  EXPECT_NEAR(num(job(o.run, "3"), "requested_time"), 200, 1e-9);
  for (const auto& row : o.run.rows) EXPECT_EQ(row.at("final_state"), "COMPLETED_SUCCESSFULLY") << row.at("job_id");
  EXPECT_EQ(o.run.summary["options"]["estimates"], "raised");
  EXPECT_EQ(o.run.summary["estimates"],
            json({{"rule", "raised"}, {"missing", 1}, {"shorter", 1}, {"raised", 2}, {"ended_at_limit", 0}}));
  EXPECT_TRUE(Contains(o.run.terminal,
                       "  estimates raised to the run time (--estimates raised): 2 jobs (1 missing, 1 "
                       "shorter than the run time)\n"))
      << o.run.terminal;
  expect_header_and_report(o, "raised");
  // Said explicitly, it is the same run.
  const Outcome said = replay({"--estimates", "raised"});
  EXPECT_EQ(said.run.jobs_csv, o.run.jobs_csv);
}

TEST(Estimates, RecordedEndsAJobAtItsLimitAndLeavesAMissingOneUnlimited) {
  const Outcome o = replay({"--estimates", "recorded"});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.terminal;
  const CsvRow &missing = job(o.run, "1"), &shorter = job(o.run, "2"), &fine = job(o.run, "3");
  EXPECT_EQ(missing.at("requested_time"), "0") << "no estimate, no PMIX_ALLOC_TIME";
  EXPECT_EQ(missing.at("final_state"), "COMPLETED_SUCCESSFULLY");
  EXPECT_NEAR(num(missing, "execution_time"), 100, 0.5);
  EXPECT_NEAR(num(shorter, "requested_time"), 50, 1e-9);
  EXPECT_EQ(shorter.at("final_state"), "COMPLETED_WALLTIME_REACHED");
  EXPECT_NEAR(num(shorter, "execution_time"), 50, 0.5) << "ended at its limit, not at its run time";
  EXPECT_NEAR(num(fine, "requested_time"), 200, 1e-9);
  EXPECT_EQ(fine.at("final_state"), "COMPLETED_SUCCESSFULLY");
  EXPECT_EQ(o.run.summary["estimates"],
            json({{"rule", "recorded"}, {"missing", 1}, {"shorter", 1}, {"raised", 0}, {"ended_at_limit", 1}}));
  EXPECT_TRUE(Contains(o.run.terminal,
                       "  estimates as recorded (--estimates recorded): 1 missing, 1 shorter than the run time (a "
                       "missing one is no limit); 1 ended at their limit (COMPLETED_WALLTIME_REACHED)\n"))
      << o.run.terminal;
  expect_header_and_report(o, "recorded");
}

TEST(Estimates, DiffNamesTheRuleTwoRunsDifferIn) {
  const auto dir = scratch_dir("estimates-diff");
  std::ofstream(dir / "t.swf") << kTrace;
  for (const char* rule : {"raised", "recorded"})
    ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--trace", (dir / "t.swf").string(), "--estimates", rule, "--out",
                            (dir / rule).string()})
                  .exit_code,
              0);
  const RunResult d = run_pmixflow({"diff", (dir / "raised").string(), (dir / "recorded").string()});
  EXPECT_EQ(d.exit_code, 1) << d.out << d.err;
  EXPECT_TRUE(Contains(d.out, "estimates raised -> recorded")) << d.out;
  fs::remove_all(dir);
}

TEST(Estimates, TheOptionIsForATraceAndTakesItsTwoRules) {
  const RunResult scenario = run_pmixflow({"sim", "--estimates", "recorded"});
  EXPECT_EQ(scenario.exit_code, 2);
  EXPECT_TRUE(Contains(scenario.err, "--estimates applies only with --trace")) << scenario.err;
  const auto dir = scratch_dir("estimates-bad");
  std::ofstream(dir / "t.swf") << kTrace;
  const RunResult bad = run_pmixflow({"sim", "--trace", (dir / "t.swf").string(), "--estimates", "recorde"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(Contains(bad.err, "did you mean recorded")) << bad.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test::estimates_tests
