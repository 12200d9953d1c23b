// Comparing two runs without the command line: run directories written by hand in a temporary
// directory, each difference found where it is and named.
#include "pmixflow/results/diff.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/human_text.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using test::Contains;
using test::expect_input_error;

class RunsDir : public test::TempDir {
 public:
  RunsDir() : test::TempDir("pmixflow_diff") {}
};

const std::string kHeader =
    R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{"nodes":4,"policy":"fcfs","scenario":"s.jsonl"}})";

const std::vector<std::string> kEvents = {
    R"({"t":0,"ev":"party.up","who":"controller"})",
    R"({"t":0,"ev":"scheduler.up","who":"scheduler","policy":"fcfs"})",
    R"({"t":1,"ev":"send","who":"requestor:a","to":"scheduler","msg":"alloc_request","id":1,"bytes":100})",
    R"({"t":1.5,"ev":"recv","who":"scheduler","from":"requestor:a","msg":"alloc_request","id":1,"bytes":100})",
    R"({"t":2,"ev":"send","who":"scheduler","to":"requestor:a","msg":"alloc_response","id":1,"bytes":80})",
};

const std::string kCsvHeader =
    "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
    "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
    "allocated_resources,consumed_energy,metadata\n";

struct RowJob {
  std::string id;
  double submit = 0;
  double start = 0;  // < 0: never started
  double run = 10;
  std::string state = "COMPLETED_SUCCESSFULLY";
};

std::string csv(const std::vector<RowJob>& jobs) {
  std::string out = kCsvHeader;
  for (const auto& j : jobs) {
    out += j.id + ",w,sleep," + std::to_string(j.submit) + ",1,0," + (j.state == "COMPLETED_SUCCESSFULLY" ? "1" : "0") +
           "," + j.state + ",";
    if (j.start >= 0)
      out += std::to_string(j.start) + "," + std::to_string(j.run) + "," + std::to_string(j.start + j.run) + "," +
             std::to_string(j.start - j.submit) + "," + std::to_string(j.start + j.run - j.submit) + ",1,0,-1,\n";
    else
      out += "-1,-1,-1,-1,-1,-1,,-1,\n";
  }
  return out;
}

const std::vector<RowJob> kJobs = {{"1", 0, 0}, {"2", 0, 10}, {"3", 1, 20}};

json summary() {
  return json{{"format", "pmixflow-summary"},
              {"version", 1},
              {"env", "sim"},
              {"sim_time_s", 31.0},
              {"wall_s", 0.0123},
              {"messages", 42},
              {"jobs", 3},
              {"rejected", 0},
              {"mean_wait_s", 10.0},
              {"p50_wait_s", 10.0},
              {"p90_wait_s", 19.0},
              {"p99_wait_s", 19.0},
              {"max_wait_s", 19.0},
              {"mean_bounded_slowdown", 1.5},
              {"p50_bounded_slowdown", 1.0},
              {"p90_bounded_slowdown", 2.0},
              {"p99_bounded_slowdown", 2.0},
              {"utilization", 0.25},
              {"makespan_s", 30.0},
              {"preemptions", 0},
              {"lost_work_cpu_s", 0.0}};
}

// The closing line of a whole log of `events` events, with a wall-clock time of its own.
std::string closing(std::size_t events, double wall = 0.01) {
  return R"({"t":2,"ev":"log.end","who":"run","end":"quiescent","events":)" + std::to_string(events) +
         R"(,"stats":{"messages":2,"wall_s":)" + std::to_string(wall) + "}}";
}

struct RunSpec {
  std::string header = kHeader;
  std::vector<std::string> events = kEvents;
  bool whole = true;  // the log has its closing line
  std::vector<RowJob> jobs = kJobs;
  json summary = pmixflow::summary();
};

