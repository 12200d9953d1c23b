// The workload generator: a seeded SWF trace the reader takes as a production one, the same
// seed the same file, its shape named by a line of KEY=VALUE words refused with its key.
#include "pmixflow/trace/workload.hpp"

#include <gtest/gtest.h>

#include "pmixflow/trace/swf.hpp"
#include "test_files.hpp"

namespace pmixflow::test {
namespace {

std::string text_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Workload, TheSameShapeWritesTheSameTraceAndAnotherSeedAnother) {
  TempDir dir;
  WorkloadShape shape;
  shape.jobs = 300;
  shape.nodes = 16;
  shape.seed = 7;
  write_workload(shape, dir.path() / "a.swf");
  write_workload(shape, dir.path() / "b.swf");
  shape.seed = 8;
  write_workload(shape, dir.path() / "c.swf");
  EXPECT_EQ(text_of(dir.path() / "a.swf"), text_of(dir.path() / "b.swf"));
  EXPECT_NE(text_of(dir.path() / "a.swf"), text_of(dir.path() / "c.swf"));
}

TEST(Workload, TheTraceReadsAsTheShapeSays) {
  TempDir dir;
  WorkloadShape shape;
  shape.jobs = 2000;
  shape.nodes = 10;
  shape.slots_per_node = 4;
  shape.max_size_share = 0.5;
  shape.min_runtime_s = 60;
  shape.max_runtime_s = 3600;
  const double mean_gap = write_workload(shape, dir.path() / "w.swf");
  const SwfTrace trace = read_swf((dir.path() / "w.swf").string());
  ASSERT_EQ(trace.jobs.size(), 2000u);
  EXPECT_TRUE(trace.skipped.empty());
  EXPECT_EQ(trace.max_nodes, 10);
  EXPECT_EQ(trace.max_procs, 40);
  for (const auto& job : trace.jobs) {
    EXPECT_GE(job.procs, 1u);
    EXPECT_LE(job.procs, 20u);  // half the machine's 40 slots
    EXPECT_GE(job.runtime, 59);
    EXPECT_LE(job.runtime, 3600);
    EXPECT_GE(job.estimate, job.runtime);
  }
  // Poisson arrivals at the rate the load sets: the mean gap drawn is close to the mean asked.
  const double span = trace.jobs.back().submit - trace.jobs.front().submit;
  EXPECT_NEAR(span / 1999, mean_gap, mean_gap * 0.1);
}

TEST(Workload, AShapeIsNamedByKeyValueWords) {
  bool seeded = true;
  const WorkloadShape shape = parse_workload_shape("jobs=200  nodes=8 load=0.5", "s.sweep", 3, &seeded);
  EXPECT_EQ(shape.jobs, 200u);
  EXPECT_EQ(shape.nodes, 8u);
  EXPECT_DOUBLE_EQ(shape.load, 0.5);
  EXPECT_EQ(shape.slots_per_node, WorkloadShape{}.slots_per_node);
  EXPECT_FALSE(seeded);
  EXPECT_EQ(parse_workload_shape("seed=4", "s", 1, &seeded).seed, 4u);
  EXPECT_TRUE(seeded);

  auto e = expect_input_error([] { parse_workload_shape("jobs=200 nodez=8", "s.sweep", 3); });
  EXPECT_EQ(e.file(), "s.sweep");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.field(), "nodez");
  e = expect_input_error([] { parse_workload_shape("jobs=0", "s.sweep", 3); });
  EXPECT_EQ(e.field(), "jobs");
  EXPECT_TRUE(Contains(e.what(), "out of range")) << e.what();
  e = expect_input_error([] { parse_workload_shape("load=nan", "s.sweep", 3); });
  EXPECT_EQ(e.field(), "load");
  e = expect_input_error([] { parse_workload_shape("jobs", "s.sweep", 3); });
  EXPECT_TRUE(Contains(e.what(), "'jobs' is not KEY=VALUE")) << e.what();
  e = expect_input_error([] { parse_workload_shape("min_runtime_s=100 max_runtime_s=10", "s.sweep", 3); });
  EXPECT_EQ(e.field(), "min_runtime_s");
}

}  // namespace
}  // namespace pmixflow::test
