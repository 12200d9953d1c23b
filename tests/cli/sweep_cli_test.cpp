// `pmixflow sweep` on this machine: a study of 3 policies x 2 traces x 3 seeds, each run in its
// own directory, sweep.csv with a row per run; a second invocation skips what is done, --only
// reruns one, a failed run is listed with the command that reruns it, and a bad spec is refused
// naming its file, line and field.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow_run.hpp"
#include "sweep_study.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

TEST(SweepCli, AStudyRunsEveryCombinationAndTablesItsMetrics) {
  const auto dir = scratch_dir("study");
  const auto spec = write_study(dir);
  const auto r = run_pmixflow({"sweep", spec.string(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "18 runs, 18 done")) << r.out;

  const auto csv = read_csv(dir / "study" / "sweep.csv");
  ASSERT_EQ(csv.size(), 19u);
  EXPECT_EQ(std::vector<std::string>(csv[0].begin(), csv[0].begin() + 5),
            (std::vector<std::string>{"run", "policy", "trace", "seed", "state"}));
  for (const char* metric : {"jobs", "mean_wait_s", "mean_bounded_slowdown", "utilization", "makespan_s"})
    EXPECT_NE(column(csv, metric), 0u);
  // The percentiles came later: they follow every older column, whose places do not move.
  const std::vector<std::string> last_columns(csv[0].end() - 7, csv[0].end());
  EXPECT_EQ(last_columns,
            (std::vector<std::string>{"end", "p50_wait_s", "p90_wait_s", "p99_wait_s", "p50_bounded_slowdown",
                                      "p90_bounded_slowdown", "p99_bounded_slowdown"}));
  EXPECT_LE(std::stod(csv[1][column(csv, "p50_wait_s")]), std::stod(csv[1][column(csv, "p99_wait_s")]));
  for (const auto& cell : csv[0]) EXPECT_NE(cell, "wall_s");  // wall-clock: not comparable between sweeps
  std::set<std::string> combos;
  for (std::size_t i = 1; i < csv.size(); ++i) {
    ASSERT_EQ(csv[i].size(), csv[0].size());
    EXPECT_EQ(csv[i][column(csv, "state")], "done");
    combos.insert(csv[i][1] + "/" + csv[i][2] + "/" + csv[i][3]);
    EXPECT_TRUE(fs::is_regular_file(dir / "study" / "runs" / csv[i][0] / "summary.json")) << csv[i][0];
    EXPECT_TRUE(fs::is_regular_file(dir / "study" / "runs" / csv[i][0] / "jobs.csv")) << csv[i][0];
  }
  EXPECT_EQ(combos.size(), 18u);
  EXPECT_TRUE(fs::is_directory(dir / "study" / "runs" / "easy__short__seed2"));
  // The policies differ on the golden trace (it is made to tell them apart): the table shows it.
  const auto wait = column(csv, "mean_wait_s");
  EXPECT_EQ(csv[7][0], "easy__golden__seed1");
  EXPECT_NE(csv[1][wait], csv[7][wait]);
  fs::remove_all(dir);
}

TEST(SweepCli, ASecondSweepSkipsWhatIsDoneAndOnlyRerunsOne) {
  const auto dir = scratch_dir("again");
  const auto spec = write_study(dir, "fcfs, easy", "1");  // 4 runs
  ASSERT_EQ(run_pmixflow({"sweep", spec.string(), "--jobs", "2", "--quiet"}).exit_code, 0);
  const auto table = slurp(dir / "study" / "sweep.csv");
  const auto one = dir / "study" / "runs" / "fcfs__golden__seed1" / "summary.json";
  const auto other = dir / "study" / "runs" / "easy__golden__seed1" / "summary.json";
  const auto one_time = fs::last_write_time(one), other_time = fs::last_write_time(other);

  // Nothing is run again, and the table made from the directories is the same.
  fs::remove(dir / "study" / "sweep.csv");
  const auto again = run_pmixflow({"sweep", spec.string()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Contains(again.out, "4 skipped as done before")) << again.out;
  EXPECT_EQ(fs::last_write_time(one), one_time);
  EXPECT_EQ(slurp(dir / "study" / "sweep.csv"), table);

  const auto only = run_pmixflow({"sweep", spec.string(), "--only", "fcfs__golden__seed1"});
  EXPECT_EQ(only.exit_code, 0) << only.err;
  EXPECT_TRUE(Contains(only.out, "3 skipped as done before")) << only.out;
  EXPECT_NE(fs::last_write_time(one), one_time);
  EXPECT_EQ(fs::last_write_time(other), other_time);
  EXPECT_EQ(slurp(dir / "study" / "sweep.csv"), table);  // simulated metrics: the same again

  const auto unknown = run_pmixflow({"sweep", spec.string(), "--only", "fcfs__golden__seed9"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Contains(unknown.err, "'fcfs__golden__seed9' is not a run of")) << unknown.err;
  fs::remove_all(dir);
}

TEST(SweepCli, AFailedRunIsReportedWithItsRerunAndTheOthersStillCount) {
  const auto dir = scratch_dir("fails");
  const auto spec = dir / "study.sweep";
  fs::copy_file(source_path("traces/golden.swf"), dir / "golden.swf");
  // A negative batch delay is refused by pmixflow sim itself: that run fails, the other does not.
  std::ofstream(spec) << "policies = easy\ntraces = golden.swf\nseeds = 4\n--batch-delay = 0.01, -1\n";
  const auto r = run_pmixflow({"sweep", spec.string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "2 runs, 1 done")) << r.out;
  const std::string failed = "easy__golden__seed4__batch-delay=-1";
  EXPECT_TRUE(Contains(r.err, "run " + failed + " failed (exit 2)")) << r.err;
  EXPECT_TRUE(Contains(r.err, "rerun it alone: pmixflow sweep " + spec.string() + " --out " + (dir / "out").string() +
                                  " --only " + failed))
      << r.err;
  EXPECT_TRUE(Contains(slurp(dir / "out" / "runs" / failed / "sim.log"), "--batch-delay")) << "the run's own error";

  const auto csv = read_csv(dir / "out" / "sweep.csv");
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[0][4], "batch-delay");
  EXPECT_EQ(csv[1][column(csv, "state")], "done");
  EXPECT_EQ(csv[2][column(csv, "state")], "failed");
  EXPECT_EQ(csv[2][column(csv, "mean_wait_s")], "");

  // A failed run is not done: the next sweep tries it again (and only it).
  const auto again = run_pmixflow({"sweep", spec.string(), "--out", (dir / "out").string()});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_TRUE(Contains(again.out, "1 skipped as done before")) << again.out;
  fs::remove_all(dir);
}

TEST(SweepCli, AGeneratedWorkloadIsDrawnFromEachRunsSeedBesideTheTraces) {
  const auto dir = scratch_dir("generated");
  const auto spec = dir / "gen.sweep";
  std::ofstream(spec) << "policies = fcfs, easy\n"
                      << "workloads = jobs=60 nodes=4 slots_per_node=4 max_size_share=0.5, jobs=30 nodes=2 seed=9\n"
                      << "seeds = 1, 2\nout = out\n";
  const auto r = run_pmixflow({"sweep", spec.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto csv = read_csv(dir / "out" / "sweep.csv");
  ASSERT_EQ(csv.size(), 9u);
  EXPECT_EQ(csv[1][0], "fcfs__gen-jobs=60-nodes=4-slots_per_node=4-max_size_share=0.5__seed1");
  EXPECT_EQ(csv[1][column(csv, "trace")], "generated: jobs=60 nodes=4 slots_per_node=4 max_size_share=0.5");
  EXPECT_EQ(csv[1][column(csv, "jobs")], "60");
  EXPECT_EQ(csv[1][column(csv, "nodes")], "4");  // the machine is the workload's
  const auto runs = dir / "out" / "runs";
  auto trace = [&](const std::string& id) { return slurp(runs / id / "workload.swf"); };
  const std::string shape = "__gen-jobs=60-nodes=4-slots_per_node=4-max_size_share=0.5__seed";
  // The run's seed draws the workload: the same seed, the same jobs under every policy.
  EXPECT_EQ(trace("fcfs" + shape + "1"), trace("easy" + shape + "1"));
  EXPECT_NE(trace("fcfs" + shape + "1"), trace("fcfs" + shape + "2"));
  // Unless the workload names its own seed.
  EXPECT_EQ(trace("fcfs__gen-jobs=30-nodes=2-seed=9__seed1"), trace("fcfs__gen-jobs=30-nodes=2-seed=9__seed2"));
  EXPECT_TRUE(Contains(trace("fcfs__gen-jobs=30-nodes=2-seed=9__seed1"), "seed 9"));
  fs::remove_all(dir);
}

// A Slurm host list holds commas of its own: they do not split the values of a sweep's option.
TEST(SweepCli, AHostListsCommasInsideBracketsDoNotSplitItsValue) {
  const auto dir = scratch_dir("hosts");
  fs::copy_file(source_path("traces/golden.swf"), dir / "golden.swf");
  const auto spec = dir / "hosts.sweep";
  std::ofstream(spec) << "policies = easy\ntraces = golden.swf\nseeds = 1\nout = out\n--host = n[01-02,05], n03\n";
  const auto r = run_pmixflow({"sweep", spec.string(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "2 runs, 2 done")) << r.out;
  std::set<std::string> hosts;
  for (const auto& run : fs::directory_iterator(dir / "out" / "runs"))
    hosts.insert(json::parse(slurp(run.path() / "summary.json")).at("host").get<std::string>());
  EXPECT_EQ(hosts, (std::set<std::string>{"n[01-02,05]", "n03"}));
  fs::remove_all(dir);
}

TEST(SweepCli, ABadSpecIsRefusedNamingItsLineAndField) {
  const auto dir = scratch_dir("bad");
  fs::copy_file(source_path("traces/golden.swf"), dir / "golden.swf");
  const auto spec = dir / "bad.sweep";
  auto refused = [&](const std::string& text) {
    std::ofstream(spec, std::ios::trunc) << text;
    const auto r = run_pmixflow({"sweep", spec.string(), "--out", (dir / "out").string()});
    EXPECT_EQ(r.exit_code, 2) << text << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << "nothing is run before the spec is read whole";
    return r.err;
  };
  const std::string head = "policies = easy\ntraces = golden.swf\n";
  EXPECT_TRUE(Contains(refused(head + "seeds = 1\n--nodse = 4\n"),
                       spec.string() + ":4: field '--nodse': not an option of pmixflow sim (did you mean --nodes?)"));
  EXPECT_TRUE(Contains(refused(head + "seeds = 3..1\n"), ":3: field 'seeds': the range '3..1' is empty"));
  EXPECT_TRUE(Contains(refused(head + "seeds = 1, x\n"), ":3: field 'seeds': 'x' is not a seed"));
  EXPECT_TRUE(
      Contains(refused("policies = easy, fifo\n"), ":1: field 'policies': unknown policy 'fifo' (did you mean fcfs?"));
  EXPECT_TRUE(
      Contains(refused("policies = easy\ntraces = golden.swf, none.swf\n"), ":2: field 'traces': no trace 'none.swf'"));
  EXPECT_TRUE(Contains(refused(head + "seeds = 1\n--seed = 2\n"), ":4: field '--seed': set by the sweep"));
  EXPECT_TRUE(Contains(refused(head + "seed = 1\n"), ":3: field 'seed': unknown key (did you mean seeds?)"));
  EXPECT_TRUE(
      Contains(refused("policies = easy\nworkloads = jobs=10 load=0\n"), ":2: field 'load': '0' is out of range"));
  EXPECT_TRUE(Contains(refused(head), "field 'seeds': missing"));
  const auto help = run_pmixflow({"sweep", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.out, "--slurm"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