std::string write_run(const fs::path& dir, const RunSpec& run) {
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "events.jsonl", std::ios::binary);
    out << run.header << "\n";
    for (const auto& e : run.events) out << e << "\n";
    if (run.whole) out << closing(run.events.size()) << "\n";
  }
  std::ofstream(dir / "jobs.csv", std::ios::binary) << csv(run.jobs);
  std::ofstream(dir / "summary.json", std::ios::binary) << run.summary.dump(2) << "\n";
  return dir.string();
}

const MetricDelta* find_metric(const DiffReport& r, const std::string& name) {
  for (const auto& m : r.summary.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

const JobDelta* find_job(const DiffReport& r, const std::string& id) {
  for (const auto& j : r.jobs.changed)
    if (j.job_id == id) return &j;
  return nullptr;
}

TEST(Diff, IdenticalRunsAreEqual) {
  RunsDir tmp;
  const auto a = write_run(tmp.path() / "a", RunSpec{});
  const auto b = write_run(tmp.path() / "b", RunSpec{});
  const DiffReport r = diff_runs(a, b);
  EXPECT_TRUE(r.equal());
  EXPECT_TRUE(r.events.compared);
  EXPECT_TRUE(r.events.identical);
  EXPECT_FALSE(r.events.first.has_value());
  EXPECT_EQ(r.events.lines_a, kEvents.size() + 2);  // the header and the closing line
  EXPECT_TRUE(r.jobs.compared);
  EXPECT_TRUE(r.jobs.changed.empty());
  EXPECT_EQ(r.jobs.jobs_a, 3u);
  EXPECT_EQ(r.jobs.started_in_both, 3u);
  EXPECT_EQ(r.jobs.max_abs_start_delta, 0);
  EXPECT_TRUE(r.summary.compared);
  EXPECT_EQ(r.summary.metrics.size(), std::size(kDiffMetrics));
  EXPECT_TRUE(r.notes.empty());
  const std::string text = render_diff_text(r);
  EXPECT_TRUE(Contains(text, ": equal\n"));
  EXPECT_TRUE(Contains(text, "events: identical (7 lines)"));
  EXPECT_EQ(json::parse(render_diff_json(r))["equal"], true);
}

TEST(Diff, TheFirstDivergingEventIsNamedByLineAndField) {
  RunsDir tmp;
  RunSpec changed;
  changed.events[2] =
      R"({"t":1,"ev":"send","who":"requestor:a","to":"controller","msg":"alloc_request","id":1,"bytes":100})";  // line
                                                                                                                // 4
  changed.events[4] =
      R"({"t":3,"ev":"send","who":"scheduler","to":"requestor:a","msg":"alloc_response","id":1,"bytes":80})";  // later
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", changed));
  EXPECT_FALSE(r.equal());
  EXPECT_FALSE(r.events.identical);
  EXPECT_TRUE(r.events.inputs.empty());
  EXPECT_TRUE(r.events.header.empty());
  ASSERT_TRUE(r.events.first.has_value());
  const EventDivergence& d = *r.events.first;
  EXPECT_EQ(d.line, 4u);
  EXPECT_EQ(d.a, kEvents[2]);
  EXPECT_EQ(d.b, changed.events[2]);
  EXPECT_EQ(d.field, "to");
  EXPECT_EQ(d.field_a, "\"scheduler\"");
  EXPECT_EQ(d.field_b, "\"controller\"");
  // Nothing but the event log differs.
  EXPECT_TRUE(r.jobs.changed.empty());
  const std::string text = render_diff_text(r);
  EXPECT_TRUE(Contains(text, "DIFFERENT"));
  EXPECT_TRUE(Contains(text, "first diverging event: line 4, field \"to\""));
  EXPECT_TRUE(Contains(text, "A: " + kEvents[2]));
  const json j = json::parse(render_diff_json(r));
  EXPECT_EQ(j["events"]["first_divergence"]["line"], 4);
  EXPECT_EQ(j["events"]["first_divergence"]["field"], "to");
  EXPECT_EQ(j["events"]["first_divergence"]["field_a"], "scheduler");
}

TEST(Diff, FieldsAreComparedInTheOrderTheyWereWritten) {
  RunsDir tmp;
  RunSpec changed;
  // Both "t" (first) and "id" (last) differ: "t" is named. A field only in B is named too.
  changed.events[0] = R"({"t":0.5,"ev":"party.up","who":"controller"})";
  changed.events[1] = R"({"t":0,"ev":"scheduler.up","who":"scheduler","policy":"fcfs","extra":1})";
  const auto a = write_run(tmp.path() / "a", RunSpec{});
  const DiffReport first = diff_runs(a, write_run(tmp.path() / "b", changed));
  ASSERT_TRUE(first.events.first.has_value());
  EXPECT_EQ(first.events.first->line, 2u);
  EXPECT_EQ(first.events.first->field, "t");
  EXPECT_EQ(first.events.first->field_a, "0");
  EXPECT_EQ(first.events.first->field_b, "0.5");
}

TEST(Diff, AnEventThatBreaksTheCatalogueIsBadInputNamedByLineAndField) {
  RunsDir tmp;
  RunSpec missing_field;
  missing_field.events[0] = R"({"t":0,"ev":"party.up"})";
  RunSpec wrong_type;
  wrong_type.events[2] =
      R"({"t":1,"ev":"send","who":"requestor:a","to":"scheduler","msg":"alloc_request","bytes":"many"})";
  const auto a = write_run(tmp.path() / "a", RunSpec{});
  const auto gone = write_run(tmp.path() / "b", missing_field);
  const InputError e = expect_input_error([&] { diff_runs(a, gone); });
  EXPECT_EQ(e.file(), gone + "/events.jsonl");
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.field(), "who");
  const InputError t = expect_input_error([&] { diff_runs(a, write_run(tmp.path() / "c", wrong_type)); });
  EXPECT_EQ(t.line(), 4u);
  EXPECT_EQ(t.field(), "bytes");
  EXPECT_TRUE(Contains(t.what(), "expects a whole number"));
}

TEST(Diff, OnlyTheClosingLinesWallClockMayDiffer) {
  RunsDir tmp;
  const auto a = write_run(tmp.path() / "a", RunSpec{});
  const auto b = write_run(tmp.path() / "b", RunSpec{});
  {
    std::ofstream out(fs::path(b) / "events.jsonl", std::ios::binary);
    out << kHeader << "\n";
    for (const auto& e : kEvents) out << e << "\n";
    out << closing(kEvents.size(), 99.5) << "\n";
  }
  EXPECT_TRUE(diff_runs(a, b).events.identical);
}

TEST(Diff, ACutLogIsRefusedNamingTheLastGoodLineUnlessPartial) {
  RunsDir tmp;
  RunSpec cut;
  cut.whole = false;
  const auto a = write_run(tmp.path() / "a", RunSpec{});
  const auto b = write_run(tmp.path() / "b", cut);
  const InputError e = expect_input_error([&] { diff_runs(a, b); });
  EXPECT_EQ(e.file(), b + "/events.jsonl");
  EXPECT_TRUE(Contains(e.what(), "no closing line"));
  EXPECT_TRUE(Contains(e.what(), "last good line 6"));
  EXPECT_TRUE(Contains(e.what(), "--partial"));
  const DiffReport r = diff_runs(a, b, DiffOptions{true});
  ASSERT_TRUE(r.events.first.has_value());
  EXPECT_EQ(r.events.first->line, kEvents.size() + 2);  // where A's closing line is and B has none
  EXPECT_FALSE(r.events.first->b.has_value());
  EXPECT_TRUE(Contains(render_diff_text(r), "is not whole"));
  // A line cut in the middle (the run was stopped while writing it) is refused the same way.
  std::ofstream(fs::path(b) / "events.jsonl", std::ios::app) << R"({"t":3,"ev":"send","who":"sch)";
  const InputError half = expect_input_error([&] { diff_runs(a, b); });
  EXPECT_EQ(half.line(), 7u);
  EXPECT_TRUE(Contains(half.what(), "cut short"));
  EXPECT_TRUE(Contains(half.what(), "last good line 6"));
}

