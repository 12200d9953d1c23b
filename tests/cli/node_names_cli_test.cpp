// Generated node names mean the same node on a machine of any size: a scenario written for 8
// nodes (naming n01) runs on 1,024, and the whole machine is written short as Slurm writes it.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test::node_names_cli_tests {
namespace {

namespace fs = std::filesystem;

TEST(GeneratedNames, AScenariosNodesKeepTheirNamesOnAThousandNodes) {
  // The README's command, as written there, from the repository.
  const auto dir = scratch_dir("big");
  const auto r = run_pmixflow({"sim", "--nodes", "1024", "--network", "fat-tree", "--scenario",
                               "traces/session-complete.jsonl", "--out", (dir / "run").string()},
                              PMIXFLOW_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = json::parse(slurp(dir / "run" / "summary.json"));
  EXPECT_EQ(summary["resources"]["nodes"][0]["nodes"], "n[01-1024]");
  EXPECT_EQ(summary["expectations"]["failed"], 0);
  fs::remove_all(dir);
}

TEST(GeneratedNames, NodesAreNumberedInAtLeastTwoDigitsWhateverTheMachinesSize) {
  const auto dir = scratch_dir("names");
  const auto r = run_pmixflow(
      {"sim", "--nodes", "100", "--scenario", "traces/session-complete.jsonl", "--out", (dir / "run").string()},
      PMIXFLOW_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto events = read_events(dir / "run" / "events.jsonl");
  EXPECT_EQ(events[0]["inputs"]["compute_nodes"], "n[01-100]");
  std::set<std::string> up;
  for (const auto& e : events)
    if (e.value("ev", "") == "daemon.up") up.insert(e.value("who", ""));
  EXPECT_TRUE(up.contains("daemon:n01") && up.contains("daemon:n99") && up.contains("daemon:n100")) << up.size();
  EXPECT_NE(r.out.find("via daemon:n01"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test::node_names_cli_tests
