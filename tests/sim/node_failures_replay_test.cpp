// Random node failures during a trace replay (--node-mtbf, --node-mttr): nodes fail and come
// back, the jobs running there are killed, summary.json counts both and the work lost, exactly
// as the log says, the same seed gives the same run, and every call is still answered.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/results/invariants.hpp"
#include "pmixflow_run.hpp"
#include "trace_run.hpp"

namespace pmixflow::test {
namespace mtbf_replay {

namespace fs = std::filesystem;

// 40 jobs on 8 nodes of 4 slots, one a minute, of 1 to 8 slots and 10 to 25 minutes: the
// machine is busy throughout, so that a node failing has jobs to kill.
std::string busy_trace() {
  std::ostringstream t;
  t << "; Version: 2.2\n; MaxNodes: 8\n; MaxProcs: 32\n";
  for (int i = 1; i <= 40; ++i) {
    const int runtime = 600 + (i * 137) % 900, procs = 1 + (i * 5) % 8;
    t << i << " " << (i - 1) * 60 << " -1 " << runtime << " " << procs << " -1 -1 " << procs << " " << runtime + 300
      << " -1 1 " << i % 3 << " 1 -1 1 -1 -1 -1\n";
  }
  return t.str();
}

struct FailureRun : TraceRun {
  std::vector<json> events;
  std::map<std::string, CsvRow> jobs;  // jobs.csv, by job_id
  std::string report_summary;          // summary.json again, from `pmixflow report` on the log
};

FailureRun run_with_failures(const std::string& label, const std::vector<std::string>& extra) {
  FailureRun run;
  static_cast<TraceRun&>(run) = replay_trace(label, busy_trace(), extra, [&](const fs::path& out, TraceRun&) {
    run.events = read_events(out / "events.jsonl");
    const auto report = check_invariants((out / "events.jsonl").string());
    EXPECT_TRUE(report.ok()) << label << ": " << (report.ok() ? "" : report.breaches.front());
    EXPECT_TRUE(report.waiting_for_rm.empty()) << label;
    const auto again = out.parent_path() / "again";
    EXPECT_EQ(run_pmixflow({"report", out.string(), "--out", again.string()}).exit_code, 0);
    run.report_summary = slurp(again / "summary.json");
    EXPECT_EQ(slurp(again / "jobs.csv"), slurp(out / "jobs.csv")) << label;
  });
  for (const auto& row : run.rows) run.jobs[row.at("job_id")] = row;
  return run;
}

std::size_t count_events(const FailureRun& run, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& e : run.events) n += e.value("ev", "") == kind;
  return n;
}

// The work killed jobs lost, recomputed from the log and jobs.csv by another road than the
// report's: the session a job ran in names its request (alloc.grant), whose slots jobs.csv
// gives; the job ran from its job.start to its job.end.
struct Recount {
  std::size_t killed = 0;
  double lost_cpu_s = 0;
};

Recount recount(const FailureRun& run) {
  std::map<std::uint64_t, std::string> request_of;  // session -> SWF job number
  std::map<std::string, double> started;            // nspace -> job.start
  Recount out;
  for (const auto& e : run.events) {
    const std::string kind = e.value("ev", "");
    if (kind == "alloc.grant") request_of[e["session"].get<std::uint64_t>()] = e["corr"].get<std::string>().substr(3);
    if (kind == "job.start") started[e["nspace"].get<std::string>()] = e["t"].get<double>();
    if (kind != "job.end" || e.value("status", "") != "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT") continue;
    ++out.killed;
    const auto& row = run.jobs.at(request_of.at(e["session"].get<std::uint64_t>()));
    EXPECT_EQ(row.at("final_state"), "COMPLETED_KILLED");
    const auto start = started.find(e["nspace"].get<std::string>());
    if (start != started.end())
      out.lost_cpu_s += std::stod(row.at("requested_number_of_resources")) * (e["t"].get<double>() - start->second);
  }
  return out;
}

const std::vector<std::string> kFailing{"--node-mtbf", "4000", "--node-mttr", "600", "--seed", "1"};

TEST(RandomNodeFailures, NodesFailAndReturnAndTheSummaryCountsTheWorkTheirJobsLost) {
  const auto run = run_with_failures("failing", kFailing);
  ASSERT_EQ(run.exit_code, 0) << run.terminal;
  const json& f = run.summary["failures"];
  EXPECT_GT(f["node_failures"].get<std::size_t>(), 0u) << f;
  EXPECT_GT(f["node_repairs"].get<std::size_t>(), 0u) << f;
  EXPECT_GT(f["jobs_killed"].get<std::size_t>(), 0u) << f;
  EXPECT_EQ(f["node_failures"], count_events(run, "node.fail"));
  EXPECT_EQ(f["node_repairs"], count_events(run, "node.return"));
  // Every failed node is repaired (the span ends, the repairs do not), and only a failed one.
  EXPECT_EQ(f["node_repairs"], f["node_failures"]);
  EXPECT_EQ(f["node_mtbf_s"], 4000);
  EXPECT_EQ(f["node_mttr_s"], 600);
  const Recount again = recount(run);
  EXPECT_EQ(f["jobs_killed"].get<std::size_t>(), again.killed);
  EXPECT_NEAR(f["lost_work_cpu_s"].get<double>(), again.lost_cpu_s, 1e-6 * (1 + again.lost_cpu_s));
  EXPECT_GT(again.lost_cpu_s, 0);
  EXPECT_EQ(run.summary["final_states"].value("COMPLETED_KILLED", 0u), again.killed);
  // Every request was still answered: granted, or refused while the machine was too small.
  EXPECT_EQ(run.summary["expectations"]["failed"], 0);
  EXPECT_NE(run.terminal.find("node failures: " + std::to_string(f["node_failures"].get<std::size_t>()) + " ("),
            std::string::npos)
      << run.terminal;
  EXPECT_EQ(json::parse(run.report_summary), run.summary);  // the report rebuilds it from the log alone
}

TEST(RandomNodeFailures, TheSameSeedGivesTheSameRunAndAnotherSeedAnother) {
  const auto a = run_with_failures("a", kFailing);
  const auto b = run_with_failures("b", kFailing);
  auto other_seed = kFailing;
  other_seed.back() = "2";
  const auto c = run_with_failures("c", other_seed);
  ASSERT_EQ(a.exit_code, 0);
  ASSERT_EQ(b.exit_code, 0);
  ASSERT_EQ(c.exit_code, 0);
  EXPECT_EQ(a.jobs_csv, b.jobs_csv);
  EXPECT_EQ(a.summary["failures"], b.summary["failures"]);
  EXPECT_NE(a.summary["failures"], c.summary["failures"]);
  EXPECT_NE(a.jobs_csv, c.jobs_csv);
}

// Failures have a generator of their own: the seed's other draws (which jobs go through which
// daemon) are those of the same run without failures.
TEST(RandomNodeFailures, FailuresLeaveTheWorkloadsOtherDrawsAlone) {
  const auto plain = run_with_failures("plain", {"--seed", "1"});
  const auto failing = run_with_failures("failing", kFailing);
  ASSERT_EQ(plain.exit_code, 0);
  ASSERT_EQ(failing.exit_code, 0);
  auto entry_points = [](const FailureRun& run) {
    std::vector<std::string> out;
    for (const auto& e : run.events)
      if (e.value("ev", "") == "call") out.push_back(e.value("corr", "") + " " + e.value("via", ""));
    return out;
  };
  EXPECT_EQ(entry_points(plain), entry_points(failing));
  EXPECT_EQ(plain.summary["failures"]["node_failures"], 0);
  EXPECT_EQ(plain.summary["failures"]["jobs_killed"], 0);
  EXPECT_FALSE(plain.summary["failures"].contains("node_mtbf_s"));
  EXPECT_EQ(plain.terminal.find("node failures"), std::string::npos) << plain.terminal;
}

TEST(RandomNodeFailures, WithoutARepairTimeAFailedNodeStaysDown) {
  const auto run = run_with_failures("never", {"--node-mtbf", "3000", "--seed", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.terminal;
  const json& f = run.summary["failures"];
  EXPECT_GT(f["node_failures"].get<std::size_t>(), 0u);
  EXPECT_LE(f["node_failures"].get<std::size_t>(), 8u);  // each node once at most
  EXPECT_EQ(f["node_repairs"], 0);
  EXPECT_EQ(count_events(run, "node.return"), 0u);
  EXPECT_FALSE(f.contains("node_mttr_s"));
  EXPECT_EQ(f["jobs_killed"].get<std::size_t>(), recount(run).killed);
}

}  // namespace mtbf_replay
}  // namespace pmixflow::test
