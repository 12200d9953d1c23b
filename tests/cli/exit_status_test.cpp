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
  EXPECT_EQ(cli::guarded([] { return 0; }), 0);
  EXPECT_EQ(cli::guarded([] { return 1; }), 1);
  EXPECT_EQ(cli::guarded([]() -> int { throw InputError("f.jsonl", 3, "at", "bad"); }), 2);
  EXPECT_EQ(cli::guarded([]() -> int { throw PolicyError("mine", "threw"); }), 2);
  EXPECT_EQ(cli::guarded([]() -> int { throw InternalError("a broken invariant"); }), 70);
  EXPECT_EQ(cli::guarded([]() -> int { throw std::out_of_range("map::at"); }), 70);
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

TEST(ExitStatus, AnOptionThatDoesNotApplyIsRefusedWithTheReason) {
  const std::string demo = source_path("traces/demo.jsonl");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"sim", "--scenario", demo, "--lenient"}, "--lenient requires --trace"},
      {{"sim", "--scenario", demo, "--compare-recorded"}, "--compare-recorded requires --trace"},
      {{"sim", "--scenario", demo, "--via-daemon", "0.5"}, "--via-daemon requires --trace"},
      {{"sim", "--scenario", demo, "--node-mtbf", "3600"}, "--node-mtbf requires --trace"},
      {{"sim", "--trace", source_path("traces/golden.swf"), "--node-mttr", "60"}, "--node-mttr requires --node-mtbf"},
      {{"sim", "--platform", demo, "--network", "star"}, "excludes"},
  };
  for (const auto& [args, says] : cases) {
    const auto r = run_pmixflow(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_NE(r.err.find("pmixflow: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
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
