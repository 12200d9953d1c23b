// Comparing two runs of one workload: the golden trace under EASY backfilling and under FCFS.
// Backfilling starts small jobs early, so jobs move; a run compared with itself moves nothing;
// and the moves agree with what the two runs' jobs.csv say (the log's clock is the CSV's plus
// a constant, so differences of starts are the same in both).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "pmixflow/view/comparison.hpp"
#include "pmixflow/view/run_model.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::view {
namespace {

namespace fs = std::filesystem;
using test::run_pmixflow;
using test::scratch_dir;

fs::path replay_golden(const std::string& policy) {
  const auto dir = scratch_dir(policy) / "run";
  const auto r = run_pmixflow({"sim", "--quiet", "--out", dir.string(), "--trace",
                               std::string(PMIXFLOW_SOURCE_DIR) + "/traces/golden.swf", "--policy", policy});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

// jobs.csv's starting_time (column 9) by corr ("job" + job_id).
std::map<std::string, double> csv_starts(const fs::path& run) {
  std::ifstream in(run / "jobs.csv");
  std::string line;
  std::getline(in, line);  // the header
  std::map<std::string, double> starts;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string cell; std::getline(fields, cell, ',');) f.push_back(cell);
    if (f.size() > 8 && !f[8].empty()) starts["job" + f[0]] = std::stod(f[8]);
  }
  return starts;
}

class Comparison2Policies : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    easy_dir_ = replay_golden("easy");
    fcfs_dir_ = replay_golden("fcfs");
  }
  static void TearDownTestSuite() {
    fs::remove_all(easy_dir_->parent_path());
    fs::remove_all(fcfs_dir_->parent_path());
  }
  // Suite-wide: each replay is a simulator process, too slow to repeat per test.
  static inline std::optional<fs::path> easy_dir_, fcfs_dir_;
};

TEST(Comparison, SameStartIsAbsoluteNearZeroAndRelativeFarFromIt) {
  EXPECT_TRUE(same_start(0, 1e-6));
  EXPECT_FALSE(same_start(0, 2e-6));
  EXPECT_TRUE(same_start(3.0e7, 3.0e7 + 20));  // 20 s in a year-long trace: within 1e-6
  EXPECT_FALSE(same_start(3.0e7, 3.0e7 + 40));
}

TEST_F(Comparison2Policies, ComparingARunWithItselfMovesNothing) {
  const RunModel a(*easy_dir_);
  const Comparison c = compare_runs(a, a);
  EXPECT_TRUE(c.moved.empty());
  EXPECT_TRUE(c.only_a.empty());
  EXPECT_TRUE(c.only_b.empty());
  EXPECT_EQ(c.summary.matched, 148u);  // every job of the trace ran
  EXPECT_EQ(c.summary.mean_abs_delta, 0);
}

TEST_F(Comparison2Policies, BackfillingMovesJobsAndTheMovesAreTheCsvsDifferences) {
  const RunModel easy(*easy_dir_);
  const RunModel fcfs(*fcfs_dir_);
  const Comparison c = compare_runs(easy, fcfs);
  EXPECT_EQ(c.summary.matched, 148u);
  EXPECT_TRUE(c.only_a.empty());
  EXPECT_TRUE(c.only_b.empty());
  ASSERT_FALSE(c.moved.empty());
  EXPECT_EQ(c.summary.moved, c.moved.size());

  // By hand from the two jobs.csv: job 5 (1 cpu, 199 s) is backfilled at 47.01 under EASY and
  // waits for the 32-slot job 2 under FCFS, starting at 430.01: 383 s later.
  const auto job5 = std::find_if(c.moved.begin(), c.moved.end(), [](const MovedJob& m) { return m.job == "job5"; });
  ASSERT_NE(job5, c.moved.end());
  EXPECT_NEAR(job5->delta(), 383.0, 0.01);
  EXPECT_EQ(easy.requests()[job5->request_a].corr, "job5");
  EXPECT_EQ(fcfs.requests()[job5->request_b].corr, "job5");
  EXPECT_TRUE(c.moved_in_a[job5->request_a]);
  EXPECT_TRUE(c.moved_in_b[job5->request_b]);

  // Every job: moved exactly when its CSV starts differ, by the CSV's difference.
  const auto a = csv_starts(*easy_dir_), b = csv_starts(*fcfs_dir_);
  ASSERT_EQ(a.size(), 148u);
  std::map<std::string, double> moved;
  for (const auto& m : c.moved) moved[m.job] = m.delta();
  double sum_abs = 0;
  for (const auto& [job, start_a] : a) {
    const double d = b.at(job) - start_a;
    sum_abs += std::abs(d);
    if (std::abs(d) < 1e-3) {
      EXPECT_FALSE(moved.contains(job)) << job;
    } else {
      ASSERT_TRUE(moved.contains(job)) << job;
      EXPECT_NEAR(moved[job], d, 1e-6) << job;
    }
  }
  EXPECT_NEAR(c.summary.mean_abs_delta, sum_abs / 148.0, 1e-6);

  // Largest move first.
  for (std::size_t i = 1; i < c.moved.size(); ++i)
    EXPECT_GE(std::abs(c.moved[i - 1].delta()), std::abs(c.moved[i].delta()));
  EXPECT_EQ(c.summary.max_abs_delta, std::abs(c.moved.front().delta()));
}

TEST_F(Comparison2Policies, AJobMissingFromOneRunIsListedAsSuch) {
  // The demo's requests are not the trace's: nothing matches, everything is on one side.
  const RunModel easy(*easy_dir_);
  const auto demo = scratch_dir("demo") / "run";
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", demo.string()}).exit_code, 0);
  const RunModel other(demo);
  const Comparison c = compare_runs(easy, other);
  EXPECT_EQ(c.summary.matched, 0u);
  EXPECT_EQ(c.only_a.size(), 148u);
  EXPECT_EQ(c.only_b.size(), job_spans(other).size());
  EXPECT_FALSE(c.only_b.empty());
  EXPECT_TRUE(c.moved.empty());
  fs::remove_all(demo.parent_path());
}

}  // namespace
}  // namespace pmixflow::view
