// The emulation's clock: scenario seconds run `speed` times faster than the wall, a scenario
// delay takes its share of wall time (never less than none), and the epoch crosses to another
// process as nanoseconds without moving.
#include "pmixflow/emul/run_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace pmixflow::emul {
namespace {

using namespace std::chrono_literals;

TEST(RunClock, ScenarioDelayTakesItsShareOfWallTime) {
  const RunClock clock{std::chrono::steady_clock::now(), 10.0};
  EXPECT_EQ(clock.wall(30.0), std::chrono::steady_clock::duration(3s));
  EXPECT_EQ(clock.wall(0.5), std::chrono::steady_clock::duration(50ms));
  const RunClock slow{std::chrono::steady_clock::now(), 0.5};
  EXPECT_EQ(slow.wall(2.0), std::chrono::steady_clock::duration(4s));
}

TEST(RunClock, NegativeOrZeroDelayTakesNoTime) {
  const RunClock clock{std::chrono::steady_clock::now(), 4.0};
  EXPECT_EQ(clock.wall(0.0), std::chrono::steady_clock::duration::zero());
  EXPECT_EQ(clock.wall(-3.0), std::chrono::steady_clock::duration::zero());
}

TEST(RunClock, WallAtIsTheEpochPlusTheDelay) {
  const RunClock clock{std::chrono::steady_clock::now(), 2.0};
  EXPECT_EQ(clock.wall_at(10.0), clock.epoch + std::chrono::steady_clock::duration(5s));
  EXPECT_EQ(clock.wall_at(-1.0), clock.epoch);
}

TEST(RunClock, NowCountsScenarioSecondsSinceTheEpoch) {
  const RunClock clock{std::chrono::steady_clock::now() - 2s, 10.0};
  const double now = clock.now();
  EXPECT_GE(now, 20.0);          // two wall seconds at speed 10, at least
  EXPECT_LT(now, 20.0 + 600.0);  // and not a minute of wall time more, however loaded the machine
}

TEST(RunClock, EpochCrossesToAnotherProcessAsNanoseconds) {
  const RunClock clock{std::chrono::steady_clock::now(), 7.5};
  const RunClock there = RunClock::from_epoch_ns(clock.epoch_ns(), clock.speed);
  EXPECT_EQ(there.epoch, clock.epoch);
  EXPECT_EQ(there.speed, 7.5);
  EXPECT_EQ(there.wall_at(3.0), clock.wall_at(3.0));
}

}  // namespace
}  // namespace pmixflow::emul
