// The event log every shipped scenario writes keeps the contract: each line is a kind the
// catalogue (and so docs/events.md) describes, with the fields and types it gives, and the log
// ends with its closing line.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/log/reader.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> out;
  for (const char* dir : {"traces", "tests/scenarios", "tests/faults"})
    for (const auto& e : fs::directory_iterator(source_path(dir)))
      if (e.path().extension() == ".jsonl") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Reads the whole log strictly; fails the test at the first line that breaks the contract.
std::set<std::string> kinds_in(const fs::path& log_file) {
  std::set<std::string> kinds;
  log::LogReader r(log_file.string(), {.strict = true});
  while (const auto* e = r.next()) kinds.insert(std::string(log::spec(e->kind).name));
  EXPECT_TRUE(r.complete()) << log_file << ": " << (r.problem() ? r.problem()->what() : "not whole");
  return kinds;
}

TEST(LogContract, EveryShippedScenarioWritesOnlyWhatTheCatalogueDescribesAndItsOutputsFromIt) {
  std::set<std::string> seen;
  const auto scenarios = shipped_scenarios();
  ASSERT_GT(scenarios.size(), 50u);
  for (const auto& scenario : scenarios) {
    const auto dir = scratch_dir(scenario.stem().string());
    const auto r =
        run_pmixflow({"sim", "--scenario", scenario.string(), "--out", dir.string(), "--quiet"}, PMIXFLOW_SOURCE_DIR);
    ASSERT_EQ(r.exit_code, 0) << scenario << ": " << r.err;
    for (const auto& k : kinds_in(dir / "events.jsonl")) seen.insert(k);
    // And the outputs are the log's: rebuilt from it alone, they are the same bytes.
    const auto again = run_pmixflow({"report", dir.string(), "--out", (dir / "again").string(), "--quiet"});
    EXPECT_EQ(again.exit_code, 0) << scenario << ": " << again.err;
    for (const char* file : {"jobs.csv", "summary.json"})
      EXPECT_EQ(slurp(dir / file), slurp(dir / "again" / file)) << scenario << ": " << file;
    fs::remove_all(dir);
  }
  // A replay with preemption adds the scheduler's requeueing.
  const auto dir = scratch_dir("golden");
  ASSERT_EQ(run_pmixflow({"sim", "--trace", "traces/golden.swf", "--policy", "priority-preempt", "--preemptible", "1",
                          "--out", dir.string(), "--quiet"},
                         PMIXFLOW_SOURCE_DIR)
                .exit_code,
            0);
  for (const auto& k : kinds_in(dir / "events.jsonl")) seen.insert(k);
  fs::remove_all(dir);
  // The shipped scenarios write every kind but this one, which needs what no scenario can say
  // yet (a preemption racing its job's end).
  // A new kind needs a scenario, or a place in this list with the reason.
  const std::set<std::string> unreached{"alloc.preempt_refused"};
  std::set<std::string> unseen;
  for (const auto& k : log::all_kinds())
    if (!seen.count(std::string(k.name))) unseen.insert(std::string(k.name));
  EXPECT_EQ(unseen, unreached);
}

}  // namespace
}  // namespace pmixflow::test