TEST(Diff, ALogThatEndsEarlyDivergesWhereItEnds) {
  RunsDir tmp;
  RunSpec shorter;
  shorter.events.pop_back();
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", shorter));
  ASSERT_TRUE(r.events.first.has_value());
  EXPECT_EQ(r.events.first->line, kEvents.size() + 1);
  EXPECT_EQ(r.events.first->a, kEvents.back());
  EXPECT_EQ(r.events.first->b, closing(kEvents.size() - 1));
  EXPECT_EQ(r.events.lines_a, kEvents.size() + 2);
  EXPECT_EQ(r.events.lines_b, kEvents.size() + 1);
}

TEST(Diff, HeaderInputsAreComparedSeparately) {
  RunsDir tmp;
  RunSpec other;
  other.header =
      R"({"format":"pmixflow-events","version":2,"env":"sim","seed":7,"inputs":{"nodes":4,"policy":"easy","scenario":"s.jsonl"}})";
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", other));
  EXPECT_TRUE(r.equal()) << "what happened is the same: the inputs are named, not counted";
  EXPECT_FALSE(r.events.identical);
  EXPECT_FALSE(r.events.first.has_value());  // every event after the header is the same
  ASSERT_EQ(r.events.inputs.size(), 1u);
  EXPECT_EQ(r.events.inputs[0].name, "policy");
  EXPECT_EQ(r.events.inputs[0].a, "\"fcfs\"");
  EXPECT_EQ(r.events.inputs[0].b, "\"easy\"");
  ASSERT_EQ(r.events.header.size(), 1u);
  EXPECT_EQ(r.events.header[0].name, "seed");
  const std::string text = render_diff_text(r);
  EXPECT_TRUE(Contains(text, "inputs: seed 0 -> 7; policy fcfs -> easy (same workload s.jsonl)\n")) << text;
  EXPECT_TRUE(Contains(text, "header inputs that differ: seed policy")) << text;
}

