// A summary.json read back, as `pmixflow diff` and `pmixflow compare` both read it: one reader,
// so the two commands accept and refuse the same files with the same words.
#include "pmixflow/results/summary_file.hpp"

#include <gtest/gtest.h>

#include "test_files.hpp"

namespace pmixflow::test::summary_file_tests {
namespace {

TEST(SummaryFile, ASummaryFromBeforeTheFormatKeyIsStillRead) {
  TempDir dir;
  const auto path = dir.write("summary.json", R"({"policy":"easy","mean_wait_s":12.5})");
  const auto s = read_summary_file(path);
  EXPECT_EQ(summary_metric(s, "mean_wait_s", path), 12.5);
}

TEST(SummaryFile, AnotherFormatOrNotAnObjectIsRefusedNamingTheFile) {
  TempDir dir;
  const auto other = dir.write("other.json", R"({"format":"pmixflow-events"})");
  const auto e = expect_input_error([&] { read_summary_file(other); });
  EXPECT_EQ(e.field(), "format");
  EXPECT_TRUE(Contains(e.what(), other)) << e.what();
  EXPECT_TRUE(Contains(e.what(), "not a pmixflow summary")) << e.what();

  const auto list = dir.write("list.json", "[1, 2]");
  EXPECT_TRUE(Contains(expect_input_error([&] { read_summary_file(list); }).what(), "not a JSON object"));
  const auto missing = (dir.path() / "none.json").string();
  EXPECT_TRUE(Contains(expect_input_error([&] { read_summary_file(missing); }).what(), "cannot be read"));
}

TEST(SummaryFile, AFigureIsReadByItsDottedKeyAndAbsentOrNullIsNoFigure) {
  const nlohmann::json s = {{"failures", {{"jobs_killed", 3}}}, {"p50_wait_s", nullptr}, {"jobs", 7}};
  EXPECT_EQ(summary_metric(s, "failures.jobs_killed", "s.json"), 3.0);
  EXPECT_EQ(summary_metric(s, "jobs", "s.json"), 7.0);
  EXPECT_FALSE(summary_metric(s, "p50_wait_s", "s.json"));  // no job ran
  EXPECT_FALSE(summary_metric(s, "failures.nodes_failed", "s.json"));
  EXPECT_FALSE(summary_metric(s, "jobs.count", "s.json"));  // a number has no members
  EXPECT_EQ(summary_member(s, "failures.jobs_killed"), &s["failures"]["jobs_killed"]);
}

TEST(SummaryFile, AFigureThatIsNotANumberIsRefusedNamingItsKey) {
  const nlohmann::json s = {{"mean_wait_s", "soon"}};
  const auto e = expect_input_error([&] { summary_metric(s, "mean_wait_s", "runs/a/summary.json"); });
  EXPECT_EQ(e.field(), "mean_wait_s");
  EXPECT_TRUE(Contains(e.what(), "runs/a/summary.json")) << e.what();
}

}  // namespace
}  // namespace pmixflow::test::summary_file_tests
