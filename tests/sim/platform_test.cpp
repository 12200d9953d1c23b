// Machines from SimGrid's own example platforms and from real hwloc topologies load, and
// the network they describe decides how long the flow takes.
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

json run_on(const std::vector<std::string>& machine, const std::string& scenario = "entry-daemon.jsonl") {
  const auto dir = scratch_dir("platform");
  std::vector<std::string> args{"sim",   "--scenario", source_path("tests/scenarios/" + scenario),
                                "--out", dir.string(), "--quiet"};
  args.insert(args.end(), machine.begin(), machine.end());
  const auto r = run_pmixflow(args);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  json summary = r.exit_code == 0 ? json::parse(slurp(dir / "summary.json")) : json::object();
  std::filesystem::remove_all(dir);
  return summary;
}

double latency(const json& summary) {
  const auto& c = summary["calls"][0];
  return c["answered"].get<double>() - c["sent"].get<double>();
}

class SimGridExamplePlatform : public ::testing::TestWithParam<std::pair<const char*, int>> {};

TEST_P(SimGridExamplePlatform, LoadsWithARealTopologyAndRunsTheFlow) {
  PMIXFLOW_REQUIRE_SHARED_DATA();
  const auto [file, hosts] = GetParam();
  const json s = run_on({"--platform", shared_path(std::string("data/platforms/") + file), "--topology",
                         shared_path("data/topologies/24em64t-2n6c2t-pci.xml")});
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s["nodes"], hosts - 3);    // compute nodes: head, scheduler and login hosts are taken out
  EXPECT_EQ(s["slots_per_node"], 12);  // 2 packages x 6 cores
  EXPECT_EQ(s["calls"][0]["status"], "PMIX_SUCCESS");
  EXPECT_EQ(s["expectations"]["failed"], 0);
}

INSTANTIATE_TEST_SUITE_P(Shared, SimGridExamplePlatform,
                         ::testing::Values(std::pair{"cluster_fat_tree.xml", 16},
                                           std::pair{"cluster_dragonfly.xml", 120}, std::pair{"cluster_torus.xml", 12},
                                           std::pair{"cluster_backbone.xml", 100}),
                         [](const auto& info) {
                           std::string name = info.param.first;
                           return name.substr(0, name.find('.'));
                         });

TEST(Platform, SlotsCanBeHardwareThreads) {
  PMIXFLOW_REQUIRE_SHARED_DATA();
  const json s = run_on({"--topology", shared_path("data/topologies/24em64t-2n6c2t-pci.xml"), "--slots", "pus"});
  EXPECT_EQ(s["slots_per_node"], 24);
}

TEST(Platform, GeneratedFatTreeRunsTheFlow) {
  const json s = run_on({"--nodes", "40", "--network", "fat-tree"});
  EXPECT_EQ(s["nodes"], 40);
  EXPECT_EQ(s["calls"][0]["status"], "PMIX_SUCCESS");
}

TEST(Platform, TheNetworkDecidesHowLongARequestTakes) {
  PMIXFLOW_REQUIRE_SHARED_DATA();
  // Every hop of the same request crosses 50 us links and a 500 us backbone on SimGrid's
  // backbone cluster, against 1 us links on the generated star.
  const double fast = latency(run_on({}, "entry-controller.jsonl"));
  const double slow =
      latency(run_on({"--platform", shared_path("data/platforms/cluster_backbone.xml")}, "entry-controller.jsonl"));
  EXPECT_GT(slow, fast + 4 * 500e-6);
}

TEST(Platform, DaemonStartupIsChargedBeforeTheJobCanStart) {
  const json quick = run_on({"--daemon-startup", "0", "--jitter", "0"}, "session-lifecycle.jsonl");
  const json slow = run_on({"--daemon-startup", "2", "--jitter", "0"}, "session-lifecycle.jsonl");
  EXPECT_NEAR(latency(slow) - latency(quick), 2.0, 0.01);
}

}  // namespace
}  // namespace pmixflow::test
