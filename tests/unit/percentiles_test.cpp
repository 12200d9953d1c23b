// summary.json's p50/p90/p99: nearest rank, checked by hand on cases small enough to count.
#include <gtest/gtest.h>

#include "pmixflow/results/outcomes.hpp"

namespace pmixflow::test::percentiles_tests {

std::vector<double> one_to(int n) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

JobOutcome ran(double submitted, double started, double run) {
  JobOutcome j;
  j.submitted = submitted;
  j.started = started;
  j.finished = started + run;
  j.final_state = "COMPLETED_SUCCESSFULLY";
  j.allocated_count = 1;
  return j;
}

TEST(NearestRank, IsTheSmallestValueWithThatShareAtOrBelowIt) {
  const auto p = percentiles(one_to(100));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->p50, 50);
  EXPECT_EQ(p->p90, 90);
  EXPECT_EQ(p->p99, 99);  // 99 of the 100 are at or below 99
}

TEST(NearestRank, RoundsTheRankUpAndNeverInterpolates) {
  const auto p = percentiles({30, 10, 20});  // unsorted: percentiles() sorts
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->p50, 20);  // rank ceil(1.5) = 2, not 15 or 20's neighbour
  EXPECT_EQ(p->p90, 30);
  EXPECT_EQ(p->p99, 30);
  EXPECT_EQ(nearest_rank(one_to(10), 90), 9);  // 0.9 x 10 is exactly rank 9, whatever doubles say
  EXPECT_EQ(nearest_rank(one_to(10), 99), 10);
}

TEST(NearestRank, OneJobIsEveryPercentile) {
  const auto p = percentiles({42});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->p50, 42);
  EXPECT_EQ(p->p90, 42);
  EXPECT_EQ(p->p99, 42);
}

TEST(NearestRank, TiesAreOneValue) {
  const auto p = percentiles({5, 1, 5, 5});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->p50, 5);  // rank 2 of 1 5 5 5
  EXPECT_EQ(nearest_rank({1, 5, 5, 5}, 25), 1);
}

TEST(NearestRank, NoValuesHaveNoPercentiles) { EXPECT_FALSE(percentiles({}).has_value()); }

TEST(MetricsPercentiles, AreOverTheJobsThatRanAsTheMeansAre) {
  JobOutcome never = ran(0, 0, 0);
  never.started = -1;
  never.finished = -1;
  never.final_state = "REJECTED";
  // Waits 0, 100 and 1000 s of 10 s jobs: bounded slowdowns 1, 11 and 101.
  const JobOutcomes jobs = {ran(0, 0, 10), ran(0, 100, 10), ran(0, 1000, 10), never};
  const Metrics m = compute_metrics(jobs, 1);
  ASSERT_TRUE(m.wait_percentiles.has_value());
  ASSERT_TRUE(m.slowdown_percentiles.has_value());
  EXPECT_EQ(m.wait_percentiles->p50, 100);
  EXPECT_EQ(m.wait_percentiles->p99, 1000);
  EXPECT_EQ(m.slowdown_percentiles->p50, 11);
  EXPECT_EQ(m.slowdown_percentiles->p90, 101);
}

TEST(MetricsPercentiles, AreAbsentWhenNoJobRan) {
  JobOutcome never = ran(0, 0, 0);
  never.started = -1;
  never.finished = -1;
  never.final_state = "CANCELLED";
  const Metrics m = compute_metrics(JobOutcomes{never}, 8);
  EXPECT_FALSE(m.wait_percentiles.has_value());
  EXPECT_FALSE(m.slowdown_percentiles.has_value());
  EXPECT_EQ(m.mean_wait_s, 0);
}

}  // namespace pmixflow::test::percentiles_tests
