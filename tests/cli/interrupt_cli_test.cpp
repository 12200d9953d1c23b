// Ctrl-C (SIGINT) and SIGTERM stop `pmixflow sim` and `pmixflow sweep` as they stop `emul`: exit
// 130, a line saying so, the event log cut where the run was (no closing line), and nothing that
// looks complete (no summary.json, no jobs.csv, no file left half-written under another name).
// Each run is signalled once its log has grown, so it is mid-run however loaded the machine.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "background_run.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A replay far longer than a test waits for: a job submitted every 10 s, each an hour long on
// one of 64 nodes, so that the queue and the log keep growing.
fs::path write_long_trace(const fs::path& dir) {
  const fs::path swf = dir / "long.swf";
  std::ofstream out(swf);
  out << "; MaxNodes: 64\n; MaxProcs: 512\n";
  for (int job = 1; job <= 100000; ++job)
    out << job << " " << job * 10 << " -1 3600 8 -1 -1 8 7200 -1 1 " << job % 7 + 1 << " 1 -1 1 -1 -1 -1\n";
  return swf;
}

// The log has grown past its header: the run is under way.
bool log_growing(const fs::path& log) {
  std::error_code ec;
  return fs::file_size(log, ec) > 64 * 1024 && !ec;
}

std::string last_line(const fs::path& file) {
  const std::string text = slurp(file);
  const auto end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end + 1 - (start == std::string::npos ? 0 : start + 1));
}

// What a stopped run leaves in `out`: a cut log, and no report, whole or partial.
void expect_cut(const fs::path& out) {
  ASSERT_TRUE(fs::exists(out / "events.jsonl"));
  EXPECT_EQ(last_line(out / "events.jsonl").find("\"log.end\""), std::string::npos) << "the log has a closing line";
  for (const auto& entry : fs::directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "events.jsonl" || name == "sim.log" || name == "exit_status") << name;
  }
}

void stops_sim(int signal, const std::string& says) {
  const auto dir = scratch_dir("sim");
  const fs::path out = dir / "out";
  BackgroundRun run(dir, {"sim", "--trace", write_long_trace(dir).string(), "--out", out.string()});
  ASSERT_TRUE(run.wait_while_running([&] { return log_growing(out / "events.jsonl"); }, 300s))
      << "the run ended or wrote no log: " << run.err();
  run.signal(signal);
  const auto status = run.wait(300s);
  ASSERT_TRUE(status) << "still running after the signal";
  EXPECT_EQ(*status, 130) << run.err();
  EXPECT_NE(run.err().find("pmixflow sim: " + says + " at t="), std::string::npos) << run.err();
  EXPECT_NE(run.err().find("the event log is cut there"), std::string::npos) << run.err();
  expect_cut(out);
  fs::remove_all(dir);
}

TEST(SimInterrupt, CtrlCStopsTheRunWith130AndACutLog) { stops_sim(SIGINT, "stopped by Interrupt"); }

TEST(SimInterrupt, SigtermStopsTheRunWith130AndACutLog) { stops_sim(SIGTERM, "stopped by Terminated"); }

void stops_sweep(int signal, const std::string& says) {
  const auto dir = scratch_dir("sweep");
  write_long_trace(dir);
  std::ofstream(dir / "study.sweep") << "policies = fcfs, easy\ntraces = long.swf\nseeds = 1\nout = study\n";
  BackgroundRun sweep(dir, {"sweep", (dir / "study.sweep").string(), "--jobs", "2"});
  const fs::path runs = dir / "study" / "runs";
  const auto both_growing = [&] {
    std::size_t growing = 0;
    std::error_code ec;
    for (const auto& run : fs::directory_iterator(runs, ec)) growing += log_growing(run.path() / "events.jsonl");
    return growing == 2;
  };
  ASSERT_TRUE(sweep.wait_while_running(both_growing, 300s)) << "the runs ended or wrote no log: " << sweep.err();
  sweep.signal(signal);
  const auto status = sweep.wait(300s);
  ASSERT_TRUE(status) << "still running after the signal";
  EXPECT_EQ(*status, 130) << sweep.err();
  EXPECT_NE(sweep.err().find("pmixflow sweep: " + says + ": no run started after it, 2 runs stopped"),
            std::string::npos)
      << sweep.err();
  for (const auto& run : fs::directory_iterator(runs)) {
    SCOPED_TRACE(run.path().string());
    expect_cut(run.path());
    EXPECT_NE(slurp(run.path() / "sim.log").find("pmixflow sim: " + says), std::string::npos)
        << "the run was passed the signal and stopped itself";
    EXPECT_EQ(slurp(run.path() / "exit_status"), "130\n") << "recorded as stopped: a later sweep makes it again";
  }
  fs::remove_all(dir);
}

TEST(SweepInterrupt, CtrlCStopsEveryRunWith130) { stops_sweep(SIGINT, "stopped by Interrupt"); }

TEST(SweepInterrupt, SigtermStopsEveryRunWith130) { stops_sweep(SIGTERM, "stopped by Terminated"); }

}  // namespace
}  // namespace pmixflow::test