TEST(DiffTolerance, DurationsReadWithTheirUnits) {
  EXPECT_EQ(parse_duration("1ms"), 1e-3);
  EXPECT_EQ(parse_duration("500us"), 500e-6);
  EXPECT_EQ(parse_duration("2s"), 2.0);
  EXPECT_EQ(parse_duration("1.5min"), 90.0);
  EXPECT_EQ(parse_duration("0"), 0.0);
  EXPECT_EQ(parse_duration("3"), 3.0) << "a bare number is seconds, as every other time option";
  for (const char* bad : {"", "ms", "1 ms", "-1ms", "1parsec", "nan", "infs", "1e999s"})
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  // The tolerance is said as every other duration is (vocab's human_duration).
  EXPECT_EQ(human_duration(1e-3), "1 ms");
  EXPECT_EQ(human_duration(5e-4), "500 µs");
}

TEST(Diff, StartsWithinTheToleranceCountAsEqualAndTheReportSaysSo) {
  RunsDir tmp;
  RunSpec nudged;
  nudged.jobs = {{"1", 0, 0.0004}, {"2", 0, 10}, {"3", 1, 20}};
  const std::string a = write_run(tmp.path() / "a", RunSpec{}), b = write_run(tmp.path() / "b", nudged);
  const DiffReport exact = diff_runs(a, b, DiffOptions{false, 0});
  EXPECT_FALSE(exact.equal());
  EXPECT_EQ(exact.jobs.start_differs, 1u);
  EXPECT_TRUE(Contains(render_diff_text(exact), "times compared exactly (--tolerance 0)"));

  const DiffReport loose = diff_runs(a, b);  // the default: 1 ms
  EXPECT_TRUE(loose.equal()) << render_diff_text(loose);
  EXPECT_EQ(loose.jobs.start_differs, 0u);
  EXPECT_EQ(loose.jobs.start_within_tolerance, 1u);
  const std::string text = render_diff_text(loose);
  EXPECT_TRUE(Contains(text, "times within 1 ms count as equal (--tolerance 0: exact)")) << text;
  EXPECT_TRUE(
      Contains(text, "jobs: the same within the tolerance (3 jobs; 1 differs only in times within the tolerance)"))
      << text;
  EXPECT_EQ(json::parse(render_diff_json(loose))["tolerance_s"], 0.001);
}

