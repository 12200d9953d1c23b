// Policies loaded from a shared library (`--policy path/libx.so`): the example user policy in
// examples/policies/ builds, loads and decides differently from FCFS; libraries that do not
// keep the contract of plugin.hpp are refused with exit 2 and a message that says why.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

// Four one-slot nodes; every job needs all four, so they run one at a time. Job 1 starts at
// once; when it ends (t=100) jobs 2 (estimate 1000 s) and 3 (estimate 10 s) both wait. FCFS
// starts job 2 first; shortest-estimate-first starts job 3.
constexpr const char* kPluginTrace =
    "; Version: 2.2\n"
    "; MaxNodes: 4\n"
    "; MaxProcs: 4\n"
    "1 1000 0 100 4 -1 -1 4 100 -1 1 7 1 -1 1 -1 -1 -1\n"
    "2 1001 0 100 4 -1 -1 4 1000 -1 1 7 1 -1 1 -1 -1 -1\n"
    "3 1002 0 10 4 -1 -1 4 10 -1 1 8 1 -1 1 -1 -1 -1\n";

// Four one-slot nodes again. Job 2 needs all four and waits for job 1 (until t=100); jobs 3, 5
// and 4 each fit in the two free slots. Shortest-estimate-first keeps starting them and starves
// job 2 (to t=272) - unless starvation protection, past its threshold, reserves job 2's slots:
// then only job 5 (it ends at 72, before t=100) may still start ahead of it.
constexpr const char* kStarvationTrace =
    "; Version: 2.2\n"
    "; MaxNodes: 4\n"
    "; MaxProcs: 4\n"
    "1 1000 0 100 2 -1 -1 2 100 -1 1 7 1 -1 1 -1 -1 -1\n"
    "2 1001 0 100 4 -1 -1 4 100 -1 1 7 1 -1 1 -1 -1 -1\n"
    "3 1002 0 50 2 -1 -1 2 50 -1 1 8 1 -1 1 -1 -1 -1\n"
    "4 1003 0 200 2 -1 -1 2 200 -1 1 8 1 -1 1 -1 -1 -1\n"
    "5 1004 0 20 2 -1 -1 2 20 -1 1 8 1 -1 1 -1 -1 -1\n";

constexpr const char* kMaxWaitVariable = "PMIXFLOW_SMALLEST_FIRST_MAX_WAIT";

// Sets an environment variable for the runs a test makes (children inherit it), then unsets it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

struct PluginRun {
  int exit_code = -1;
  std::string output;                           // stdout and stderr
  std::map<std::string, double> start;          // job_id -> starting_time
  std::optional<std::string> scheduler_policy;  // the policy's name() in the scheduler.up event
};

