// A run's outcomes against the trace's recording, computed by hand.
#include "pmixflow/results/run_outcomes.hpp"

#include <gtest/gtest.h>

namespace pmixflow {
namespace {

JobOutcome outcome(const std::string& id, double submitted, double started) {
  JobOutcome j;
  j.job_id = id;
  j.submitted = submitted;
  j.started = started;
  j.finished = started < 0 ? -1 : started + 10;
  return j;
}

TEST(RecordedComparison, WaitsAreComparedJobByJob) {
  const std::map<std::string, double> trace{{"1", 100}, {"2", 0}, {"3", 50}, {"4", -1}};
  // Job 3 never started and job 4 has no recorded wait: neither is compared.
  const std::vector<JobOutcome> run = {outcome("1", 0, 100), outcome("2", 10, 710), outcome("3", 20, -1),
                                       outcome("4", 30, 40)};
  const auto c = compare_with_recording(run, trace);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->csv, "job_id,simulated_wait,recorded_wait\n1,100,100\n2,700,0\n");
  EXPECT_EQ(c->jobs_compared, 2u);
  EXPECT_DOUBLE_EQ(c->mean_recorded_wait_s, 50);
  EXPECT_DOUBLE_EQ(c->mean_abs_deviation_s, 350);
  EXPECT_DOUBLE_EQ(c->share_within_10_min, 0.5);
  EXPECT_DOUBLE_EQ(c->correlation, -1);  // the longer simulated wait is the shorter recorded one
}

TEST(RecordedComparison, NothingToCompareIsNothing) {
  const std::map<std::string, double> trace{{"1", -1}};
  EXPECT_FALSE(compare_with_recording({outcome("1", 0, 5)}, trace).has_value());
}

}  // namespace
}  // namespace pmixflow
