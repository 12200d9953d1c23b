// Faults at every instant of a call's flight (FLOW.md, "Faults"): each shipped fault scenario
// holds its own statements, and sweeps put a fault at every step of a call's path - relayed,
// forwarded, queued, granted, instantiated, answered - and hold every run to the invariants:
// every call answered exactly once or abandoned by a requestor that exited, nothing held for a
// call nobody took, every session completed once, the run ended.
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/log/reader.hpp"
#include "pmixflow/results/invariants.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

// Runs `scenario` (a file) and holds its log to the invariants; returns the output directory.
fs::path run_and_check(const fs::path& scenario, const std::string& label) {
  const auto dir = scratch_dir(label);
  const auto r = run_pmixflow({"sim", "--scenario", scenario.string(), "--out", (dir / "out").string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << label << "\n" << r.out << r.err;
  const auto report = check_invariants((dir / "out" / "events.jsonl").string());
  EXPECT_TRUE(report.ok()) << label << ":" << joined(report.breaches);
  EXPECT_GT(report.calls, 0u) << label;
  return dir;
}

TEST(Faults, EveryShippedFaultScenarioHoldsItsStatementsAndTheInvariants) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(source_path("tests/faults")))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u);
  for (const auto& f : files) fs::remove_all(run_and_check(f, f.stem().string()));
}

using Check = std::function<void(const fs::path& log, const std::string& label)>;

// A scenario with the fault at `at`: `{AT}` in the template is replaced.
void sweep(const std::string& name, const std::string& tmpl, double from, double to, int steps,
           const Check& check = {}) {
  for (int i = 0; i <= steps; ++i) {
    const double at = from + (to - from) * i / steps;
    std::ostringstream t;
    t.precision(9);
    t << at;
    std::string text = tmpl;
    for (auto p = text.find("{AT}"); p != std::string::npos; p = text.find("{AT}")) text.replace(p, 4, t.str());
    const auto dir = scratch_dir(name + "-" + std::to_string(i));
    const auto file = dir / "scenario.jsonl";
    std::ofstream(file) << text;
    const std::string label = name + " with the fault at t=" + t.str();
    const auto out = run_and_check(file, label);
    if (check) check(out / "out" / "events.jsonl", label);
    fs::remove_all(out);
    fs::remove_all(dir);
  }
}

const std::string kHeader = R"({"format":"pmixflow-scenario","version":1,"name":"sweep","controller":{"dvm":"all"}})"
                            "\n";
// A reservation (no job): held for ever unless whoever owns its fate hands it back.
const std::string kReserveViaDaemon =
    R"({"at":1,"op":"alloc","requestor":"r","via":"daemon:n02","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":2}})"
    "\n";

TEST(Faults, TheRelayingDaemonDyingAtAnyStepLeavesNoCallHangingAndNothingHeld) {
  sweep("daemon", kHeader + kReserveViaDaemon + R"({"at":{AT},"op":"node_fail","node":"n02"})" + "\n", 1.0, 1.0116, 29);
}

TEST(Faults, TheRequestorExitingAtAnyStepLeavesNothingHeldForIt) {
  sweep("exit", kHeader + kReserveViaDaemon + R"({"at":{AT},"op":"requestor_exit","requestor":"r"})" + "\n", 1.00001,
        1.0116, 29);
}

TEST(Faults, TheSchedulerDetachingAtAnyStepLeavesNothingHeldForAFailedCall) {
  sweep("detach",
        kHeader + kReserveViaDaemon + R"({"at":{AT},"op":"scheduler_detach"})" + "\n" +
            R"({"at":2,"op":"scheduler_attach"})" + "\n",
        1.0, 1.0116, 29);
}

