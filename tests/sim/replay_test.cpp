// Replaying an SWF trace through the whole flow: every job a request, a session, a job and a
// COMPLETE; Batsim's jobs.csv and the metrics researchers compare; policies that differ.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "backfill_trace.hpp"
#include "pmixflow_run.hpp"
#include "trace_run.hpp"

namespace pmixflow::test {
namespace {

constexpr const char* kTrace = kBackfillTrace;

using Replay = TraceRun;

Replay replay(const std::string& policy, const std::string& trace_text = kTrace, std::vector<std::string> extra = {}) {
  std::vector<std::string> options{"--policy", policy};
  options.insert(options.end(), extra.begin(), extra.end());
  return replay_trace("replay-" + policy, trace_text, options);
}

double num(const std::map<std::string, std::string>& row, const std::string& col) { return std::stod(row.at(col)); }

const std::map<std::string, std::string>& job(const Replay& r, const std::string& id) {
  for (const auto& row : r.rows)
    if (row.at("job_id") == id) return row;
  static const std::map<std::string, std::string> none;
  ADD_FAILURE() << "no job " << id;
  return none;
}

TEST(Replay, JobsCsvHasBatsimsColumns) {
  const Replay r = replay("fcfs");
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_EQ(r.header,
            "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
            "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
            "allocated_resources,consumed_energy,metadata");
  ASSERT_EQ(r.rows.size(), 4u);  // job 5 asks for no processor: skipped and counted, not replayed
  for (const auto& row : r.rows) EXPECT_EQ(row.at("final_state"), "COMPLETED_SUCCESSFULLY") << row.at("job_id");
  EXPECT_EQ(r.summary["skipped"], 1);
  EXPECT_EQ(r.summary["skipped_by_reason"]["processors <= 0"], 1);
  EXPECT_EQ(r.summary["nodes"], 4);
  EXPECT_EQ(r.summary["slots_per_node"], 1);
  // Times are relative to the first submission; job 4's estimate is its runtime (field 9 is -1).
  EXPECT_NEAR(num(job(r, "1"), "submission_time"), 0, 1e-9);
  EXPECT_NEAR(num(job(r, "4"), "requested_time"), 200, 1e-9);
  EXPECT_NEAR(num(job(r, "1"), "execution_time"), 100, 0.02);  // ends on the trace's second
}

TEST(Replay, FcfsNeverOvertakesTheQueueHead) {
  const Replay r = replay("fcfs");
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_NEAR(num(job(r, "1"), "starting_time"), 0, 0.02);
  EXPECT_NEAR(num(job(r, "2"), "starting_time"), 100, 0.02);
  EXPECT_NEAR(num(job(r, "3"), "starting_time"), 200, 0.02);
  EXPECT_NEAR(num(job(r, "4"), "starting_time"), 200, 0.02);
  EXPECT_NEAR(r.summary["mean_wait_s"].get<double>(), (0 + 99 + 198 + 197) / 4.0, 0.05);
}

TEST(Replay, EasyBackfillsWhatEndsBeforeTheHeadsReservation) {
  const Replay r = replay("easy");
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_NEAR(num(job(r, "3"), "starting_time"), 2, 0.02);    // backfilled: ends at 52, before 100
  EXPECT_NEAR(num(job(r, "2"), "starting_time"), 100, 0.02);  // the head is not delayed
  EXPECT_NEAR(num(job(r, "4"), "starting_time"), 200, 0.02);  // would end after 100 with no extra slots
  EXPECT_NEAR(r.summary["mean_wait_s"].get<double>(), (0 + 99 + 0 + 197) / 4.0, 0.05);
  // Bounded slowdown, tau = 10 s: job 2 waited 99 s for a 100 s run.
  EXPECT_GT(r.summary["mean_bounded_slowdown"].get<double>(), 1.0);
  EXPECT_GT(r.summary["utilization"].get<double>(), 0.0);
  EXPECT_LE(r.summary["utilization"].get<double>(), 1.0);
}

// Queue 1 holds a four-slot job of 100 s; ten seconds later a two-slot job of 30 s arrives in
// queue 2. A queue named by a number has that number as its priority.
constexpr const char* kPreemptTrace =
    "; MaxNodes: 4\n"
    "; MaxProcs: 4\n"
    "1 1000 0 100 4 -1 -1 4 100 -1 1 7 1 -1 1 -1 -1 -1\n"
    "2 1010 0 30 2 -1 -1 2 30 -1 1 8 1 -1 2 -1 -1 -1\n";

TEST(Replay, PriorityPreemptTerminatesAPreemptibleJobAndRequeuesIt) {
  const Replay r = replay("priority-preempt", kPreemptTrace, {"--preemptible", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_NEAR(num(job(r, "2"), "starting_time"), 10, 0.03);  // at once: job 1's session is terminated (two passes)
  EXPECT_NEAR(num(job(r, "1"), "starting_time"), 40, 0.02);  // requeued, run again from the start
  EXPECT_NEAR(num(job(r, "1"), "execution_time"), 100, 0.02);
  EXPECT_EQ(job(r, "1").at("final_state"), "COMPLETED_SUCCESSFULLY");
  // Ten seconds on four slots were lost, and say so in jobs.csv and the summary.
  EXPECT_EQ(job(r, "1").at("metadata").rfind("preemptions=1;lost_cpu_s=40.", 0), 0u) << job(r, "1").at("metadata");
  EXPECT_EQ(job(r, "2").at("metadata"), "");
  EXPECT_EQ(r.summary["preemptions"], 1);
  EXPECT_NEAR(r.summary["lost_work_cpu_s"].get<double>(), 40, 0.05);
}

TEST(Replay, PriorityPreemptWaitsForWhatWasNotGrantedPreemptible) {
  const Replay r = replay("priority-preempt", kPreemptTrace);
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_NEAR(num(job(r, "1"), "starting_time"), 0, 0.02);
  EXPECT_NEAR(num(job(r, "2"), "starting_time"), 100, 0.02);
  EXPECT_EQ(r.summary["preemptions"], 0);
}

TEST(Replay, QueuePrioritiesCanBeRearranged) {
  // Queue 1 now outranks queue 2: nothing of higher priority waits, nothing is preempted.
  const Replay r = replay("priority-preempt", kPreemptTrace, {"--preemptible", "1", "--queue-priority", "1=10"});
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_NEAR(num(job(r, "2"), "starting_time"), 100, 0.02);
  EXPECT_EQ(r.summary["preemptions"], 0);
}

TEST(Replay, PriorityPreemptWithoutQueuesDecidesAsEasy) {
  const Replay easy = replay("easy"), prio = replay("priority-preempt", kTrace, {"--preemptible", "all"});
  ASSERT_EQ(prio.exit_code, 0) << prio.terminal;
  ASSERT_EQ(easy.rows.size(), prio.rows.size());
  for (const auto& row : easy.rows)
    EXPECT_NEAR(num(row, "starting_time"), num(job(prio, row.at("job_id")), "starting_time"), 1e-6) << row.at("job_id");
  EXPECT_EQ(prio.summary["preemptions"], 0);
}

TEST(Replay, BadQueueOptionsAreRefused) {
  const Replay prio = replay("priority-preempt", kPreemptTrace, {"--queue-priority", "1=high"});
  EXPECT_EQ(prio.exit_code, 2);
  EXPECT_NE(prio.terminal.find("--queue-priority"), std::string::npos) << prio.terminal;
  const Replay pre = replay("priority-preempt", kPreemptTrace, {"--preemptible", "1,x"});
  EXPECT_EQ(pre.exit_code, 2);
  EXPECT_NE(pre.terminal.find("--preemptible"), std::string::npos) << pre.terminal;
}

TEST(Replay, ExclusiveNodesGivesEachJobWholeNodes) {
  // Two nodes of four slots; three two-slot jobs of 100 s. Shared, all three start at once;
  // with whole nodes the third waits for a node to come free.
  const std::string trace =
      "; MaxNodes: 2\n; MaxProcs: 8\n"
      "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n"
      "2 1 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n"
      "3 2 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n";
  const Replay shared = replay("fcfs", trace);
  ASSERT_EQ(shared.exit_code, 0) << shared.terminal;
  EXPECT_NEAR(num(job(shared, "3"), "starting_time"), 2, 0.02);
  const Replay whole = replay("fcfs", trace, {"--exclusive-nodes"});
  ASSERT_EQ(whole.exit_code, 0) << whole.terminal;
  EXPECT_NEAR(num(job(whole, "3"), "starting_time"), 100, 0.02);
  EXPECT_NE(job(whole, "1").at("allocated_resources"), job(whole, "2").at("allocated_resources"));
}

TEST(Replay, EveryJobTravelsTheWholeFlow) {
  const Replay r = replay("easy", kTrace, {"--via-daemon", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  // Four jobs through a daemon: request, relay, forward, INSTANTIATE, launch, start report,
  // answer back three hops, end report, COMPLETE and its answer: at least 12 messages each.
  EXPECT_GE(r.summary["messages"].get<int>(), 4 * 12);
  EXPECT_EQ(r.rows.size(), 4u);
}

TEST(Replay, AMalformedLineIsNamedOrSkippedWhenLenient) {
  const std::string bad = std::string(kTrace) + "6 1005 0 ten 1 -1 -1 1 10 -1 1 8 1 -1 1 -1 -1 -1\n";
  const Replay strict = replay("fcfs", bad);
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.terminal.find("t.swf:9: field 'run (field 4)'"), std::string::npos) << strict.terminal;
  const Replay lenient = replay("fcfs", bad, {"--lenient"});
  ASSERT_EQ(lenient.exit_code, 0) << lenient.terminal;
  EXPECT_EQ(lenient.summary["skipped_by_reason"]["malformed line"], 1);
  EXPECT_EQ(lenient.rows.size(), 4u);
}

TEST(Replay, LinesOutOfOrderOrRenumberedAreNamedOrRepairedWhenLenient) {
  // Job 6 is listed after job 4 but submitted before job 1; a second job 3 follows.
  const std::string bad = std::string(kTrace) + "6 900 0 10 1 -1 -1 1 10 -1 1 8 1 -1 1 -1 -1 -1\n" +
                          "3 1010 0 10 1 -1 -1 1 10 -1 1 8 1 -1 1 -1 -1 -1\n";
  const Replay strict = replay("fcfs", bad);
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.terminal.find("t.swf:10: field 'job (field 1)': job 3 is already on line 6"), std::string::npos)
      << strict.terminal;
  const Replay lenient = replay("fcfs", bad, {"--lenient"});
  ASSERT_EQ(lenient.exit_code, 0) << lenient.terminal;
  EXPECT_EQ(lenient.summary["repaired_by_reason"]["out of submit order, sorted"], 1);
  EXPECT_EQ(lenient.summary["repaired_by_reason"]["duplicate job number, renumbered"], 1);
  EXPECT_NE(
      lenient.terminal.find("trace lines repaired (--lenient): 1 duplicate job number, renumbered, 1 out of submit "
                            "order, sorted"),
      std::string::npos)
      << lenient.terminal;
  ASSERT_EQ(lenient.rows.size(), 6u);  // no two jobs merged into one row
  for (const auto& row : lenient.rows) EXPECT_GE(std::stod(row.at("submission_time")), 0) << row.at("job_id");
}

TEST(Replay, AgainstTheRecordingWaitsAreComparedJobByJob) {
  const auto dir = scratch_dir("recorded");
  const auto trace = dir / "t.swf";
  // Field 3 is what the machine really did: job 2 waited 99 s there too, job 3 waited 0.
  std::ofstream(trace) << "; MaxNodes: 4\n; MaxProcs: 4\n"
                          "1 1000 0 100 2 -1 -1 2 100 -1 1 7 1 -1 1 -1 -1 -1\n"
                          "2 1001 99 100 4 -1 -1 4 100 -1 1 7 1 -1 1 -1 -1 -1\n"
                          "3 1002 700 50 2 -1 -1 2 50 -1 1 8 1 -1 1 -1 -1 -1\n";
  const auto r = run_pmixflow(
      {"sim", "--trace", trace.string(), "--policy", "easy", "--compare-recorded", "--out", (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "nothing on stderr when it is not a terminal: " << r.err;
  const auto recorded = slurp(dir / "out" / "recorded.csv");
  EXPECT_EQ(recorded.substr(0, recorded.find('\n')), "job_id,simulated_wait,recorded_wait");
  EXPECT_NE(recorded.find("\n3,"), std::string::npos);
  const auto summary = json::parse(slurp(dir / "out" / "summary.json"));
  const auto& rec = summary.at("recorded");
  EXPECT_EQ(rec["jobs_compared"], 3);
  EXPECT_NEAR(rec["mean_recorded_wait_s"].get<double>(), (0 + 99 + 700) / 3.0, 1e-9);
  // Simulated waits are 0, 99 and 0 (EASY backfills job 3): job 3 is 700 s off.
  EXPECT_NEAR(rec["mean_abs_deviation_s"].get<double>(), 700 / 3.0, 0.05);
  EXPECT_NEAR(rec["share_within_10_min"].get<double>(), 2 / 3.0, 1e-9);
  std::filesystem::remove_all(dir);
}

TEST(Replay, ATraceAndAScenarioExcludeEachOther) {
  const auto r = run_pmixflow({"sim", "--trace", "x.swf", "--scenario", "y.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace pmixflow::test
