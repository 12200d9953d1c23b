// The room a scenario leaves between its steps (trace/spacing.hpp), against which an
// emulation's lateness is held.
#include "pmixflow/trace/spacing.hpp"

#include <gtest/gtest.h>

namespace pmixflow {
namespace {

RequestorDeployment calls_at(std::initializer_list<double> times) {
  RequestorDeployment r;
  r.name = "alice";
  for (double t : times) r.plan.push_back(PlannedCall{t, Address::controller(), {}, {}});
  return r;
}

TEST(Spacing, TheLeastGapBetweenTwoDistinctPlannedInstantsWhoeverPlansThem) {
  Deployment d;
  d.requestors.push_back(calls_at({1, 4, 4}));  // two calls at one instant leave no gap to keep
  d.scheduler_schedule = {{0, true}, {3.5, false}, {5, true}};
  const auto s = tightest_spacing(d);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->seconds, 0.5);  // the scheduler's detach at 3.5 and the calls at 4
  EXPECT_NE(s->what.find("at 3.5 s and 4 s"), std::string::npos) << s->what;
}

TEST(Spacing, AReplayedJobsEstimateLeavesItsMarginBeyondItsRunTime) {
  Deployment d;
  RequestorDeployment r;
  r.name = "user1";
  ReplayJob job;
  job.at = 10;
  job.runtime = 100;
  job.estimate = 100.25;
  job.job = 7;
  job.line = 12;
  r.replay.push_back(job);
  d.requestors.push_back(r);
  d.faults.push_back(FaultAt{20, std::nullopt, Fault::NodeDies, 0, 0});
  const auto s = tightest_spacing(d);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->seconds, 0.25);
  EXPECT_NE(s->what.find("job7's estimate"), std::string::npos) << s->what;
}

TEST(Spacing, AScenarioOfOneInstantLeavesNothingToMeasure) {
  Deployment d;
  d.requestors.push_back(calls_at({2}));
  EXPECT_FALSE(tightest_spacing(d).has_value());
}

}  // namespace
}  // namespace pmixflow
