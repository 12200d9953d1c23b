// Each exit status means one thing (README, "Exit status"), and the README and --help say the
// same: held here by running pmixflow into each, and by the one place that maps exceptions.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "commands.hpp"
#include "exit_status.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

TEST(ExitStatus, HelpAndReadmePrintTheSameTable) {
  const auto r = run_pmixflow({"--help"});
  ASSERT_EQ(r.exit_code, 0);
  const std::string table = cli::kExitStatusHelp;
  EXPECT_NE(r.out.find(table), std::string::npos) << r.out;
  EXPECT_NE(slurp(source_path("README.md")).find("```\n" + table + "```"), std::string::npos)
      << "README.md's exit-status table differs from apps/exit_status.hpp";
}

TEST(ExitStatus, EachExceptionMapsToItsStatus) {
  EXPECT_EQ(cli::guarded("sim", [] { return 0; }), 0);
  EXPECT_EQ(cli::guarded("sim", [] { return 1; }), 1);
  EXPECT_EQ(cli::guarded("sim", []() -> int { throw InputError("f.jsonl", 3, "at", "bad"); }), 2);
  EXPECT_EQ(cli::guarded("sim", []() -> int { throw PolicyError("mine", "threw"); }), 2);
  EXPECT_EQ(cli::guarded("sim", []() -> int { throw InternalError("a broken invariant"); }), 70);
  EXPECT_EQ(cli::guarded("sim", []() -> int { throw std::out_of_range("map::at"); }), 70);
}

TEST(ExitStatus, ARunExitsZeroOneOrTwoAsItsOutcomeSays) {
  const auto dir = scratch_dir("status");
  EXPECT_EQ(run_pmixflow({"sim", "--scenario", source_path("traces/demo.jsonl"), "--quiet"}).exit_code, 0);
  std::ofstream(dir / "fails.jsonl")
      << R"({"format":"pmixflow-scenario","version":1,"name":"fails"})"
      << "\n"
      << R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":1},"expect":{"status":"PMIX_ERR_NOT_FOUND"}})"
      << "\n";
  EXPECT_EQ(run_pmixflow({"sim", "--scenario", (dir / "fails.jsonl").string(), "--quiet"}).exit_code, 1);
  EXPECT_EQ(run_pmixflow({"sim", "--scenario", (dir / "missing.jsonl").string()}).exit_code, 2);
  EXPECT_EQ(run_pmixflow({"sim", "--no-such-option"}).exit_code, 2);
}

TEST(ExitStatus, ARunIntoAnEarlierRunsDirectoryLeavesNothingOfThatRunBehind) {
  const auto dir = scratch_dir("stale");
  const auto out = dir / "out";
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", out.string()}).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(out / "summary.json"));
  // A run refused before it starts (a missing scenario) touches nothing: it wrote no output.
  EXPECT_EQ(run_pmixflow({"sim", "--scenario", (dir / "missing.jsonl").string(), "--out", out.string()}).exit_code, 2);
  EXPECT_TRUE(std::filesystem::exists(out / "summary.json"));
  // A run without an event log: the earlier log does not stay beside its summary.
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", out.string()}).exit_code, 0);
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--no-events", "--out", out.string()}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(out / "events.jsonl"));
  EXPECT_TRUE(std::filesystem::exists(out / "summary.json"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