TEST(Diff, EventsOfOneInstantInAnotherOrderAreTheSameWithinTheTolerance) {
  RunsDir tmp;
  RunSpec swapped;  // the two parties come up 0.2 ms apart, in the other order
  swapped.events = kEvents;
  swapped.events[0] = R"({"t":0.0002,"ev":"scheduler.up","who":"scheduler","policy":"fcfs"})";
  swapped.events[1] = R"({"t":0,"ev":"party.up","who":"controller"})";
  swapped.events[4] =
      R"({"t":2.0004,"ev":"send","who":"scheduler","to":"requestor:a","msg":"alloc_response","id":1,"bytes":80})";
  const std::string a = write_run(tmp.path() / "a", RunSpec{}), b = write_run(tmp.path() / "b", swapped);
  const DiffReport loose = diff_runs(a, b);
  EXPECT_TRUE(loose.equal()) << render_diff_text(loose);
  EXPECT_FALSE(loose.events.first.has_value());
  EXPECT_EQ(loose.events.within_tolerance, 3u);  // the two swapped, and the later send
  EXPECT_TRUE(Contains(render_diff_text(loose), "3 event lines differ only in their time, within the tolerance"));

  const DiffReport exact = diff_runs(a, b, DiffOptions{false, 0});
  EXPECT_FALSE(exact.equal());
  ASSERT_TRUE(exact.events.first.has_value());
  EXPECT_EQ(exact.events.first->line, 2u);

  const DiffReport tight = diff_runs(a, b, DiffOptions{false, 1e-4});  // 0.1 ms: the swap is 0.2 ms
  EXPECT_FALSE(tight.equal());
  ASSERT_TRUE(tight.events.first.has_value());
  EXPECT_EQ(tight.events.first->line, 2u);
}

TEST(Diff, ManyMovedJobsAreListedLargestFirstAndTheRestCounted) {
  RunsDir tmp;
  RunSpec base, moved;
  base.jobs.clear();
  moved.jobs.clear();
  for (int i = 1; i <= 30; ++i) {
    base.jobs.push_back({std::to_string(i), 0, 100.0 * i});
    moved.jobs.push_back({std::to_string(i), 0, 100.0 * i + i});  // job i starts i s later
  }
  const DiffReport r =
      diff_runs(write_run(tmp.path() / "a", base), write_run(tmp.path() / "b", moved), DiffOptions{false, 0});
  const std::string text = render_diff_text(r, 3);
  EXPECT_TRUE(Contains(text, "the 3 that moved most:\n    job 30: start 3000 -> 3030")) << text;
  EXPECT_TRUE(Contains(text, "... and 27 more jobs (--json lists every one)")) << text;
  EXPECT_EQ(json::parse(render_diff_json(r))["jobs"]["changed"].size(), 30u);
}

TEST(Diff, AnInputOnlyTheHeaderRecordsIsNamed) {
  RunsDir tmp;
  RunSpec other;
  other.header =
      R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{"nodes":4,"policy":"fcfs","scenario":"s.jsonl","node_mtbf":3600}})";
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", other));
  ASSERT_EQ(r.inputs.size(), 1u) << render_diff_text(r);
  EXPECT_EQ(r.inputs[0].name, "node_mtbf");
  EXPECT_TRUE(Contains(render_diff_text(r), "inputs: node_mtbf (not recorded) -> 3600 (same workload s.jsonl)\n"))
      << render_diff_text(r);
}

