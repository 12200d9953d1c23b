// The whole-run fuzzer (issue 12, issue 28 item 11): random valid scenarios from a seed
// (scenario_generator.hpp: every operation, several users, faults at random times and
// triggered), each run through the real simulator and held to what every run must keep:
//   - the exit status is 0, 1 or 2 (no crash, no hang: each run has 60 s);
//   - every call accounted for once (summary.json `call_account`: made = answered + abandoned
//     + never_answered, never_made = 0), and exit 0 only when none was left unanswered;
//   - the log's own invariants (results/invariants.hpp): no call answered twice, every
//     session complete at most once and, when the run ends quiescent, every session
//     instantiated complete; the log whole (log.end last) and in time order.
// A failing seed is printed as "fuzz-runs: FINDING seed N" with the command that replays it and
// the scenario it made (kept in its scratch directory). The test command runs 40 seeds; a long
// campaign: scripts/fuzz-runs.sh COUNT FIRST_SEED, or
//   PMIXFLOW_FAULT_SEEDS=1000 PMIXFLOW_FAULT_FIRST_SEED=1 build/tests/sim_tests --gtest_filter='FaultProperty.*'
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"
#include "run_invariants.hpp"
#include "scenario_generator.hpp"
#include "seed_campaign.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

const SeedCampaign kCampaign{"fuzz-runs", "PMIXFLOW_FAULT_FIRST_SEED", "PMIXFLOW_FAULT_SEEDS", 40,
                             "build/tests/sim_tests --gtest_filter='FaultProperty.*'"};

// Every breach of one run; empty when it held.
std::vector<std::string> breaches_of(const RunResult& r, const fs::path& out) {
  if (r.exit_code == 2) return {"the scenario was refused at input (exit 2): " + r.err};
  if (r.exit_code != 0 && r.exit_code != 1) return {"exit " + std::to_string(r.exit_code) + ": " + r.err};
  return finished_run_breaches(out, r.exit_code);
}

// Runs one seed; true when it held. A failure is printed with its replay and kept.
bool run_seed(std::uint64_t seed) {
  const auto dir = scratch_dir("seed-" + std::to_string(seed));
  const std::string text = ScenarioGenerator(seed).scenario();
  std::ofstream(dir / "scenario.jsonl") << text;
  const auto r = run_pmixflow(
      {"sim", "--scenario", (dir / "scenario.jsonl").string(), "--out", (dir / "out").string(), "--quiet"}, "", 60);
  std::vector<std::string> found;
  try {
    found = breaches_of(r, dir / "out");
  } catch (const std::exception& e) {
    found.push_back(std::string("the log cannot be checked: ") + e.what());
  }
  if (found.empty()) {
    fs::remove_all(dir);
    return true;
  }
  std::string said;
  for (const auto& x : found) said += "  " + x + "\n";
  report_finding(kCampaign, seed, r.exit_code, dir / "scenario.jsonl", said + "scenario:\n" + text);
  return false;
}

TEST(FaultProperty, RandomFaultsAtRandomTimesNeverBreakTheInvariants) { run_campaign(kCampaign, run_seed); }

}  // namespace
}  // namespace pmixflow::test
