// The figures of the terminal summary as a person reads them: durations in days, hours and
// minutes rather than seconds by the million, counts grouped and with the right plural.
#include "pmixflow/vocab/human_text.hpp"

#include <gtest/gtest.h>

namespace pmixflow::test::human_text_tests {

TEST(HumanDuration, UsesTheTwoLargestUnitsOfLongDurations) {
  EXPECT_EQ(human_duration(28763800), "332 d 22 h");  // KTH's makespan
  EXPECT_EQ(human_duration(2 * 86400 + 11 * 3600), "2 d 11 h");
  EXPECT_EQ(human_duration(3600 + 47 * 60), "1 h 47 min");
  EXPECT_EQ(human_duration(12 * 60 + 5), "12 min 5 s");
  EXPECT_EQ(human_duration(38), "38 s");
}

TEST(HumanDuration, LeavesOutASmallerUnitThatRoundsToNothing) {
  EXPECT_EQ(human_duration(12 * 60), "12 min");
  EXPECT_EQ(human_duration(3 * 86400 + 600), "3 d");  // 10 min is no hour
  EXPECT_EQ(human_duration(2 * 3600 + 20), "2 h");
}

TEST(HumanDuration, RoundsIntoTheNextUnitRatherThanPrintingSixtyOfOne) {
  EXPECT_EQ(human_duration(59.7), "1 min");
  EXPECT_EQ(human_duration(3599.6), "1 h");
  EXPECT_EQ(human_duration(86399), "1 d");
  EXPECT_EQ(human_duration(3600 + 47 * 60 + 40), "1 h 48 min");
  EXPECT_EQ(human_duration(0.9996), "1 s");
  EXPECT_EQ(human_duration(0.0009996), "1 ms");
}

TEST(HumanDuration, KeepsThreeSignificantDigitsBelowASecond) {
  EXPECT_EQ(human_duration(1.2), "1.2 s");
  EXPECT_EQ(human_duration(5.3806), "5.4 s");
  EXPECT_EQ(human_duration(0.35), "350 ms");
  EXPECT_EQ(human_duration(0.00127), "1.27 ms");
  EXPECT_EQ(human_duration(0.0514), "51.4 ms");
  EXPECT_EQ(human_duration(0.000208), "208 µs");
  EXPECT_EQ(human_duration(12e-6), "12 µs");
  EXPECT_EQ(human_duration(5e-7), "500 ns");
}

TEST(HumanDuration, SaysZeroAndNegativeDurationsPlainly) {
  EXPECT_EQ(human_duration(0), "0 s");
  EXPECT_EQ(human_duration(-90), "-1 min 30 s");
}

TEST(Grouped, SeparatesThousands) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(27992), "27,992");
  EXPECT_EQ(grouped(870748), "870,748");
  EXPECT_EQ(grouped(1234567), "1,234,567");
}

TEST(Counted, IsSingularForExactlyOne) {
  EXPECT_EQ(counted(1, "slot"), "1 slot");
  EXPECT_EQ(counted(0, "slot"), "0 slots");
  EXPECT_EQ(counted(27992, "job"), "27,992 jobs");
  EXPECT_EQ(counted(1, "process", "processes"), "1 process");
  EXPECT_EQ(counted(3, "process", "processes"), "3 processes");
}

TEST(Significant, KeepsThreeDigitsWithoutExponentOrTrailingZeros) {
  EXPECT_EQ(significant(86.3637), "86.4");
  EXPECT_EQ(significant(0.684089), "0.684");
  EXPECT_EQ(significant(1.0), "1");
  EXPECT_EQ(significant(1.20001), "1.2");
  EXPECT_EQ(significant(12345.6), "12,346");
  EXPECT_EQ(significant(99.96), "100");
  EXPECT_EQ(significant(-0.41234), "-0.412");
  EXPECT_EQ(significant(0), "0");
  EXPECT_EQ(significant(0.684089, 2), "0.68");
}

}  // namespace pmixflow::test::human_text_tests
