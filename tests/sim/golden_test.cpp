// The golden runs: the shipped synthetic trace (traces/golden.swf, made by
// tests/golden/make_trace.py) replayed with every built-in policy and the example plug-in,
// each compared by `pmixflow diff` with the jobs.csv and summary.json kept in tests/golden/.
// Any change in what a policy decides - or in the flow's timing, which moves every start -
// fails here with the diff's report. scripts/update-golden.sh rewrites them when a change is
// meant; the commit then says why.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

struct GoldenRun {
  std::string name;
  std::vector<std::string> options;
};

// tests/golden/runs.txt, shared with scripts/update-golden.sh.
std::vector<GoldenRun> golden_runs() {
  std::vector<GoldenRun> runs;
  std::ifstream in(source_path("tests/golden/runs.txt"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    GoldenRun run;
    if (!(words >> run.name) || run.name[0] == '#') continue;
    for (std::string w; words >> w;) run.options.push_back(w == "@smallest_first" ? PMIXFLOW_EXAMPLE_POLICY : w);
    runs.push_back(run);
  }
  return runs;
}

class Golden : public ::testing::TestWithParam<GoldenRun> {};

TEST_P(Golden, TheRunMatchesItsGoldenOutputs) {
  const GoldenRun& run = GetParam();
  const auto dir = scratch_dir("golden-" + run.name);
  std::vector<std::string> args{"sim", "--trace", source_path("traces/golden.swf")};
  args.insert(args.end(), run.options.begin(), run.options.end());
  args.insert(args.end(), {"--out", (dir / "out").string(), "--no-events", "--quiet"});
  const auto sim = run_pmixflow(args);
  ASSERT_EQ(sim.exit_code, 0) << sim.err << sim.out;
  const auto diff = run_pmixflow({"diff", source_path("tests/golden/" + run.name), (dir / "out").string()});
  EXPECT_EQ(diff.exit_code, 0) << "golden run '" << run.name << "' changed (scripts/update-golden.sh rewrites it "
                               << "when the change is meant):\n"
                               << diff.out << diff.err;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Policies, Golden, ::testing::ValuesIn(golden_runs()), [](const auto& info) {
  std::string n = info.param.name;
  for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
});

TEST(GoldenRuns, EveryPolicyIsGuardedAndPolicyChoicesShow) {
  const auto runs = golden_runs();
  std::vector<std::string> names;
  for (const auto& r : runs) names.push_back(r.name);
  for (const char* policy : {"fcfs", "easy", "conservative", "priority-preempt", "smallest-first"})
    EXPECT_NE(std::find(names.begin(), names.end(), policy), names.end()) << policy;
  // The goldens tell the policies apart: they would not guard anything if they did not.
  const auto diff = run_pmixflow({"diff", source_path("tests/golden/fcfs"), source_path("tests/golden/easy")});
  EXPECT_EQ(diff.exit_code, 1) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("DIFFERENT"), std::string::npos) << diff.out;
  // And the preempting one did preempt on this trace.
  const auto summary = json::parse(slurp(source_path("tests/golden/priority-preempt/summary.json")));
  EXPECT_GT(summary["preemptions"].get<int>(), 0);
}

}  // namespace
}  // namespace pmixflow::test