TEST(Diff, JobStartDeltasAreBMinusA) {
  RunsDir tmp;
  RunSpec later;
  later.jobs = {{"1", 0, 0}, {"2", 0, 14}, {"3", 1, 12}};
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", later));
  EXPECT_FALSE(r.equal());
  EXPECT_EQ(r.jobs.start_differs, 2u);
  EXPECT_EQ(r.jobs.started_in_both, 3u);
  EXPECT_DOUBLE_EQ(r.jobs.max_abs_start_delta, 8);
  EXPECT_DOUBLE_EQ(r.jobs.mean_abs_start_delta, (0 + 4 + 8) / 3.0);
  EXPECT_EQ(r.jobs.only_in_a + r.jobs.only_in_b + r.jobs.state_changes, 0u);
  ASSERT_EQ(r.jobs.changed.size(), 2u);
  EXPECT_EQ(find_job(r, "1"), nullptr);
  const JobDelta* j2 = find_job(r, "2");
  ASSERT_NE(j2, nullptr);
  EXPECT_DOUBLE_EQ(*j2->start_delta(), 4);
  const JobDelta* j3 = find_job(r, "3");
  ASSERT_NE(j3, nullptr);
  EXPECT_DOUBLE_EQ(*j3->start_delta(), -8);
  EXPECT_TRUE(j3->start_differs());
  EXPECT_FALSE(j3->state_differs());
  const std::string text = render_diff_text(r);
  EXPECT_TRUE(Contains(text, "2 start differently"));
  EXPECT_TRUE(Contains(text, "job 2: start 10 -> 14 (delta +4 s)"));
  EXPECT_TRUE(Contains(text, "job 3: start 20 -> 12 (delta -8 s)"));
  EXPECT_TRUE(Contains(text, "max |delta| 8 s"));
  const json j = json::parse(render_diff_json(r));
  EXPECT_EQ(j["jobs"]["changed"][1]["job_id"], "3");
  EXPECT_DOUBLE_EQ(j["jobs"]["changed"][1]["start_delta"].get<double>(), -8);
}

TEST(Diff, AJobInOneRunOnlyOrWithAnotherFateIsReported) {
  RunsDir tmp;
  RunSpec other;
  other.jobs = {{"1", 0, 0}, {"2", 0, -1, 10, "REJECTED"}, {"4", 2, 30}};
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", other));
  EXPECT_FALSE(r.equal());
  EXPECT_EQ(r.jobs.only_in_a, 1u);
  EXPECT_EQ(r.jobs.only_in_b, 1u);
  EXPECT_EQ(r.jobs.state_changes, 1u);
  EXPECT_EQ(r.jobs.start_differs, 1u);    // job 2 started in A only
  EXPECT_EQ(r.jobs.started_in_both, 1u);  // job 1
  const JobDelta* j2 = find_job(r, "2");
  ASSERT_NE(j2, nullptr);
  EXPECT_FALSE(j2->start_delta().has_value());
  EXPECT_FALSE(j2->start_b.has_value());
  EXPECT_EQ(j2->state_b, "REJECTED");
  const JobDelta* j3 = find_job(r, "3");
  ASSERT_NE(j3, nullptr);
  EXPECT_TRUE(j3->in_a);
  EXPECT_FALSE(j3->in_b);
  const JobDelta* j4 = find_job(r, "4");
  ASSERT_NE(j4, nullptr);
  EXPECT_FALSE(j4->in_a);
  EXPECT_TRUE(j4->in_b);
  const std::string text = render_diff_text(r);
  EXPECT_TRUE(Contains(text, "job 2: start 10 -> never; final state COMPLETED_SUCCESSFULLY -> REJECTED"));
  EXPECT_TRUE(Contains(text, "job 3: only in A (start 20, COMPLETED_SUCCESSFULLY)"));
  EXPECT_TRUE(Contains(text, "job 4: only in B (start 30, COMPLETED_SUCCESSFULLY)"));
}