PluginRun replay_with(const std::string& policy, const char* trace_text = kPluginTrace) {
  const auto dir = scratch_dir("plugin");
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << trace_text;
  const auto r = run_pmixflow({"sim", "--trace", trace.string(), "--policy", policy, "--out", (dir / "out").string()});
  PluginRun out;
  out.exit_code = r.exit_code;
  out.output = r.out + r.err;
  if (r.exit_code == 0) {
    std::stringstream csv(slurp(dir / "out" / "jobs.csv"));
    std::string line;
    std::getline(csv, line);  // header: job_id first, starting_time ninth (Batsim's columns)
    EXPECT_EQ(line.rfind("job_id,", 0), 0u) << line;
    while (std::getline(csv, line)) {
      std::vector<std::string> cells;
      std::stringstream row(line);
      for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
      if (cells.size() > 8) out.start[cells[0]] = std::stod(cells[8]);
    }
    for (const auto& e : read_events(dir / "out" / "events.jsonl"))
      if (e.value("ev", "") == "scheduler.up") out.scheduler_policy = e.value("policy", "");
  }
  std::filesystem::remove_all(dir);
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(Plugin, TheExamplePolicyLoadsRunsAndStartsTheShortestJobFirst) {
  const PluginRun fcfs = replay_with("fcfs");
  ASSERT_EQ(fcfs.exit_code, 0) << fcfs.output;
  EXPECT_NEAR(fcfs.start.at("1"), 0, 0.02);
  EXPECT_NEAR(fcfs.start.at("2"), 100, 0.02);
  EXPECT_NEAR(fcfs.start.at("3"), 200, 0.02);

  const PluginRun sf = replay_with(PMIXFLOW_EXAMPLE_POLICY);
  ASSERT_EQ(sf.exit_code, 0) << sf.output;
  EXPECT_EQ(sf.scheduler_policy, "smallest-first");  // name() reached the scheduler
  ASSERT_EQ(sf.start.size(), 3u);
  EXPECT_NEAR(sf.start.at("1"), 0, 0.02);
  EXPECT_NEAR(sf.start.at("3"), 100, 0.02);  // the 10 s job overtakes the 1000 s one
  EXPECT_NEAR(sf.start.at("2"), 110, 0.02);
}

TEST(Plugin, TheExamplePolicyProtectsAJobThatWaitedTooLong) {
  // By default (one day) nothing has waited too long here: the short jobs keep overtaking job 2.
  const PluginRun starved = replay_with(PMIXFLOW_EXAMPLE_POLICY, kStarvationTrace);
  ASSERT_EQ(starved.exit_code, 0) << starved.output;
  ASSERT_EQ(starved.start.size(), 5u);
  EXPECT_NEAR(starved.start.at("1"), 0, 0.02);
  EXPECT_NEAR(starved.start.at("3"), 2, 0.02);
  EXPECT_NEAR(starved.start.at("5"), 52, 0.02);
  EXPECT_NEAR(starved.start.at("4"), 72, 0.02);
  EXPECT_NEAR(starved.start.at("2"), 272, 0.03);

  // Past 30 s job 2 is protected: at t=52 (it has waited 51 s) job 5 still starts, as it ends
  // before job 2 can; job 4 would not, so it waits, and job 2 starts as soon as job 1 ends.
  const ScopedEnv max_wait(kMaxWaitVariable, "30");
  const PluginRun protected_run = replay_with(PMIXFLOW_EXAMPLE_POLICY, kStarvationTrace);
  ASSERT_EQ(protected_run.exit_code, 0) << protected_run.output;
  ASSERT_EQ(protected_run.start.size(), 5u);
  EXPECT_NEAR(protected_run.start.at("3"), 2, 0.02);    // before job 2 had waited 30 s
  EXPECT_NEAR(protected_run.start.at("5"), 52, 0.02);   // cannot delay job 2
  EXPECT_NEAR(protected_run.start.at("2"), 100, 0.02);  // as soon as job 1 ends
  EXPECT_NEAR(protected_run.start.at("4"), 200, 0.02);  // held back until job 2 ends
}

TEST(Plugin, AnExceptionFromThePolicysConstructorIsReported) {
  const ScopedEnv max_wait(kMaxWaitVariable, "soon");
  const PluginRun r = replay_with(PMIXFLOW_EXAMPLE_POLICY);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, PMIXFLOW_EXAMPLE_POLICY)) << r.output;
  EXPECT_TRUE(contains(r.output, "PMIXFLOW_SMALLEST_FIRST_MAX_WAIT")) << r.output;
  EXPECT_TRUE(contains(r.output, "'soon'")) << r.output;
}

TEST(Plugin, ALibraryOfAnotherApiVersionIsRefusedNamingBothVersions) {
  const PluginRun r = replay_with(PMIXFLOW_WRONG_API_POLICY);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, PMIXFLOW_WRONG_API_POLICY)) << r.output;
  EXPECT_TRUE(contains(r.output, "version " + std::to_string(kPolicyApiVersion + 1))) << r.output;
  EXPECT_TRUE(contains(r.output, "version " + std::to_string(kPolicyApiVersion))) << r.output;
  EXPECT_FALSE(contains(r.output, "simulated")) << "nothing may run: " << r.output;
}

TEST(Plugin, ALibraryWithoutAnEntryPointIsRefusedNamingIt) {
  const PluginRun r = replay_with(PMIXFLOW_NO_CREATE_POLICY);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, PMIXFLOW_NO_CREATE_POLICY)) << r.output;
  EXPECT_TRUE(contains(r.output, "pmixflow_policy_create")) << r.output;
}

