// The test harness itself: role tests are only as good as the clock and outbox they run on.
#include "fake_env.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pmixflow {
namespace {

using test::FakeEnv;

TEST(FakeEnv, TimersFireInTimeOrderThenInArmingOrder) {
  FakeEnv env{Address::controller()};
  std::vector<std::string> fired;
  env.after(2, [&] { fired.push_back("b@" + std::to_string(env.now())); });
  env.after(1, [&] { fired.push_back("a"); });
  env.after(2, [&] { fired.push_back("c"); });
  env.after(5, [&] { fired.push_back("late"); });
  env.advance(1.5);
  EXPECT_EQ(fired, (std::vector<std::string>{"a"}));
  EXPECT_DOUBLE_EQ(env.now(), 1.5);
  env.advance(0.5);
  EXPECT_EQ(fired, (std::vector<std::string>{"a", "b@2.000000", "c"}));
  EXPECT_EQ(env.timers_armed(), 1u);
}

TEST(FakeEnv, TimersArmedByTimersFireWhenDueWithinTheSameAdvance) {
  FakeEnv env{Address::controller()};
  std::vector<double> at;
  env.after(1, [&] {
    at.push_back(env.now());
    env.after(0, [&] { at.push_back(env.now()); });
    env.after(3, [&] { at.push_back(env.now()); });
  });
  env.advance(3.9);
  EXPECT_EQ(at, (std::vector<double>{1, 1}));
  env.advance(0.1);
  EXPECT_EQ(at, (std::vector<double>{1, 1, 4}));
}

TEST(FakeEnv, CancelledTimersNeverFire) {
  FakeEnv env{Address::controller()};
  bool fired = false;
  const TimerId id = env.after(1, [&] { fired = true; });
  env.cancel(id);
  env.cancel(id);  // twice is harmless
  env.advance(10);
  EXPECT_FALSE(fired);
}

TEST(FakeEnv, RecordsSendsEventsDaemonsAndNames) {
  FakeEnv env{Address::daemon(3)};
  EXPECT_EQ(env.self(), Address::daemon(3));
  env.send(Address::controller(), DaemonReady{3});
  env.log(ev::NodeFail{.node = "n01"});
  env.start_daemon(4);
  ASSERT_EQ(env.sent().size(), 1u);
  EXPECT_EQ(env.take_sent().at(0).to, Address::controller());
  EXPECT_TRUE(env.take_sent().empty());
  ASSERT_EQ(env.events().size(), 1u);
  EXPECT_EQ(env.events()[0].kind, "node.fail");
  EXPECT_EQ(env.events()[0].fields, ",\"node\":\"n01\"");
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{4}));
  EXPECT_EQ(env.name_of(Address::controller()), "controller");
  EXPECT_EQ(env.name_of(Address::scheduler()), "scheduler");
  EXPECT_EQ(env.name_of(Address::daemon(2)), "daemon:2");
  EXPECT_EQ(env.name_of(Address::requestor(5)), "requestor:5");
  EXPECT_TRUE(env.wants<ev::NodeFail>());
}

}  // namespace
}  // namespace pmixflow