TEST(Diff, AJobWithTheSameStartButAnotherRunTimeIsADifference) {
  RunsDir tmp;
  RunSpec other;
  other.jobs = kJobs;
  other.jobs[1].run = 11;
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", other));
  EXPECT_FALSE(r.equal());
  EXPECT_EQ(r.jobs.start_differs, 0u);
  const JobDelta* j2 = find_job(r, "2");
  ASSERT_NE(j2, nullptr);
  EXPECT_EQ(j2->other_columns, (std::vector<std::string>{"execution_time", "finish_time", "turnaround_time"}));
  EXPECT_TRUE(Contains(render_diff_text(r), "job 2: differs in execution_time, finish_time, turnaround_time"));
}

TEST(Diff, MetricDeltasAreAbsoluteAndRelative) {
  RunsDir tmp;
  RunSpec other;
  other.summary["mean_wait_s"] = 15.0;
  other.summary["rejected"] = 2;
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", other));
  EXPECT_FALSE(r.equal());
  const MetricDelta* wait = find_metric(r, "mean_wait_s");
  ASSERT_NE(wait, nullptr);
  EXPECT_TRUE(wait->differs());
  EXPECT_DOUBLE_EQ(*wait->a, 10);
  EXPECT_DOUBLE_EQ(*wait->b, 15);
  EXPECT_DOUBLE_EQ(*wait->delta(), 5);
  EXPECT_DOUBLE_EQ(*wait->relative(), 0.5);
  const MetricDelta* rejected = find_metric(r, "rejected");
  ASSERT_NE(rejected, nullptr);
  EXPECT_DOUBLE_EQ(*rejected->delta(), 2);
  EXPECT_FALSE(rejected->relative().has_value());  // from 0: no relative change
  EXPECT_FALSE(find_metric(r, "utilization")->differs());
  const std::string text = render_diff_text(r);
  EXPECT_TRUE(Contains(text, "2 of 17 metrics differ"));
  EXPECT_TRUE(Contains(text, "mean_wait_s"));
  EXPECT_TRUE(Contains(text, "+50%"));
  EXPECT_FALSE(Contains(text, "utilization"));
  const json j = json::parse(render_diff_json(r));
  for (const auto& m : j["summary"]["metrics"])
    if (m["name"] == "rejected") {
      EXPECT_TRUE(m["relative"].is_null());
    }
}

TEST(Diff, WallClockTimesAreIgnored) {
  RunsDir tmp;
  RunSpec slower;
  slower.summary["wall_s"] = 12.5;
  slower.summary["wall_start"] = "2024-01-01T00:00:00";
  const DiffReport r = diff_runs(write_run(tmp.path() / "a", RunSpec{}), write_run(tmp.path() / "b", slower));
  EXPECT_TRUE(r.equal());
  for (const auto& m : r.summary.metrics) EXPECT_NE(m.name.rfind("wall", 0), 0u) << m.name;
  EXPECT_TRUE(Contains(render_diff_text(r), ": equal\n"));
}

TEST(Diff, TwoEventLogsAloneAreCompared) {
  RunsDir tmp;
  const fs::path a = write_run(tmp.path() / "a", RunSpec{});
  RunSpec changed;
  changed.events[3] =
      R"({"t":1.75,"ev":"recv","who":"scheduler","from":"requestor:a","msg":"alloc_request","id":1,"bytes":100})";
  const fs::path b = write_run(tmp.path() / "b", changed);
  const DiffReport r = diff_runs((a / "events.jsonl").string(), (b / "events.jsonl").string());
  EXPECT_FALSE(r.jobs.compared);
  EXPECT_FALSE(r.summary.compared);
  ASSERT_TRUE(r.events.first.has_value());
  EXPECT_EQ(r.events.first->line, 5u);
  EXPECT_EQ(r.events.first->field, "t");
  // A log against a directory: only the logs are compared, and the rest is said to be so.
  const DiffReport mixed = diff_runs((a / "events.jsonl").string(), a.string());
  EXPECT_TRUE(mixed.equal());
  EXPECT_EQ(mixed.notes.size(), 2u);
  EXPECT_TRUE(Contains(render_diff_text(mixed), "note: jobs.csv is only in B: not compared"));
}

