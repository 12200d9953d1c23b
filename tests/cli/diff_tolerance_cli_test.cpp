// `pmixflow diff` as a study reads it: which inputs the two runs were given differently, and
// times within a tolerance counting as equal (the default below the flow's own latencies).
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test::diff_tolerance_cli_tests {
namespace {

// The golden trace under `options`, without an event log (as a study's long runs are made).
std::filesystem::path replay(const std::filesystem::path& dir, const std::string& name,
                             std::vector<std::string> options) {
  const auto out = dir / name;
  std::vector<std::string> args{"sim",      "--quiet", "--trace", source_path("traces/golden.swf"),
                                "--events", "none",    "--out",   out.string()};
  args.insert(args.end(), options.begin(), options.end());
  const auto r = run_pmixflow(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

TEST(DiffToleranceCli, TwoSeedsOfTheDemoAreEqualAtOneSecondAndDifferentExactly) {
  const auto dir = scratch_dir("diff_seeds");
  const auto a = dir / "a", b = dir / "b";
  // The seed draws each daemon's and process's start-up jitter: the same decisions, times apart by
  // milliseconds.
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--seed", "1", "--out", a.string()}).exit_code, 0);
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--seed", "2", "--out", b.string()}).exit_code, 0);

  const auto loose = run_pmixflow({"diff", "--tolerance", "1s", a.string(), b.string()});
  EXPECT_EQ(loose.exit_code, 0) << loose.out << loose.err;
  EXPECT_TRUE(Contains(loose.out, ": equal\n  inputs: seed 1 -> 2 (same workload demo)\n")) << loose.out;
  EXPECT_TRUE(Contains(loose.out, "times within 1 s count as equal (--tolerance 0: exact)")) << loose.out;
  EXPECT_TRUE(Contains(loose.out, "event lines differ only in their time, within the tolerance")) << loose.out;
  EXPECT_TRUE(Contains(loose.out, "jobs: the same within the tolerance (5 jobs; ")) << loose.out;

  const auto exact = run_pmixflow({"diff", "--tolerance", "0", a.string(), b.string()});
  EXPECT_EQ(exact.exit_code, 1) << exact.out << exact.err;
  EXPECT_TRUE(Contains(exact.out, "DIFFERENT")) << exact.out;
  EXPECT_TRUE(Contains(exact.out, "times compared exactly (--tolerance 0)")) << exact.out;

  const auto json_report =
      json::parse(run_pmixflow({"diff", "--json", "--tolerance", "1s", a.string(), b.string()}).out);
  EXPECT_EQ(json_report["tolerance_s"], 1.0);
  EXPECT_EQ(json_report["inputs"][0]["name"], "seed");
  EXPECT_EQ(json_report["workload"], "demo");
  std::filesystem::remove_all(dir);
}

TEST(DiffToleranceCli, SubMicrosecondDeltasAreEqualByDefaultAndTheReportSaysSo) {
  const auto dir = scratch_dir("diff_delay");
  const auto a = replay(dir, "a", {"--batch-delay", "0.01"});
  const auto b = replay(dir, "b", {"--batch-delay", "0.010001"});
  const auto r = run_pmixflow({"diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "inputs: batch_delay 0.01 -> 0.010001 (same workload golden.swf)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "times within 1 ms count as equal (--tolerance 0: exact)")) << r.out;
  EXPECT_TRUE(
      Contains(r.out, "jobs: the same within the tolerance (148 jobs; 148 differ only in times within the tolerance)"))
      << r.out;

  // Exactly, every job moved by a microsecond: a count and the first few, not 148 lines.
  const auto exact = run_pmixflow({"diff", "--tolerance", "0", a.string(), b.string()});
  EXPECT_EQ(exact.exit_code, 1) << exact.out;
  EXPECT_TRUE(Contains(exact.out, "148 start differently")) << exact.out;
  EXPECT_TRUE(Contains(exact.out, "... and 128 more jobs (--json lists every one)")) << exact.out;
  std::filesystem::remove_all(dir);
}

TEST(DiffToleranceCli, PoliciesThatDifferAreNamedFromTheSummaries) {
  const auto dir = scratch_dir("diff_policy");
  const auto fcfs = replay(dir, "fcfs", {"--policy", "fcfs"});
  const auto easy = replay(dir, "easy", {"--policy", "easy"});
  const auto r = run_pmixflow({"diff", fcfs.string(), easy.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, ": DIFFERENT\n  inputs: policy fcfs -> easy (same workload golden.swf)\n")) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(DiffToleranceCli, AToleranceThatIsNotADurationIsRefusedNamingTheOption) {
  for (const char* bad : {"fast", "-1ms", "1 parsec", "nan"}) {
    const auto r = run_pmixflow({"diff", "--tolerance", bad, "a", "b"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(Contains(r.err, "--tolerance")) << r.err;
    EXPECT_TRUE(Contains(r.err, "is not a duration")) << r.err;
  }
}

}  // namespace
}  // namespace pmixflow::test::diff_tolerance_cli_tests
