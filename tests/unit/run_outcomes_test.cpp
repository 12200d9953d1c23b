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
  const JobOutcomes run = {outcome("1", 0, 100), outcome("2", 10, 710), outcome("3", 20, -1), outcome("4", 30, 40)};
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

// Every way a request can end, in jobs.csv's terms (docs/outputs.md).
TEST(FinalState, RequestsThatRanAreJudgedByTheirFirstJob) {
  RequestFate ran{Status::Success, true, Status::Success, true, true, Status::Success};
  EXPECT_EQ(final_state(ran), "COMPLETED_SUCCESSFULLY");
  ran.first_job = Status::ErrTimeout;
  EXPECT_EQ(final_state(ran), "COMPLETED_WALLTIME_REACHED");
  ran.first_job = Status::ErrJobAbortedBySig;
  EXPECT_EQ(final_state(ran), "COMPLETED_KILLED");
  ran.first_job = Status::ErrJobNonZeroTerm;
  EXPECT_EQ(final_state(ran), "COMPLETED_FAILED");
  ran.first_job.reset();  // a reservation without jobs
  EXPECT_EQ(final_state(ran), "COMPLETED_SUCCESSFULLY");
  // The RM could not instantiate its session (its launch failed): it failed, whatever came after.
  ran.account_status = Status::ErrJobFailedToLaunch;
  EXPECT_EQ(final_state(ran), "COMPLETED_FAILED");
}

TEST(FinalState, RequestsThatDidNotRunSayWhy) {
  // Granted and still running at the end of the run.
  EXPECT_EQ(final_state(RequestFate{Status::Success, true, Status::Success, true, false, {}}), "RUNNING");
  // Queued (or held for a scheduler) and never started.
  EXPECT_EQ(final_state(RequestFate{std::nullopt, true, Status::Success, false, false, {}}), "SUBMITTED");
  EXPECT_EQ(final_state(RequestFate{std::nullopt, false, Status::Success, false, false, {}}), "SUBMITTED");
  // Withdrawn by its own requestor: not the scheduler's refusal.
  EXPECT_EQ(final_state(RequestFate{Status::ErrJobCanceled, true, Status::ErrJobCanceled, false, false, {}}),
            "CANCELLED");
  // Nobody decided: no scheduler, or the one holding it went away.
  EXPECT_EQ(final_state(RequestFate{Status::ErrUnreach, false, Status::Success, false, false, {}}), "LOST");
  EXPECT_EQ(final_state(RequestFate{Status::ErrUnreach, true, Status::ErrUnreach, false, false, {}}), "LOST");
  // Refused.
  EXPECT_EQ(final_state(RequestFate{Status::ErrOutOfResource, false, Status::Success, false, false, {}}), "REJECTED");
  EXPECT_EQ(final_state(RequestFate{Status::ErrBadParam, false, Status::Success, false, false, {}}), "REJECTED");
}

}  // namespace
}  // namespace pmixflow
