// jobs.csv means what Batsim's means: read with nothing but Python's csv module, as evalys and
// the pandas scripts written for Batsim read it, every job that ran holds as many resources as
// it requested, no two jobs hold one resource at once, a job that never ran has no times, and
// the utilisation computed from the file as evalys computes it is summary.json's.
#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

struct OutputsCase {
  std::string name;
  std::vector<std::string> args;  // after `pmixflow sim`
};

class BatsimOutputs : public ::testing::TestWithParam<OutputsCase> {};

RunResult run_python(const std::string& script, const std::vector<std::string>& args) {
  const auto dir = scratch_dir("python");
  std::string cmd = "/usr/bin/python3 " + quote(script);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote((dir / "out").string()) + " 2>&1";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(dir / "out");
  std::filesystem::remove_all(dir);
  return r;
}

TEST_P(BatsimOutputs, JobsCsvReadAsEvalysDoesAgreesWithTheSummary) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 on this machine";
  const auto dir = scratch_dir(GetParam().name);
  std::vector<std::string> args{"sim"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  args.insert(args.end(), {"--out", (dir / "out").string(), "--no-events", "--quiet"});
  const auto sim = run_pmixflow(args, source_path(""));
  ASSERT_EQ(sim.exit_code, 0) << sim.err << sim.out;
  const json summary = json::parse(slurp(dir / "out" / "summary.json"));
  const std::uint64_t resources = summary.at("resources").at("count").get<std::uint64_t>();
  ASSERT_GT(summary.at("slots_per_node").get<std::uint32_t>(), 1u) << "the case must have several slots per node";
  ASSERT_EQ(resources, summary.at("nodes").get<std::uint64_t>() * summary.at("slots_per_node").get<std::uint64_t>());

  const auto check = run_python(source_path("tests/tools/batsim_jobs_check.py"),
                                {(dir / "out" / "jobs.csv").string(), std::to_string(resources)});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  const auto at = check.out.find("utilisation=");
  ASSERT_NE(at, std::string::npos) << check.out;
  const double from_csv = std::stod(check.out.substr(at + 12));
  const double reported = summary.at("utilization").get<double>();
  EXPECT_GT(reported, 0.0);
  EXPECT_NEAR(from_csv, reported, 1e-12 * reported) << "evalys would not see the utilisation summary.json reports";
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    MultiSlotMachines, BatsimOutputs,
    ::testing::Values(
        // The trace's own machine: 8 nodes of 4 slots, jobs of 1 to 32 slots sharing nodes.
        OutputsCase{"golden_easy", {"--trace", "traces/golden.swf", "--policy", "easy"}},
        OutputsCase{"golden_conservative", {"--trace", "traces/golden.swf", "--policy", "conservative"}},
        // 16 nodes of 8 slots instead, so that the numbering is not the trace's.
        OutputsCase{"golden_16x8",
                    {"--trace", "traces/golden.swf", "--nodes", "16", "--topology", "topologies/small-node.xml"}},
        // Every entry point, a cancel, an extension and a refusal, on 8 nodes of 8 slots.
        OutputsCase{"demo", {}},
        // With no scheduler: the RM makes reservations itself, and one is released.
        OutputsCase{"standalone", {"--scenario", "tests/scenarios/standalone-release.jsonl"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace pmixflow::test
