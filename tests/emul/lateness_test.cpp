// How late an emulation's parties acted (emul/lateness.hpp): the figures summary.json and the
// terminal give, and the warning's first action and faithful speed.
#include "pmixflow/emul/lateness.hpp"

#include <gtest/gtest.h>

namespace pmixflow::emul {
namespace {

TEST(Lateness, QuantilesAreWithinABucketOfTheSamplesAndTheMaximumIsExact) {
  Lateness l;
  for (int i = 1; i <= 100; ++i) l.add(i, i * 0.001);  // 1 ms .. 100 ms
  EXPECT_EQ(l.count(), 100u);
  EXPECT_DOUBLE_EQ(l.max(), 0.1);
  EXPECT_GE(l.quantile(0.5), 0.050);
  EXPECT_LE(l.quantile(0.5), 0.050 * 1.091);
  EXPECT_GE(l.quantile(0.9), 0.090);
  EXPECT_LE(l.quantile(0.9), 0.090 * 1.091);
  EXPECT_DOUBLE_EQ(l.quantile(1.0), 0.1);
  EXPECT_EQ(Lateness{}.quantile(0.5), 0);
}

TEST(Lateness, AnActionTakenEarlyIsNotLate) {
  Lateness l;
  l.add(5, -0.2);
  EXPECT_EQ(l.max(), 0);
  EXPECT_EQ(l.quantile(0.9), 0);
}

TEST(Lateness, MergedCountsNameThePartyOfTheWorstAndOfTheFirstBeyondAnAllowance) {
  Lateness daemon, scheduler, all;
  daemon.add(40, 3.0, "the end of job job-4.1");
  daemon.add(10, 0.001, "a timer of daemon:n01");
  scheduler.add(20, 2.0, "a timer of scheduler");
  all.merge(daemon, "daemon:n01");
  all.merge(scheduler, "scheduler");
  EXPECT_EQ(all.count(), 3u);
  EXPECT_EQ(all.worst().party, "daemon:n01");
  EXPECT_EQ(all.worst().what, "the end of job job-4.1");
  const auto first = all.first_beyond(1.0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->party, "scheduler");  // due at 20 s, before the job's end at 40 s
  EXPECT_DOUBLE_EQ(first->due, 20);
  EXPECT_FALSE(all.first_beyond(5.0).has_value());
}

TEST(Lateness, APartysCountsCrossToTheEmulationWholeAndNothingElseIsTaken) {
  Lateness l;
  l.add(1, 0.5, "a timer of controller");
  l.add(2, 0.000002, "a timer of controller");
  const Lateness back = Lateness::from_json(l.to_json());
  EXPECT_EQ(back.count(), 2u);
  EXPECT_DOUBLE_EQ(back.max(), 0.5);
  EXPECT_EQ(back.worst().what, "a timer of controller");
  nlohmann::json wrong = l.to_json();
  wrong["count"] = 3;
  EXPECT_THROW(Lateness::from_json(wrong), std::invalid_argument);
  EXPECT_THROW(Lateness::from_json(nlohmann::json::object()), std::invalid_argument);
}

TEST(Lateness, BeyondWhatTheScenarioLeavesTheFiguresNameTheFirstActionAndAFaithfulSpeed) {
  Lateness l;
  l.add(30, 4.0, "the end of job job-2.1");
  const nlohmann::json within = lateness_figures(l, Spacing{10, "two planned instants 10 s apart"}, 100);
  EXPECT_EQ(within["allowed_s"], 10);
  EXPECT_FALSE(within.contains("first_beyond"));
  EXPECT_FALSE(within.contains("faithful_speed"));
  const nlohmann::json beyond = lateness_figures(l, Spacing{1, "two planned instants 1 s apart"}, 100);
  EXPECT_EQ(beyond["first_beyond"]["what"], "the end of job job-2.1");
  // 4 s late at speed 100: the worst would just fit 1 s at 25, and half that leaves room.
  EXPECT_DOUBLE_EQ(beyond["faithful_speed"].get<double>(), 12);
  EXPECT_FALSE(lateness_figures(Lateness{}, std::nullopt, 1).contains("max_s"));
}

}  // namespace
}  // namespace pmixflow::emul
