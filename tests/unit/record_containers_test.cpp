// The containers a replay's records live in: a million of them must neither move (indexes view
// their strings) nor be kept twice (names shared by every call are kept once).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmixflow/vocab/stable_vector.hpp"
#include "pmixflow/vocab/string_pool.hpp"

namespace pmixflow::test::record_containers_tests {
namespace {

TEST(StableVector, RecordsStayWhereTheyAreAsItGrowsPastManyBlocks) {
  StableVector<std::string, 4> v;
  std::vector<const std::string*> where;
  for (int i = 0; i < 1000; ++i) where.push_back(&v.emplace_back("record number " + std::to_string(i)));
  ASSERT_EQ(v.size(), 1000u);
  for (std::size_t i = 0; i < where.size(); ++i) {
    EXPECT_EQ(&v[i], where[i]) << i;  // never moved
    EXPECT_EQ(*where[i], "record number " + std::to_string(i));
  }
}

TEST(StableVector, IteratesInTheOrderAdded) {
  StableVector<int, 3> v{1, 2, 3, 4, 5, 6, 7};
  std::vector<int> seen;
  for (int x : v) seen.push_back(x);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(v.at(6), 7);
  EXPECT_THROW((void)v.at(7), std::out_of_range);
  StableVector<int> empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.begin(), empty.end());
}

TEST(StringPool, KeepsEachNameOnceAndItsViewsOutliveAMove) {
  StringPool pool;
  const std::string_view a = pool(std::string("a requestor name longer than any short string"));
  const std::string_view b = pool("a requestor name longer than any short string");
  EXPECT_EQ(a.data(), b.data());  // one copy, however many records name it
  const std::string_view shorter = pool("alice");
  EXPECT_EQ(pool.size(), 2u);
  StringPool moved = std::move(pool);  // as a ledger is moved into the report that keeps it
  EXPECT_EQ(a, "a requestor name longer than any short string");
  EXPECT_EQ(shorter, "alice");
  EXPECT_EQ(moved("alice").data(), shorter.data());
}

}  // namespace
}  // namespace pmixflow::test::record_containers_tests
