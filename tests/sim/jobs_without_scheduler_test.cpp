// A job that ran has, in jobs.csv, when it started and how and when it ended, also when no
// scheduler was there to hear of its end: it had detached for good, it came back only later, or
// the controller died and took the DVM with it. The row comes from what the controller itself
// logged (docs/outputs.md, "When the scheduler does not hear the end"), never "RUNNING" for a
// job that is over, nor the instant a late scheduler heard of it.
#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

struct Row {
  std::string state;
  double start = -1, finish = -1;
};

// job_id -> its row; empty times read as -1. No field of these scenarios' rows is quoted.
std::map<std::string, Row> jobs_csv(const fs::path& file) {
  std::map<std::string, Row> rows;
  std::istringstream in(slurp(file));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string s; std::getline(fields, s, ',');) f.push_back(s);
    if (f.size() < 11) continue;
    rows[f[0]] = Row{f[7], f[8].empty() ? -1 : std::stod(f[8]), f[10].empty() ? -1 : std::stod(f[10])};
  }
  return rows;
}

// The instant of the first `ev` by `who` (for `corr`, unless empty) in the log; -1: none.
double when(const std::vector<json>& log, const std::string& ev, const std::string& who, const std::string& corr) {
  for (const auto& e : log)
    if (e.value("ev", "") == ev && e.value("who", "") == who && (corr.empty() || e.value("corr", "") == corr))
      return e.at("t").get<double>();
  return -1;
}

struct Expected {
  std::string job;
  std::string state;
  std::string end_ev;   // the event its finish_time is the instant of
  std::string end_who;  // logged by
};

struct Outcome {
  fs::path dir;
  std::map<std::string, Row> rows;
  std::vector<json> log;
};

