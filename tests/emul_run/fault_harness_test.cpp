// The emulation fault harness (issue 28 item 11): random valid scenarios from a seed (the
// whole-run fuzzer's generator, tests/sim/scenario_generator.hpp), each run by the real
// `pmixflow emul` while signals from outside hit its processes - a random party (controller,
// scheduler, a daemon, a requestor), a random signal (SIGKILL, SIGTERM, or SIGSTOP then SIGCONT
// after a short pause), at one to three random moments of its run (fault_injector.hpp) - and held
// to what every emulation must keep whatever is done to it (fault_verdict.hpp): an exit status
// that names what happened (3 naming the party and the signal for a party killed in the flow; a
// stop never changes the outcome), the run invariants of the whole-run fuzzer for a run that
// finished, and afterwards no process of the run left and its private directory gone.
// A failing seed is printed as "fault-runs: FINDING seed N" with the command that replays it
// and the scenario (kept with the run's log and terminal in its scratch directory). The seed
// fixes the scenario, the moments, the signals and the pauses; which process a pick lands on
// depends on who is up at that moment, so a replay hits the same run at nearly the same place.
// The test command runs 3 seeds; a long campaign: scripts/fault-runs.sh COUNT FIRST_SEED, or
//   PMIXFLOW_EMUL_FAULT_SEEDS=300 PMIXFLOW_EMUL_FAULT_FIRST_SEED=1 build/tests/emul_run_tests
//     --gtest_filter='EmulFaultHarness.*'
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "emul_run.hpp"
#include "fault_injector.hpp"
#include "fault_verdict.hpp"
#include "scenario_generator.hpp"
#include "seed_campaign.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

#ifdef PMIXFLOW_SANITIZED
constexpr double kHarnessSpeed = 2;  // a sanitized party is slower: the same scenario time, more wall time
#else
constexpr double kHarnessSpeed = 4;
#endif
// The generator's calls and faults fall within 9 s of scenario time: the signals fall within
// that, and a little after, while the flow still moves.
constexpr double kHarnessWindowWall = 10.0 / kHarnessSpeed;

const SeedCampaign kCampaign{"fault-runs", "PMIXFLOW_EMUL_FAULT_FIRST_SEED", "PMIXFLOW_EMUL_FAULT_SEEDS", 3,
                             "build/tests/emul_run_tests --gtest_filter='EmulFaultHarness.*'"};

// Nothing of the run may stay: no process whose environment names its TMPDIR (a job killed with
// its daemon dies by its parent-death signal, a moment after), no file in it (its private
// directory among them).
std::vector<std::string> leftover_breaches(const EmulRun& run) {
  std::vector<pid_t> left = processes_with_env(run.tmp().string());
  for (int i = 0; i < 500 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = processes_with_env(run.tmp().string());
  }
  std::vector<std::string> b;
  for (pid_t p : left) {
    std::string cmd = slurp("/proc/" + std::to_string(p) + "/cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    b.push_back("process " + std::to_string(p) + " left running: " + cmd);
  }
  for (const auto& f : leftovers(run.tmp())) b.push_back("left behind: " + f);
  return b;
}

// One seed's run and everything it breached.
std::vector<std::string> run_seed_emulation(std::uint64_t seed, const fs::path& scenario, const fs::path& keep,
                                            FaultedRun& r, std::vector<std::string>& notes) {
  EmulRun run("fault-" + std::to_string(seed));
  run.start({"--scenario", scenario.string(), "--quiet", "--speed", std::to_string(static_cast<int>(kHarnessSpeed)),
             "--timeout", "300"});
  FaultInjector injector(run, seed);
  const bool struck = injector.strike(kHarnessWindowWall, std::chrono::seconds(120));
  const auto code = run.wait(std::chrono::seconds(360));
  r = FaultedRun{code.value_or(-1), run.err(), run.out(), scenario, kHarnessSpeed, injector.actions()};
  std::vector<std::string> b =
      code ? fault_breaches(r, notes) : std::vector<std::string>{"it did not end within 360 s"};
  if (!struck && code == 0) b.push_back("it ended with exit 0 before its clock started");
  const auto left = leftover_breaches(run);
  b.insert(b.end(), left.begin(), left.end());
  if (!b.empty()) {
    std::error_code ec;
    fs::copy(run.out(), keep / "out", fs::copy_options::recursive, ec);
    std::ofstream(keep / "stderr") << r.err;
  }
  return b;
}

// Runs one seed; true when it held. A failure is printed with its replay and kept.
bool run_seed(std::uint64_t seed) {
  const auto dir = scratch_dir("seed-" + std::to_string(seed));
  const std::string text = ScenarioGenerator(seed).scenario();
  std::ofstream(dir / "scenario.jsonl") << text;
  FaultedRun r;
  std::vector<std::string> notes;
  const auto found = run_seed_emulation(seed, dir / "scenario.jsonl", dir, r, notes);
  std::string did;
  for (const auto& a : r.actions) did += "  " + a.text() + "\n";
  for (const auto& n : notes) did += "    " + n + "\n";
  // Flushed before the next run forks: a child would write what is still buffered.
  std::cout << "fault-runs: seed " << seed << " exit " << r.exit_code << (found.empty() ? "" : " FAILED") << "\n"
            << did << std::flush;
  if (found.empty()) {
    fs::remove_all(dir);
    return true;
  }
  std::string said;
  for (const auto& x : found) said += "  " + x + "\n";
  report_finding(kCampaign, seed, r.exit_code, dir / "scenario.jsonl",
                 "signals sent:\n" + did + "breaches:\n" + said + "scenario:\n" + text);
  return false;
}

TEST(EmulFaultHarness, RandomSignalsToRandomPartiesNeverBreakTheInvariants) { run_campaign(kCampaign, run_seed); }

}  // namespace
}  // namespace pmixflow::test
