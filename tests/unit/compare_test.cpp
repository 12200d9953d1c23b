// `pmixflow compare`'s table without the command line: summaries written here, the table a
// results section would print from them.
#include "pmixflow/results/compare.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "contains.hpp"

namespace pmixflow::test::compare_tests {
namespace {

using json = nlohmann::json;

json summary(const std::string& policy, double mean_wait, bool percentiles = true) {
  json s{{"format", "pmixflow-summary"},
         {"env", "sim"},
         {"scenario", "KTH-SP2-1996-2.1-cln.swf.gz"},
         {"seed", 0},
         {"policy", policy},
         {"nodes", 100},
         {"options", {{"batch_delay", 0.01}, {"via_daemon", 0.5}}},
         {"jobs", 28476},
         {"utilization", 0.69},
         {"makespan_s", 28779800.0},
         {"mean_wait_s", mean_wait},
         {"max_wait_s", 2 * 86400.0 + 11 * 3600.0},
         {"mean_bounded_slowdown", 12.5},
         {"preemptions", 0},
         {"failures", {{"jobs_killed", 0}}}};
  if (percentiles) {
    s["p50_wait_s"] = 38.0;
    s["p90_wait_s"] = 3600.0 + 47 * 60;
    s["p99_wait_s"] = mean_wait * 10;
    s["p50_bounded_slowdown"] = 1.0;
    s["p90_bounded_slowdown"] = 20.0;
    s["p99_bounded_slowdown"] = 300.0;
  }
  return s;
}

std::vector<ComparedRun> four_policies() {
  return {{"fcfs", "fcfs/summary.json", summary("fcfs", 218833)},
          {"easy", "easy/summary.json", summary("easy", 21000)},
          {"conservative", "conservative/summary.json", summary("conservative", 25000)},
          {"priority-preempt", "pp/summary.json", summary("priority-preempt", 30000, false)}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  return out;
}

TEST(CompareTable, FourPoliciesGetAPolicyColumnAndNothingThatIsAlike) {
  const CompareTable t = compare_runs(four_policies());
  ASSERT_EQ(t.rows.size(), 4u);
  ASSERT_FALSE(t.columns.empty());
  EXPECT_EQ(t.columns.front().key, "policy");
  EXPECT_EQ(t.columns.front().kind, ColumnKind::Input);
  for (const auto& c : t.columns) {
    EXPECT_NE(c.key, "seed") << "the same in every run: not a column";
    EXPECT_NE(c.key, "preemptions") << "zero in every run: not a column";
    EXPECT_NE(c.key, "failures.jobs_killed");
  }
  EXPECT_EQ(t.rows[1].cells[0].text, "easy");
  EXPECT_EQ(t.lacking_percentiles, std::vector<std::string>{"priority-preempt"});

  const std::string text = render_compare_text(t);
  const auto lines = lines_of(text);
  ASSERT_GE(lines.size(), 5u) << text;
  EXPECT_TRUE(Contains(lines[0], "run")) << text;
  EXPECT_TRUE(Contains(lines[0], "p99 wait")) << text;
  EXPECT_EQ(lines[1].rfind("fcfs ", 0), 0u) << text;
  EXPECT_TRUE(Contains(lines[1], "2 d 13 h")) << text;  // 218833 s
  EXPECT_TRUE(Contains(lines[1], "1 h 47 min")) << text;
  EXPECT_TRUE(Contains(lines[1], "38 s")) << text;
  EXPECT_TRUE(Contains(lines[1], "69.0 %")) << text;
  EXPECT_TRUE(Contains(lines[1], " 28,476 ")) << "counts grouped as on the terminal: " << text;
  EXPECT_TRUE(Contains(lines[1], " 12.5 ")) << text;  // the mean bounded slowdown
  EXPECT_EQ(lines[1].size(), lines[2].size()) << "aligned columns:\n" << text;
  EXPECT_TRUE(Contains(text, "same in every run: env sim; scenario KTH-SP2-1996-2.1-cln.swf.gz; seed 0; nodes 100;"))
      << text;
  EXPECT_TRUE(Contains(text, "no percentiles in the summary of priority-preempt")) << text;
}

TEST(CompareTable, CsvAndJsonKeepRawSecondsAndLeaveMissingFiguresEmpty) {
  const CompareTable t = compare_runs(four_policies());
  const auto csv = lines_of(render_compare_csv(t));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0].rfind("run,policy,jobs,utilization,makespan_s,mean_wait_s,p50_wait_s,", 0), 0u) << csv[0];
  EXPECT_EQ(csv[1].rfind("fcfs,fcfs,28476,0.69,28779800,218833,38,", 0), 0u) << csv[1];
  EXPECT_TRUE(Contains(csv[4], "30000,,,,")) << "absent percentiles are empty: " << csv[4];

  const json j = json::parse(render_compare_json(t));
  EXPECT_EQ(j["format"], "pmixflow-compare");
  ASSERT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["rows"][0]["mean_wait_s"], 218833.0);
  EXPECT_TRUE(j["rows"][3]["p50_wait_s"].is_null());
  EXPECT_EQ(j["lacking_percentiles"][0], "priority-preempt");
  EXPECT_EQ(j["same_in_every_run"]["batch_delay"], "0.01");
}

TEST(CompareTable, SortsByAColumnAndRefusesOneItDoesNotHave) {
  const CompareTable t = compare_runs(four_policies(), "mean_wait_s");
  std::vector<std::string> order;
  for (const auto& r : t.rows) order.push_back(r.run);
  EXPECT_EQ(order, (std::vector<std::string>{"easy", "conservative", "priority-preempt", "fcfs"}));
  const CompareTable by_p99 = compare_runs(four_policies(), "p99_wait_s");
  EXPECT_EQ(by_p99.rows.back().run, "priority-preempt") << "a run without the figure sorts last";
  try {
    compare_runs(four_policies(), "mean_wiat_s");
    FAIL() << "an unknown column was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(Contains(e.what(), "'mean_wiat_s' is not a column")) << e.what();
    EXPECT_TRUE(Contains(e.what(), "mean_wait_s")) << e.what();
  }
}

TEST(CompareTable, PreemptionsAndKilledJobsAreColumnsWhenSomeRunHasThem) {
  auto runs = four_policies();
  runs[3].summary["preemptions"] = 12;
  runs[0].summary["seed"] = 7;
  const CompareTable t = compare_runs(runs);
  std::vector<std::string> keys;
  for (const auto& c : t.columns) keys.push_back(c.key);
  EXPECT_NE(std::find(keys.begin(), keys.end(), "preemptions"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "seed"), keys.end()) << "the seeds differ";
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "failures.jobs_killed"), keys.end());
}

}  // namespace
}  // namespace pmixflow::test::compare_tests