Outcome run(const fs::path& scenario, const std::string& label) {
  Outcome o{scratch_dir(label), {}, {}};
  const auto r = run_pmixflow({"sim", "--scenario", scenario.string(), "--out", (o.dir / "out").string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << label << "\n" << r.out << r.err;
  o.rows = jobs_csv(o.dir / "out" / "jobs.csv");
  o.log = read_events(o.dir / "out" / "events.jsonl");
  return o;
}

void expect_rows(const std::string& scenario, const std::vector<Expected>& expected) {
  const Outcome o = run(source_path("tests/faults/" + scenario + ".jsonl"), scenario);
  for (const auto& x : expected) {
    SCOPED_TRACE(scenario + ": " + x.job);
    ASSERT_TRUE(o.rows.count(x.job));
    const Row& row = o.rows.at(x.job);
    const std::string corr = x.job;
    EXPECT_EQ(row.state, x.state);
    // It started when the scheduler granted it, as every row does.
    EXPECT_NEAR(row.start, when(o.log, "alloc.grant", "scheduler", corr), 1e-9);
    const double end = when(o.log, x.end_ev, x.end_who, x.end_ev == "party.down" ? "" : corr);
    ASSERT_GE(end, 0) << "no " << x.end_ev << " by " << x.end_who;
    EXPECT_NEAR(row.finish, end, 1e-9) << "finish_time is not the " << x.end_ev << " of " << x.end_who;
  }
  fs::remove_all(o.dir);
}

TEST(JobsWithoutScheduler, EachSessionEndsItsOwnWayAndSaysSoWhenTheSchedulerNeverComesBack) {
  expect_rows("scheduler-gone-sessions-end",
              {{"done#1", "COMPLETED_SUCCESSFULLY", "session.complete", "controller"},
               {"crash#1", "COMPLETED_KILLED", "session.complete", "controller"},
               {"stopped#1", "COMPLETED_KILLED", "session.complete", "controller"},
               {"failed#1", "COMPLETED_FAILED", "session.complete", "controller"},
               {"reserved#1", "COMPLETED_SUCCESSFULLY", "session.complete", "controller"}});
  // The summary counts them as jobs that ran, each in its state, none still running.
  const Outcome o = run(source_path("tests/faults/scheduler-gone-sessions-end.jsonl"), "gone-summary");
  const json summary = json::parse(slurp(o.dir / "out" / "summary.json"));
  EXPECT_EQ(summary.at("jobs"), 5);
  EXPECT_EQ(summary.at("final_states"),
            json({{"COMPLETED_FAILED", 1}, {"COMPLETED_KILLED", 2}, {"COMPLETED_SUCCESSFULLY", 2}}));
  fs::remove_all(o.dir);
}

TEST(JobsWithoutScheduler, AJobThatEndedWhileTheSchedulerWasAwayEndedThenNotWhenItCameBack) {
  expect_rows("scheduler-back-late", {{"early#1", "COMPLETED_SUCCESSFULLY", "session.complete", "controller"},
                                      {"late#1", "COMPLETED_SUCCESSFULLY", "session.completed", "scheduler"}});
  // What a user reads: early's 5-second job ran from about t=1 to about t=6, not until t=30.
  const Outcome o = run(source_path("tests/faults/scheduler-back-late.jsonl"), "back-late-times");
  EXPECT_LT(o.rows.at("early#1").finish - o.rows.at("early#1").start, 5.1);
  fs::remove_all(o.dir);
}

TEST(JobsWithoutScheduler, ASessionTerminatedBeforeItsJobStartedEndsWhenTheControllerEndedIt) {
  // The scheduler went between its grant and its answer; the controller handed the session back.
  expect_rows("scheduler-detach-granted", {{"r#1", "COMPLETED_FAILED", "session.complete", "controller"}});
}

TEST(JobsWithoutScheduler, SessionsStillHeldWhenTheControllerDiesAreKilledWithIt) {
  expect_rows("controller-dies-jobs-running", {{"short#1", "COMPLETED_SUCCESSFULLY", "session.completed", "scheduler"},
                                               {"long#1", "COMPLETED_KILLED", "party.down", "controller"}});
}

// The scheduler goes at every instant around the job's end (before the controller's COMPLETE,
// while it is on the wire, after the scheduler logged it) and comes back at t=20: the job ended
// when the controller said, whichever the scheduler heard and when.
TEST(JobsWithoutScheduler, TheEndIsTheJobsWhereverTheSchedulerDetachesAroundIt) {
  const std::string header =
      R"({"format":"pmixflow-scenario","version":1,"name":"sweep","controller":{"dvm":"all"}})"
      "\n"
      R"({"at":1,"op":"alloc","requestor":"a","via":"daemon:n01","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":8},"app":{"cmd":"sleep","argv":["5"],"np":8},"expect":{"status":"PMIX_SUCCESS"}})"
      "\n";
  for (int i = 0; i <= 12; ++i) {
    const double at = 6.0111 + 0.00001 * i;  // the job ends at about 6.01116, reported 26 us later
    std::ostringstream text;
    text.precision(9);
    text << header << R"({"at":)" << at << R"(,"op":"scheduler_detach"})"
         << "\n"
         << R"({"at":20,"op":"scheduler_attach"})"
         << "\n";
    const auto dir = scratch_dir("around-end-" + std::to_string(i));
    std::ofstream(dir / "scenario.jsonl") << text.str();
    const Outcome o = run(dir / "scenario.jsonl", "around-end-run-" + std::to_string(i));
    SCOPED_TRACE("detached at t=" + std::to_string(at));
    const Row& row = o.rows.at("a#1");
    EXPECT_EQ(row.state, "COMPLETED_SUCCESSFULLY");
    const double rm_end = when(o.log, "session.complete", "controller", "a#1");
    const double heard = when(o.log, "session.completed", "scheduler", "a#1");
    // Heard in time, it is the scheduler's word (a hop after the RM's); heard late, the RM's.
    EXPECT_NEAR(row.finish, heard >= 0 && heard < at ? heard : rm_end, 1e-9);
    EXPECT_LT(row.finish, 6.1);
    fs::remove_all(o.dir);
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace pmixflow::test