TEST(Faults, ARelayedPauseWhoseDaemonDiesNeverStopsAJobForEver) {
  const std::string tmpl =
      kHeader +
      R"({"at":1,"op":"alloc","requestor":"alice","via":"controller","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":8},"app":{"cmd":"sleep","argv":["20"],"np":8}})"
      "\n"
      R"({"at":5,"op":"session_control","requestor":"alice","via":"daemon:n02","session":1,"directives":{"PMIX_SESSION_PAUSE":true}})"
      "\n"
      R"({"at":{AT},"op":"node_fail","node":"n02"})"
      "\n";
  // Told the pause happened, alice's job stays paused as she asked; told it failed, the job
  // runs to its end whether or not the pause had been carried out.
  sweep("pause", tmpl, 5.0, 5.00025, 25, [](const fs::path& log_file, const std::string& label) {
    std::optional<Status> told;
    std::optional<Status> job_end;
    log::LogReader r(log_file.string());
    while (const auto* e = r.next()) {
      if (e->kind == log::EventKind::Answer && e->str(log::Field::corr) == "alice#2")
        told = e->status(log::Field::status);
      if (e->kind == log::EventKind::JobEnd && e->str(log::Field::corr) == "alice#1")
        job_end = e->status(log::Field::status);
    }
    ASSERT_TRUE(told) << label;
    if (*told == Status::Success)
      EXPECT_FALSE(job_end) << label << ": a paused job ended";
    else
      EXPECT_EQ(job_end, Status::Success) << label << ": alice was told " << status_name(*told);
  });
}

TEST(Faults, DaemonsOfALaunchTreeWhoseParentNeverCameUpFailInsteadOfWaitingForEver) {
  // 100 nodes at once: the first 64 are launched by the head node, the next by n01 once it
  // is up (radix 64). n01 never comes up.
  const auto dir = scratch_dir("tree");
  const auto file = dir / "tree.jsonl";
  std::ofstream(file)
      << kHeader << R"({"at":0,"op":"daemon_start_fails","node":"n01"})"
      << "\n"
      << R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":8},"app":{"cmd":"sleep","argv":["10"],"np":8},"expect":{"status":"PMIX_SUCCESS"}})"
      << "\n";
  const auto r =
      run_pmixflow({"sim", "--nodes", "100", "--scenario", file.string(), "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(check_invariants((dir / "out" / "events.jsonl").string()).ok());
  std::size_t failed = 0;
  log::LogReader reader((dir / "out" / "events.jsonl").string());
  while (const auto* e = reader.next()) failed += e->kind == log::EventKind::DaemonStartFailed;
  EXPECT_EQ(failed, 1u + 36u) << "n01 and the 36 daemons it was to launch (n65-n100)";
  fs::remove_all(dir);
}

TEST(Faults, ALaunchTreeComesUpLevelByLevelEachDaemonAfterTheOneThatLaunchedIt) {
  // 200 nodes at once, radix 64: the head launches n01-n64; n01 launches n65-n128 once it is
  // up, n02 n129-n192, n03 n193-n200. Those wait for their launcher as a list (no actor
  // each), and still come up only a launch and a start-up (0.05 s) after it.
  const auto dir = scratch_dir("levels");
  const auto file = dir / "levels.jsonl";
  std::ofstream(file) << kHeader << "\n";
  const auto r =
      run_pmixflow({"sim", "--nodes", "200", "--scenario", file.string(), "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::map<int, double> up;  // node number -> when its daemon came up
  for (const auto& e : read_events(dir / "out" / "events.jsonl"))
    if (e.value("ev", "") == "daemon.up")
      up[std::stoi(e.value("who", "").substr(std::string("daemon:n").size()))] = e["t"];
  ASSERT_EQ(up.size(), 200u);
  double first_level_last = 0;
  for (int n = 1; n <= 64; ++n) first_level_last = std::max(first_level_last, up[n]);
  for (int n = 65; n <= 200; ++n) {
    const int launcher = (n - 1) / 64;  // n01 for n65-n128, ...
    EXPECT_GE(up[n], up[launcher] + 0.05) << "n" << n << " came up before n" << launcher << " could launch it";
  }
  EXPECT_LT(first_level_last, up[65]) << "the second level started before the first was up";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
