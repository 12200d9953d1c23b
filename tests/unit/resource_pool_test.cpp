// The scheduler's resource pool hands out given slots, and names them as Batsim numbers
// resources: node-major over the compute nodes, so that allocations sharing a node never list
// the same resource and a request for N slots lists N of them.
#include "pmixflow/roles/scheduler/resource_pool.hpp"

#include <gtest/gtest.h>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/interval_set.hpp"

namespace pmixflow {
namespace {

Cluster machine() { return Cluster({{"head", 8, false}, {"n01", 4, true}, {"n02", 4, true}, {"n03", 4, true}}); }

TEST(ResourcePool, SlotsSharingANodeAreDistinctResources) {
  const Cluster c = machine();
  ResourcePool pool(c, false);
  const SlotRuns a = pool.take(Need{3, 0, {}});
  const SlotRuns b = pool.take(Need{3, 0, {}});
  EXPECT_EQ(pool.resources(a), "0-2");
  EXPECT_EQ(pool.node_list(a), "n01:3");
  EXPECT_EQ(pool.resources(b), "3-5");  // n01's last slot, then n02's first two
  EXPECT_EQ(pool.node_list(b), "n01:1,n02:2");
  EXPECT_EQ(interval_set_size(pool.resources(b)), 3u);
  EXPECT_EQ(pool.free(), 6u);
}

TEST(ResourcePool, SlotsGivenBackAreHandedOutAgainLowestFirst) {
  const Cluster c = machine();
  ResourcePool pool(c, false);
  const SlotRuns a = pool.take(Need{2, 0, {}});
  const SlotRuns b = pool.take(Need{4, 0, {}});
  pool.give_back(a);
  EXPECT_EQ(pool.resources(pool.take(Need{3, 0, {}})), "0-1 6");  // the freed 0-1, then n02's next free slot
  EXPECT_EQ(pool.resources(b), "2-5");
}

TEST(ResourcePool, WholeNodesAndExclusiveModeHoldEveryNodeSlot) {
  const Cluster c = machine();
  ResourcePool pool(c, false);
  pool.take(Need{1, 0, {}});  // n01 is no longer whole
  const SlotRuns nodes = pool.take(Need{8, 2, {}});
  EXPECT_EQ(pool.resources(nodes), "4-11");
  EXPECT_EQ(pool.node_list(nodes), "n02:4,n03:4");
  ResourcePool exclusive(c, true);
  EXPECT_EQ(exclusive.resources(exclusive.take(Need{5, 0, {}})), "0-7");  // 5 cpus get two whole nodes
}

TEST(ResourcePool, ExtendedHoldingsAreListedAsOneSet) {
  const Cluster c = machine();
  ResourcePool pool(c, false);
  SlotRuns held = pool.take(Need{2, 0, {}});
  pool.take(Need{2, 0, {}});
  for (const auto& run : pool.take(Need{3, 0, {}})) held.push_back(run);
  EXPECT_EQ(pool.resources(held), "0-1 4-6");
  EXPECT_EQ(slot_counts(held), (SlotList{{1, 2}, {2, 3}}));
}

TEST(ResourcePool, ANodeBackFromDownOffersOnlyTheSlotsNobodyStillHolds) {
  const Cluster c = machine();
  ResourcePool pool(c, false);
  const SlotRuns a = pool.take(Need{2, 0, {}});  // n01's slots 0-1
  const SlotRuns b = pool.take(Need{2, 0, {}});  // n01's slots 2-3
  ASSERT_TRUE(pool.node_down(1));
  EXPECT_FALSE(pool.node_down(1));
  EXPECT_EQ(pool.total(), 8u);
  EXPECT_FALSE(pool.could_hold(Need{12, 3, {}}));
  pool.give_back(a);  // handed back while the node is down: free when it returns
  ASSERT_TRUE(pool.node_up(1));
  EXPECT_FALSE(pool.node_up(1));
  EXPECT_EQ(pool.total(), 12u);
  EXPECT_EQ(pool.free(), 10u);  // b still holds two of n01's slots
  EXPECT_FALSE(pool.fits(Need{12, 3, {}}));
  EXPECT_EQ(pool.resources(pool.take(Need{2, 0, {}})), "0-1");
  pool.give_back(b);
  EXPECT_TRUE(pool.could_hold(Need{12, 3, {}}));
}

TEST(IntervalSet, WritesAndCountsBatsimsSyntax) {
  EXPECT_EQ(interval_set({7, 1, 2, 3, 3, 9, 10}), "1-3 7 9-10");
  EXPECT_EQ(interval_set({}), "");
  EXPECT_EQ(interval_set_size("1-3 7 9-10"), 6u);
  EXPECT_EQ(interval_set_size(""), 0u);
  EXPECT_THROW(interval_set_size("3-1"), InputError);
  EXPECT_THROW(interval_set_size("a-b"), InputError);
}

}  // namespace
}  // namespace pmixflow
