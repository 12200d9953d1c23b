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
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pmixflow/results/invariants.hpp"
#include "pmixflow_run.hpp"
#include "scenario_generator.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// What summary.json's call account breaks: one sentence each.
std::vector<std::string> account_breaches(const fs::path& summary_file, int exit_code) {
  std::ifstream in(summary_file);
  if (!in) return {"no summary.json after an exit " + std::to_string(exit_code)};
  const json a = json::parse(in, nullptr, false)["call_account"];
  if (!a.is_object()) return {"summary.json has no call_account"};
  const auto n = [&](const char* k) { return a.value(k, std::int64_t{0}); };
  std::vector<std::string> b;
  if (n("made") != n("answered") + n("abandoned") + n("never_answered"))
    b.push_back("call_account: made " + std::to_string(n("made")) + " != answered + abandoned + never_answered");
  if (n("never_made") != 0) b.push_back("call_account: never_made " + std::to_string(n("never_made")));
  if (n("unplanned") != 0) b.push_back("call_account: unplanned " + std::to_string(n("unplanned")));
  if (exit_code == 0 && n("never_answered") != 0) b.push_back("exit 0 with calls never answered");
  if (exit_code == 1 && n("never_answered") == 0) b.push_back("exit 1 though every call was answered");
  return b;
}

// Every breach of one run; empty when the run held.
std::vector<std::string> breaches_of(const RunResult& r, const fs::path& out) {
  if (r.exit_code == 2) return {"the scenario was refused at input (exit 2): " + r.err};
  if (r.exit_code != 0 && r.exit_code != 1) return {"exit " + std::to_string(r.exit_code) + ": " + r.err};
  std::vector<std::string> b = account_breaches(out / "summary.json", r.exit_code);
  const auto log_file = out / "events.jsonl";
  if (!fs::exists(log_file)) return {"no events.jsonl"};
  const InvariantReport report = check_invariants(log_file.string());
  b.insert(b.end(), report.breaches.begin(), report.breaches.end());
  // The only calls left unanswered are those the scheduler still holds, for an RM gone for good
  // or for resources held for good; the run says so (exit 1).
  if (r.exit_code == 1 && report.waiting_for_rm.empty() && report.waiting_for_resources.empty())
    b.push_back("exit 1 with no call held at the scheduler");
  return b;
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
  ADD_FAILURE() << "fuzz-runs: FINDING seed " << seed << " (exit " << r.exit_code << ")\n"
                << "fuzz-runs:   replay: PMIXFLOW_FAULT_FIRST_SEED=" << seed
                << " PMIXFLOW_FAULT_SEEDS=1 build/tests/sim_tests --gtest_filter='FaultProperty.*'\n"
                << "fuzz-runs:   scenario: " << (dir / "scenario.jsonl").string() << "\n"
                << said << "scenario:\n"
                << text;
  return false;
}

TEST(FaultProperty, RandomFaultsAtRandomTimesNeverBreakTheInvariants) {
  const std::uint64_t first = env_number("PMIXFLOW_FAULT_FIRST_SEED", 1);
  const std::uint64_t seeds = env_number("PMIXFLOW_FAULT_SEEDS", 40);
  std::size_t failed = 0;
  for (std::uint64_t seed = first; seed < first + seeds; ++seed) failed += !run_seed(seed);
  std::cout << "fuzz-runs: " << seeds << " seeds from " << first << ", " << failed << " failed\n";
}

}  // namespace
}  // namespace pmixflow::test
