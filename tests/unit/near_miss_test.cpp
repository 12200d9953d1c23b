// The one measure of a near miss, behind every "did you mean" of options, sub-commands,
// policies and levels.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/vocab/near_miss.hpp"

namespace pmixflow::test::near_miss_tests {

const std::vector<std::string> kPolicies = {"fcfs", "easy", "conservative", "priority-preempt"};

TEST(NearMiss, EditDistanceCountsInsertionsDeletionsAndReplacements) {
  EXPECT_EQ(edit_distance("easy", "easy"), 0u);
  EXPECT_EQ(edit_distance("eazy", "easy"), 1u);
  EXPECT_EQ(edit_distance("--sead", "--seed"), 1u);
  EXPECT_EQ(edit_distance("", "sim"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(NearMiss, ATypoIsMatchedToTheNameMeant) {
  EXPECT_EQ(nearest_word("eazy", kPolicies), "easy");
  EXPECT_EQ(nearest_word("fcsf", kPolicies), "fcfs");
  EXPECT_EQ(nearest_word("conservativ", kPolicies), "conservative");
  // A long name may be three edits off; a short one only two.
  EXPECT_EQ(nearest_word("prio-preempt", kPolicies), "");
  EXPECT_EQ(nearest_word("priority-prempt", kPolicies), "priority-preempt");
  EXPECT_EQ(did_you_mean("stat", {"all", "state", "none"}), " (did you mean state?)");
}

TEST(NearMiss, AWordFarFromEveryNameGetsNoGuess) {
  EXPECT_EQ(nearest_word("random", kPolicies), "");
  EXPECT_EQ(nearest_word("x", {"a", "all"}), "");  // one letter is no near miss of another
  EXPECT_EQ(nearest_word("", kPolicies), "");
  EXPECT_EQ(nearest_word("easy", kPolicies), "");  // a known word is not a miss
  EXPECT_EQ(did_you_mean("random", kPolicies), "");
}

}  // namespace pmixflow::test::near_miss_tests