TEST(Diff, QuotedCsvFieldsAreRead) {
  RunsDir tmp;
  RunSpec a, b;
  a.jobs = b.jobs = {{"x,1", 0, 0}, {"say \"hi\"", 0, 5}};
  b.jobs[1].start = 6;
  // csv() writes ids raw: quote them as Batsim would.
  auto quoted = [](const RunSpec& r) {
    std::string text = csv(r.jobs);
    for (const std::string id : {"x,1", "say \"hi\""}) {
      std::string q = "\"";
      for (char c : id) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      q += "\"";
      text.replace(text.find(id + ",w,"), id.size(), q);
    }
    return text;
  };
  write_run(tmp.path() / "a", a);
  write_run(tmp.path() / "b", b);
  std::ofstream(tmp.path() / "a" / "jobs.csv", std::ios::binary) << quoted(a);
  std::ofstream(tmp.path() / "b" / "jobs.csv", std::ios::binary) << quoted(b);
  const DiffReport r = diff_runs((tmp.path() / "a").string(), (tmp.path() / "b").string());
  ASSERT_EQ(r.jobs.changed.size(), 1u);
  EXPECT_EQ(r.jobs.changed[0].job_id, "say \"hi\"");
  EXPECT_DOUBLE_EQ(*r.jobs.changed[0].start_delta(), 1);
}

TEST(Diff, MissingOrForeignInputsAreNamed) {
  RunsDir tmp;
  const auto a = write_run(tmp.path() / "a", RunSpec{});
  const std::string missing = (tmp.path() / "nope").string();
  const InputError gone = expect_input_error([&] { diff_runs(a, missing); });
  EXPECT_EQ(gone.file(), missing);
  EXPECT_TRUE(Contains(gone.what(), missing));
  EXPECT_TRUE(Contains(gone.what(), "no such file or directory"));

  fs::create_directories(tmp.path() / "empty");
  const InputError empty = expect_input_error([&] { diff_runs((tmp.path() / "empty").string(), a); });
  EXPECT_TRUE(Contains(empty.what(), "empty: not a run directory"));

  const std::string jobs = (tmp.path() / "a" / "jobs.csv").string();
  const InputError foreign = expect_input_error([&] { diff_runs(jobs, a); });
  EXPECT_EQ(foreign.file(), jobs);
  EXPECT_EQ(foreign.line(), 1u);
  EXPECT_TRUE(Contains(foreign.what(), "not a pmixflow event log"));

  std::ofstream(tmp.path() / "a" / "summary.json") << "{\"jobs\": ";
  const InputError bad = expect_input_error([&] { diff_runs(a, write_run(tmp.path() / "b", RunSpec{})); });
  EXPECT_TRUE(Contains(bad.what(), (tmp.path() / "a" / "summary.json").string()));

  std::ofstream(tmp.path() / "a" / "jobs.csv")
      << kCsvHeader << "1,w,sleep,0,1,0,1,COMPLETED_SUCCESSFULLY,soon,1,1,0,1,1,0,-1,\n";
  std::ofstream(tmp.path() / "a" / "summary.json") << summary().dump();
  const InputError start = expect_input_error([&] { diff_runs(a, (tmp.path() / "b").string()); });
  EXPECT_EQ(start.file(), jobs);
  EXPECT_EQ(start.line(), 2u);
  EXPECT_EQ(start.field(), "starting_time");
}

TEST(Diff, NothingInCommonIsBadInput) {
  RunsDir tmp;
  const fs::path a = write_run(tmp.path() / "a", RunSpec{});
  fs::create_directories(tmp.path() / "b");
  std::ofstream(tmp.path() / "b" / "summary.json") << summary().dump();
  const InputError e =
      expect_input_error([&] { diff_runs((a / "events.jsonl").string(), (tmp.path() / "b").string()); });
  EXPECT_TRUE(Contains(e.what(), "nothing to compare"));
}

}  // namespace
}  // namespace pmixflow
