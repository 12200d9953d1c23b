#include "pmixflow/vocab/timespec.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "pmixflow/vocab/errors.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

constexpr double kMinute = 60;
constexpr double kHour = 3600;
constexpr double kDay = 86400;
constexpr double kMonth = 30 * kDay;

using test::Contains;

TEST(AllocTime, FieldsReadFromTheRight) {
  EXPECT_EQ(parse_alloc_time("2"), 2);
  EXPECT_EQ(parse_alloc_time("1:30"), kMinute + 30);
  EXPECT_EQ(parse_alloc_time("1:00:00"), kHour);
  EXPECT_EQ(parse_alloc_time("2:03:04:05"), 2 * kDay + 3 * kHour + 4 * kMinute + 5);
  EXPECT_EQ(parse_alloc_time("1:0:0:0:0"), kMonth);
  EXPECT_EQ(parse_alloc_time("1:2:3:4:5"), kMonth + 2 * kDay + 3 * kHour + 4 * kMinute + 5);
}

TEST(AllocTime, ZeroAndLeadingZeros) {
  EXPECT_EQ(parse_alloc_time("0"), 0);
  EXPECT_EQ(parse_alloc_time("00:00:07"), 7);
  EXPECT_EQ(parse_alloc_time("007"), 7);
}

TEST(AllocTime, FieldsMayExceedTheirRange) {
  EXPECT_EQ(parse_alloc_time("90"), 90);
  EXPECT_EQ(parse_alloc_time("1:90"), 150);
  EXPECT_EQ(parse_alloc_time("48:00:00"), 2 * kDay);
  EXPECT_EQ(parse_alloc_time("45:0:0:0"), 45 * kDay);
}

// PRRTE's parse reads each field with strtol(): blanks before it and a sign are taken.
TEST(AllocTime, BlanksBeforeAFieldAndASignAreTakenAsPrrteDoes) {
  EXPECT_EQ(parse_alloc_time("  1:00"), kMinute);
  EXPECT_EQ(parse_alloc_time("1: 30"), kMinute + 30);
  EXPECT_EQ(parse_alloc_time("\t1:\n30"), kMinute + 30);
  EXPECT_EQ(parse_alloc_time("+5"), 5);
  EXPECT_EQ(parse_alloc_time("1:+05"), kMinute + 5);
  EXPECT_EQ(parse_alloc_time("-0"), 0);
}

TEST(AllocTime, ErrorsNameOriginFieldAndText) {
  try {
    parse_alloc_time("1::2", "scenario.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "scenario.json");
    EXPECT_EQ(e.line(), 0u);
    EXPECT_EQ(e.field(), "PMIX_ALLOC_TIME");
    EXPECT_TRUE(Contains(e.detail(), "'1::2'"));
    EXPECT_TRUE(Contains(e.detail(), "empty field"));
  }
}

TEST(AllocTime, DefaultOriginIsTheKey) {
  try {
    parse_alloc_time("x");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "PMIX_ALLOC_TIME");
    EXPECT_EQ(e.field(), "PMIX_ALLOC_TIME");
  }
}

struct BadTime {
  const char* text;
  const char* reason;
};

class AllocTimeRefused : public ::testing::TestWithParam<BadTime> {};

TEST_P(AllocTimeRefused, WithReason) {
  const auto& [text, reason] = GetParam();
  try {
    parse_alloc_time(text);
    FAIL() << "expected InputError for '" << text << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "PMIX_ALLOC_TIME");
    EXPECT_TRUE(Contains(e.detail(), "'" + std::string(text) + "'"));
    EXPECT_TRUE(Contains(e.detail(), reason));
  }
}

INSTANTIATE_TEST_SUITE_P(AllocTime, AllocTimeRefused,
                         ::testing::Values(BadTime{"", "empty"}, BadTime{"   ", "empty"}, BadTime{":", "empty field"},
                                           BadTime{"1:", "empty field"}, BadTime{":1", "empty field"},
                                           BadTime{"1::1", "empty field"}, BadTime{"1:2:3:4:5:6", "more than five"},
                                           BadTime{"-5", "negative"}, BadTime{"1:-1", "negative"},
                                           BadTime{"+", "not a whole number"}, BadTime{"+-5", "not a whole number"},
                                           BadTime{"1.5", "not a whole number"}, BadTime{"1e3", "not a whole number"},
                                           BadTime{"1 :30", "not a whole number"}, BadTime{"5 ", "not a whole number"},
                                           BadTime{"1: ", "not a whole number"}, BadTime{"inf", "not a whole number"},
                                           BadTime{"1h", "not a whole number"},
                                           BadTime{"99999999999999999999999", "too large"}));

TEST(AllocTime, FormatShortestForm) {
  EXPECT_EQ(format_alloc_time(0), "0");
  EXPECT_EQ(format_alloc_time(5), "5");
  EXPECT_EQ(format_alloc_time(59), "59");
  EXPECT_EQ(format_alloc_time(60), "1:00");
  EXPECT_EQ(format_alloc_time(90), "1:30");
  EXPECT_EQ(format_alloc_time(3599), "59:59");
  EXPECT_EQ(format_alloc_time(3600), "1:00:00");
  EXPECT_EQ(format_alloc_time(3605), "1:00:05");
  EXPECT_EQ(format_alloc_time(86399), "23:59:59");
  EXPECT_EQ(format_alloc_time(86400), "1:00:00:00");
  EXPECT_EQ(format_alloc_time(90061), "1:01:01:01");
}

TEST(AllocTime, FormatNeverWritesMonths) {
  EXPECT_EQ(format_alloc_time(kMonth), "30:00:00:00");
  EXPECT_EQ(format_alloc_time(400 * kDay + 1), "400:00:00:01");
}

TEST(AllocTime, FormatRoundsFractions) {
  EXPECT_EQ(format_alloc_time(89.6), "1:30");
  EXPECT_EQ(format_alloc_time(-1e-9), "0");
}

TEST(AllocTime, FormatRefusesNonsense) {
  EXPECT_THROW(format_alloc_time(-1), std::invalid_argument);
  EXPECT_THROW(format_alloc_time(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(format_alloc_time(std::numeric_limits<double>::infinity()), std::invalid_argument);
}

TEST(AllocTime, RoundTripsWholeSeconds) {
  for (const double s :
       {0.0, 1.0, 59.0, 60.0, 61.0, 3599.0, 3600.0, 3661.0, 86399.0, 86400.0, 90061.0, kMonth, kMonth + 1, 1e9}) {
    EXPECT_EQ(parse_alloc_time(format_alloc_time(s)), s) << s;
  }
  // A sweep across every field boundary up to a little over two days.
  for (double s = 0; s < 2 * kDay + 2 * kHour; s += 37) {
    ASSERT_EQ(parse_alloc_time(format_alloc_time(s)), s) << s;
  }
}

TEST(AllocTime, ParsedFormsNormalise) {
  EXPECT_EQ(format_alloc_time(parse_alloc_time("1:90")), "2:30");
  EXPECT_EQ(format_alloc_time(parse_alloc_time("1:0:0:0:0")), "30:00:00:00");
}

}  // namespace
}  // namespace pmixflow
