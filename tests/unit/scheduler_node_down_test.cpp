// PMIX_EVENT_NODE_DOWN at the scheduler: a dead node leaves the pool for good, so neither a
// grant nor a queued request may count on it again.
#include "scheduler_fixture.hpp"

namespace pmixflow::test::scheduler_tests {
namespace {

// ---------------------------------------------------------------- PMIX_EVENT_NODE_DOWN

Notification node_down_event(std::string name) {
  InfoList info;
  info.add("pmix.hname", std::move(name));
  return Notification{Status::EventNodeDown, info, ""};
}

TEST_F(SchedulerTest, ANodeReportedDownLeavesThePool) {
  connect_rm();
  sched.handle(Address::controller(), node_down_event("n01"));
  EXPECT_EQ(env.count_events("node.removed", {"\"node\":\"n01\""}), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  // The machine is smaller now: what only the whole machine could hold is refused at once.
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(32)));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  InfoList four;
  four.add(key::ALLOC_NUM_NODES, std::uint64_t{4});
  sched.handle(Address::requestor(1), request(6, Directive::New, four));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  // What is left is handed out without the dead node.
  sched.handle(Address::requestor(1), request(7, Directive::New, cpus(24)));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
}

TEST_F(SchedulerTest, ANodeDownTwiceOrUnknownOrAnotherEventChangesNothing) {
  connect_rm();
  sched.handle(Address::controller(), node_down_event("n01"));
  sched.handle(Address::controller(), node_down_event("n01"));
  sched.handle(Address::controller(), node_down_event("n99"));
  InfoList other;
  other.add("pmix.hname", std::string("n02"));
  sched.handle(Address::controller(), Notification{Status::DvmIsReady, other, ""});
  EXPECT_EQ(env.count_events("node.removed"), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(24)));  // n02..n04 are all still there
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
}

TEST_F(SchedulerTest, ADeadNodeIsNotHandedOutAgainWhenItsSessionEnds) {
  connect_rm();
  const std::string alloc = granted(1, 8);  // n01
  sched.handle(Address::controller(), node_down_event("n01"));
  complete(1, alloc);
  env.take_sent();
  sched.handle(Address::requestor(1), request(2, Directive::New, cpus(24)));
  auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, {}, inst[0].corr});
  env.take_sent();
  sched.handle(Address::requestor(1), request(3, Directive::New, cpus(8)));
  EXPECT_TRUE(env.take_sent().empty());  // waits: n01 is gone, not free
}

TEST_F(SchedulerTest, APartlyUsedNodeThatGoesDownKeepsNoFreeSlots) {
  connect_rm();
  granted(1, 4);  // n01:4, 4 slots still free there
  sched.handle(Address::controller(), node_down_event("n01"));
  sched.handle(Address::requestor(1), request(2, Directive::New, cpus(24)));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
}

// Every request gets exactly one answer (FLOW.md §2), and one the machine can never hold is
// refused rather than left waiting: also when the machine shrinks while it waits.
TEST_F(SchedulerTest, AQueuedRequestTheShrunkMachineCanNeverHoldIsRefused) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  sched.handle(Address::requestor(2), request(2, Directive::New, cpus(32)));
  EXPECT_TRUE(env.take_sent().empty());  // queued behind session 1
  sched.handle(Address::controller(), node_down_event("n02"));
  const auto refused = all_of<AllocResponse>(env.take_sent());
  ASSERT_EQ(refused.size(), 1u) << "a request for 32 cpus on a 24-cpu machine is left waiting for ever";
  EXPECT_EQ(refused[0].first, Address::requestor(2));
  EXPECT_EQ(refused[0].second.id, 2u);
  EXPECT_EQ(refused[0].second.status, Status::ErrOutOfResource);
}

}  // namespace
}  // namespace pmixflow::test::scheduler_tests
