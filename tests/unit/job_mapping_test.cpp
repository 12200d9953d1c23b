// How a job's processes are placed on the slots it was given (PRRTE's by-slot mapping), and how
// a daemon's report finds the ranks of its own node: each node counted once, whatever the order
// the slots came in.
#include "pmixflow/roles/controller/jobs.hpp"

#include <gtest/gtest.h>

namespace pmixflow::test::job_mapping_tests {
namespace {

Job job_of(std::uint32_t procs) {
  Job job;
  job.nspace = "ns";
  job.apps.push_back(App{.cmd = "a.out", .argv = {}, .env = {}, .maxprocs = procs});
  return job;
}

TEST(JobMapping, RanksFillEachNodeInTheOrderTheSlotsCame) {
  Job job = job_of(7);
  ASSERT_TRUE(Jobs::map(job, {{5, 4}, {2, 4}}));
  EXPECT_EQ(job.placement, (SlotList{{5, 4}, {2, 3}}));
  EXPECT_EQ(job.procs_on(5), 4u);
  EXPECT_EQ(job.procs_on(2), 3u);
  EXPECT_EQ(job.procs_on(3), 0u);  // not one of its nodes
}

TEST(JobMapping, ANodeNamedTwiceApartHoldsTheRanksOfBoth) {
  Job job = job_of(0);  // as many as the slots
  ASSERT_TRUE(Jobs::map(job, {{3, 2}, {1, 4}, {3, 1}}));
  EXPECT_EQ(job.placement, (SlotList{{3, 2}, {1, 4}, {3, 1}}));
  EXPECT_EQ(job.procs_on(3), 3u);
  EXPECT_EQ(job.procs_on(1), 4u);
  EXPECT_EQ(job.by_node, (SlotList{{1, 4}, {3, 3}}));
}

TEST(JobMapping, AJobOnThousandsOfNodesFindsEachNodesRanks) {
  SlotList slots;
  for (NodeId n = 0; n < 5000; ++n) slots.emplace_back(4999 - n, 8);
  Job job = job_of(0);
  ASSERT_TRUE(Jobs::map(job, slots));
  for (NodeId n = 0; n < 5000; ++n) ASSERT_EQ(job.procs_on(n), 8u) << "node " << n;
  EXPECT_EQ(job.procs_on(5000), 0u);
}

TEST(JobMapping, MoreRanksThanSlotsIsRefused) {
  Job job = job_of(9);
  EXPECT_FALSE(Jobs::map(job, {{0, 4}, {1, 4}}));
}

}  // namespace
}  // namespace pmixflow::test::job_mapping_tests
