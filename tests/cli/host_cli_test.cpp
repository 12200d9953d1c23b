// --host and --hostfile, as prte's: the DVM's hosts at start-up, instead of the scenario's
// controller.dvm or a replay's every node.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test::host_cli_tests {
namespace {

namespace fs = std::filesystem;

const std::string kQuietScenario = R"({"format":"pmixflow-scenario","version":1,"name":"quiet"})"
                                   "\n";

struct HostRun {
  RunResult result;
  std::set<std::string> up_at_start;  // daemons up before the first request could have asked for one
  json summary;
};

// A scenario that asks for nothing: every daemon that comes up is one the DVM started with.
HostRun run_with(std::vector<std::string> extra, const std::string& scenario = kQuietScenario) {
  const auto dir = scratch_dir("run");
  std::ofstream(dir / "s.jsonl") << scenario;
  std::vector<std::string> args{"sim", "--scenario", (dir / "s.jsonl").string(), "--out", (dir / "out").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  HostRun r;
  r.result = run_pmixflow(args, dir.string());
  if (r.result.exit_code == 0) {
    for (const auto& e : read_events(dir / "out" / "events.jsonl"))
      if (e.value("ev", "") == "daemon.up") r.up_at_start.insert(e.value("who", ""));
    r.summary = json::parse(slurp(dir / "out" / "summary.json"));
  }
  fs::remove_all(dir);
  return r;
}

using Daemons = std::set<std::string>;

TEST(HostOption, AHostListIsTheDvmAtStartAndTheRunSaysSo) {
  const auto r = run_with({"--host", "n[02-03],n05"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_EQ(r.up_at_start, (Daemons{"daemon:n02", "daemon:n03", "daemon:n05"}));
  EXPECT_NE(r.result.out.find("DVM at start: --host n[02-03],n05, instead of the scenario's controller.dvm"),
            std::string::npos)
      << r.result.out;
  EXPECT_EQ(r.summary.value("host", ""), "n[02-03],n05");
}

TEST(HostOption, ItOverridesTheScenariosControllerDvm) {
  const std::string all = R"({"format":"pmixflow-scenario","version":1,"controller":{"dvm":"all"}})"
                          "\n";
  EXPECT_EQ(run_with({}, all).up_at_start.size(), 8u);
  const auto r = run_with({"--host", "+n0,n08"}, all);
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_EQ(r.up_at_start, (Daemons{"daemon:n01", "daemon:n08"}));
}

TEST(HostOption, ASlotCountIsTheNodesOwnOrRefused) {
  EXPECT_EQ(run_with({"--host", "n01:8"}).result.exit_code, 0);
  const auto r = run_with({"--host", "n01,n02:4"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("--host"), std::string::npos) << r.result.err;
  EXPECT_NE(r.result.err.find("'n02:4': n02 has 8 slots on this machine"), std::string::npos) << r.result.err;
}

TEST(HostOption, AnUnknownNodeIsNamedWithTheNearestAndTheMachinesNodes) {
  auto r = run_with({"--host", "n01,n001"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("pmixflow sim: --host: n001: no compute node 'n001' on this machine (did you mean n01?); "
                              "its compute nodes are n[01-08]"),
            std::string::npos)
      << r.result.err;
  r = run_with({"--host", "n[07-09]"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("no compute node 'n09'"), std::string::npos) << r.result.err;
  r = run_with({"--host", "head"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("'head' is the head node"), std::string::npos) << r.result.err;
}

TEST(HostOption, MalformedListsAndEmptyNodesAreRefusedNamingTheOption) {
  auto r = run_with({"--host", "n[03-01]"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("--host"), std::string::npos) << r.result.err;
  EXPECT_NE(r.result.err.find("runs backwards"), std::string::npos) << r.result.err;
  r = run_with({"--host", "+e:2"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("'+e' picks the nodes a running DVM leaves empty"), std::string::npos) << r.result.err;
  r = run_with({"--host", ""});
  EXPECT_EQ(r.result.exit_code, 2) << "an empty list was read as no option";
  EXPECT_NE(r.result.err.find("--host: an empty value names nothing"), std::string::npos) << r.result.err;
  r = run_with({"--host", "+n8"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("+n0 to +n7"), std::string::npos) << r.result.err;
}

TEST(HostOption, AScenariosOwnDvmListIsCheckedAsTheOptionIs) {
  const auto with_dvm = [](const std::string& dvm) {
    return R"({"format":"pmixflow-scenario","version":1,"controller":{"dvm":")" + dvm + "\"}}\n";
  };
  auto r = run_with({}, with_dvm("n01:4"));
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("s.jsonl:1: field 'controller.dvm': 'n01:4': n01 has 8 slots"), std::string::npos)
      << r.result.err;
  r = run_with({}, with_dvm("+e"));
  EXPECT_EQ(r.result.exit_code, 2) << "+e was ignored";
  r = run_with({"--host", "n03"}, with_dvm("n01:4"));
  ASSERT_EQ(r.result.exit_code, 0) << "the option replaces the scenario's list: " << r.result.err;
  EXPECT_EQ(r.up_at_start, (Daemons{"daemon:n03"}));
}

TEST(HostfileOption, AHostfileIsReadAsAScenariosHostfilesAre) {
  const auto dir = scratch_dir("file");
  std::ofstream(dir / "hosts") << "# the DVM at start\nn02 slots=8\n\nn[04-05]   # two more\n^n05\n";
  const auto r = run_with({"--hostfile", (dir / "hosts").string()});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_EQ(r.up_at_start, (Daemons{"daemon:n02", "daemon:n04"}));
  EXPECT_NE(r.result.out.find("DVM at start: --hostfile " + (dir / "hosts").string()), std::string::npos)
      << r.result.out;
  EXPECT_EQ(r.summary.value("hostfile", ""), (dir / "hosts").string());
  fs::remove_all(dir);
}

TEST(HostfileOption, ErrorsNameTheFileTheLineAndTheField) {
  const auto dir = scratch_dir("bad");
  const auto file = (dir / "hosts").string();
  std::ofstream(file) << "n01\nn02 slots=x\n";
  auto r = run_with({"--hostfile", file});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find(file + ":2: field 'slots=x'"), std::string::npos) << r.result.err;
  EXPECT_NE(r.result.err.find("(--hostfile)"), std::string::npos) << r.result.err;
  std::ofstream(file) << "n01\n# n02\nn[01-02] slots=8\nn12\n";
  r = run_with({"--hostfile", file});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find(file + ":4: field 'n12': no compute node 'n12'"), std::string::npos) << r.result.err;
  std::ofstream(file) << "n03 slots=16\n";
  r = run_with({"--hostfile", file});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find(file + ":1: field 'n03': 'n03:16': n03 has 8 slots"), std::string::npos) << r.result.err;
  r = run_with({"--hostfile", (dir / "missing").string()});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("cannot read hostfile"), std::string::npos) << r.result.err;
  fs::remove_all(dir);
}

// prte's reading of both: the hostfile is the list, --host filters it.
TEST(HostfileOption, WithHostTheFilesHostsAreFilteredByIt) {
  const auto dir = scratch_dir("filter");
  const auto file = (dir / "hosts").string();
  std::ofstream(file) << "n[02-05]\n^n04\n";
  auto r = run_with({"--hostfile", file, "--host", "n[02-03]"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_EQ(r.up_at_start, (Daemons{"daemon:n02", "daemon:n03"}));
  EXPECT_NE(r.result.out.find("DVM at start: --hostfile " + file + " filtered by --host n[02-03]"), std::string::npos)
      << r.result.out;
  EXPECT_EQ(r.summary.value("host", ""), "n[02-03]");
  EXPECT_EQ(r.summary.value("hostfile", ""), file);

  r = run_with({"--hostfile", file, "--host", "+n2"});
  ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
  EXPECT_EQ(r.up_at_start, (Daemons{"daemon:n05"})) << "+nK counts the file's hosts: n02, n03, n05";

  r = run_with({"--hostfile", file, "--host", "n02,n04"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("--host: n04: 'n04' is not in the hostfile: with --hostfile, --host picks "
                              "among the file's hosts, as prte's does (" +
                              file + " lists n[02-03,05])"),
            std::string::npos)
      << r.result.err;
  r = run_with({"--hostfile", file, "--host", "n09"});
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("no compute node 'n09' on this machine"), std::string::npos)
      << "a name of no node is said so first: " << r.result.err;
  for (const char* beyond : {"+n3", "+n9"}) {  // beyond the file's three hosts; +n9 beyond the machine's eight too
    r = run_with({"--hostfile", file, "--host", beyond});
    EXPECT_EQ(r.result.exit_code, 2);
    EXPECT_NE(r.result.err.find(std::string(beyond) + " is out of range: the allocation has 3 node(s)"),
              std::string::npos)
        << r.result.err;
  }
  fs::remove_all(dir);
}

TEST(HostOption, AReplaysDvmStartsOnTheHostsGiven) {
  const auto dir = scratch_dir("replay");
  const std::string trace = std::string(PMIXFLOW_SOURCE_DIR) + "/traces/golden.swf";
  auto r = run_pmixflow({"sim", "--trace", trace, "--host", "n[01-02]", "--out", (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DVM at start: --host n[01-02], instead of every node (a replay's DVM)"), std::string::npos)
      << r.out;
  // The start-up's DVM change: two daemons, where a replay otherwise starts eight; the others
  // are started when a job needs them.
  std::vector<int> grown;
  for (const auto& e : read_events(dir / "out" / "events.jsonl"))
    if (e.value("ev", "") == "dvm.grow" && e.value("corr", "") == "dvm-start") grown.push_back(e["num_daemons"]);
  EXPECT_EQ(grown, std::vector<int>{2});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test::host_cli_tests