TEST(Plugin, APolicyThatThrowsIsNamedAsTheCulpritAndTheRunLooksCut) {
  const PluginRun r = replay_with(PMIXFLOW_THROWING_POLICY);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "the policy '" + std::string(PMIXFLOW_THROWING_POLICY) + "' failed")) << r.output;
  EXPECT_TRUE(contains(r.output, "in scheduler: vector::_M_range_check")) << r.output;
  EXPECT_TRUE(contains(r.output, "its event log is cut")) << r.output;
  EXPECT_FALSE(contains(r.output, "Sanitizer")) << r.output;
  EXPECT_FALSE(contains(r.output, "internal error")) << r.output;
}

TEST(Plugin, ARunStoppedByAThrowingPolicyLeavesNoOutputThatLooksComplete) {
  const auto dir = scratch_dir("stopped");
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << kPluginTrace;
  const auto out = dir / "out";
  ASSERT_EQ(run_pmixflow({"sim", "--trace", trace.string(), "--out", out.string(), "--quiet"}).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(out / "summary.json"));
  const auto r = run_pmixflow(
      {"sim", "--trace", trace.string(), "--policy", PMIXFLOW_THROWING_POLICY, "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(out / "summary.json")) << "the earlier run's summary is still there";
  EXPECT_FALSE(std::filesystem::exists(out / "jobs.csv"));
  EXPECT_FALSE(contains(slurp(out / "events.jsonl"), "\"log.end\"")) << "the cut log has a closing line";
  std::filesystem::remove_all(dir);
}

// Nothing the shipped inputs can reach any more makes a simulation stop progressing with work
// outstanding; a policy that never returns does. The run must end, say what was outstanding,
// and exit 1 - not hang, and not exit 0 with a log that looks finished.
TEST(Plugin, ARunThatStopsProgressingEndsSayingWhatWasOutstanding) {
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizer build runs SimGrid on thread contexts, where SimGrid 3.32 never returns from
  // killing the actors of a deadlocked simulation: the run would hang. Only that build.
  GTEST_SKIP() << "SimGrid 3.32 hangs ending a deadlocked simulation on thread contexts (sanitizer build)";
#endif
  const auto dir = scratch_dir("stalled");
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << kPluginTrace;
  const auto out = dir / "out";
  const auto r = run_pmixflow(
      {"sim", "--trace", trace.string(), "--policy", PMIXFLOW_BLOCKING_POLICY, "--out", out.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string log = slurp(out / "events.jsonl");
  const auto end = log.find("\"ev\":\"log.end\"");
  ASSERT_NE(end, std::string::npos) << "the log has no closing line";
  EXPECT_TRUE(contains(log.substr(end), "\"end\":\"stalled: ")) << log.substr(end);
  EXPECT_TRUE(contains(log.substr(end), "scheduler")) << log.substr(end);
  EXPECT_TRUE(contains(r.err, "stopped progressing")) << r.err;
  EXPECT_TRUE(contains(r.err, "scheduler:")) << r.err;
  EXPECT_TRUE(contains(slurp(out / "summary.json"), "\"end\": \"stalled: "))
      << "the summary does not say the run stalled";
  std::filesystem::remove_all(dir);
}

TEST(Plugin, AMissingLibraryIsRefusedNamingThePath) {
  const std::string missing =
      (std::filesystem::temp_directory_path() / "pmixflow-no-such-policy/libnothing.so").string();
  const PluginRun r = replay_with(missing);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "pmixflow sim: --policy: " + missing + ": ")) << r.output;
  EXPECT_TRUE(contains(r.output, "not found")) << r.output;
}

TEST(Plugin, AFileThatIsNotALibraryIsRefusedNamingThePath) {
  const auto dir = scratch_dir("not-a-library");
  const std::string fake = (dir / "libfake.so").string();
  std::ofstream(fake) << "not an ELF file\n";
  const PluginRun r = replay_with(fake);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "pmixflow sim: --policy: " + fake + ": cannot load the policy library")) << r.output;
}

}  // namespace
}  // namespace pmixflow::test
