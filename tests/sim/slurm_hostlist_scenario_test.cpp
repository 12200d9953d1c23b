// A scenario written with Slurm's host ranges runs exactly as the one written with comma lists
// (docs/hostlists.md): the DVM's hosts, a node list, an activation's PMIX_HOST, a fault's node
// and an assertion's nodes. Each bracketed list is as long as its comma twin (a space pads the
// twin, and spaces around an entry are trimmed), so that the messages carrying them weigh the
// same and the two event logs can be compared line for line.
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "environments.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test::slurm_hostlist_scenario_tests {
namespace {

namespace fs = std::filesystem;

// {release}, {dvm}, {list}, {host}, {fault}: the lists the two scenarios write differently. A
// release may name the session's nodes, which must be all of them, however written.
constexpr const char* kScenario =
    R"({"format":"pmixflow-scenario","version":1,"name":"ranges","description":"host lists written two ways","controller":{"start":0,"connect_to_scheduler":true,"no_scheduler":"hold","dvm":"{dvm}"},"scheduler":{"start":0,"attach":true,"policy":"fcfs"}}
{"at":1,"op":"alloc","requestor":"alice","via":"controller","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NODE_LIST":"{list}"},"app":{"cmd":"sleep","argv":["20"],"np":16},"expect":{"status":"PMIX_SUCCESS"}}
{"op":"assert","after":"alice#1","session_of":"alice#1","exists":true,"nodes":"{list}"}
{"at":2,"op":"alloc","requestor":"bob","via":"daemon:n02","directive":"PMIX_ALLOC_ACTIVATE","info":{"PMIX_HOST":"{host}","PMIX_ALLOC_REQ_ID":"two"},"expect":{"status":"PMIX_SUCCESS"}}
{"at":3,"op":"node_fail","node":"{fault}"}
{"at":4,"op":"alloc","requestor":"alice","via":"controller","directive":"PMIX_ALLOC_RELEASE","info":{"PMIX_ALLOC_ID":"alloc-1","PMIX_ALLOC_NODE_LIST":"{release}"},"expect":{"status":"PMIX_SUCCESS"}}
{"op":"assert","at":10,"node":"n05","daemon":"up"}
{"op":"assert","at":10,"node":"n06","daemon":"up"}
)";

using Lists = std::vector<std::pair<std::string, std::string>>;  // placeholder, list

std::string filled(Lists lists) {
  std::string text = kScenario;
  for (const auto& [key, value] : lists)
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

struct RangesRun {
  int exit_code = -1;
  std::string err;
  std::string log;  // events.jsonl without its header, the wall-clock time zeroed
  json summary;
};

RangesRun simulate(const std::string& name, const Lists& lists) {
  const auto dir = scratch_dir(name);
  const auto scenario = dir / "ranges.jsonl";
  std::ofstream(scenario) << filled(lists);
  const auto r = run_pmixflow(scenario_command(Environment{"sim"}, scenario.string(), dir / "out"));
  RangesRun run{r.exit_code, r.err + r.out, "", json()};
  if (r.exit_code == 0) {
    run.log = comparable_log(dir / "out" / "events.jsonl");
    run.log.erase(0, run.log.find('\n') + 1);
    run.summary = json::parse(slurp(dir / "out" / "summary.json"));
  }
  fs::remove_all(dir);
  return run;
}

const Lists kCommas{{"{release}", "n03:8,n04:8"},
                    {"{dvm}", "n01, n02"},
                    {"{list}", "n03, n04"},
                    {"{host}", "n05, n06"},
                    {"{fault}", "n07"}};
const Lists kRanges{{"{release}", " n[03-04]:8"},
                    {"{dvm}", "n[01-02]"},
                    {"{list}", "n[03-04]"},
                    {"{host}", "n[05-06]"},
                    {"{fault}", "n[07]"}};

TEST(SlurmHostListScenario, RangesRunAsTheirCommaListsDo) {
  const RangesRun commas = simulate("commas", kCommas);
  const RangesRun ranges = simulate("ranges", kRanges);
  ASSERT_EQ(commas.exit_code, 0) << commas.err;
  ASSERT_EQ(ranges.exit_code, 0) << ranges.err;
  for (const RangesRun* run : {&commas, &ranges}) {
    EXPECT_EQ(run->summary["expectations"]["checked"].get<int>(), 6) << run->summary["expectations"].dump(2);
    EXPECT_TRUE(run->summary["expectations"]["failures"].empty()) << run->summary["expectations"].dump(2);
  }
  // The same log, but for the lists as the requests carried them.
  std::string log = ranges.log;
  for (std::size_t i = 0; i < kRanges.size(); ++i)
    for (auto at = log.find(kRanges[i].second); at != std::string::npos; at = log.find(kRanges[i].second, at))
      log.replace(at, kRanges[i].second.size(), kCommas[i].second);
  EXPECT_EQ(log, commas.log);
  EXPECT_NE(ranges.log.find("n[03-04]"), std::string::npos);  // the request carried the range itself
}

TEST(SlurmHostListScenario, AMalformedRangeNamesTheScenarioLineAndField) {
  Lists bad = kRanges;
  bad[1].second = "n[02-01]";
  const RangesRun run = simulate("bad-dvm", bad);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_TRUE(Contains(run.err, "ranges.jsonl:1: field 'controller.dvm'")) << run.err;
  EXPECT_TRUE(Contains(run.err, "the range '02-01' runs backwards")) << run.err;

  bad = kRanges;
  bad[4].second = "n[07-08]";
  const RangesRun two = simulate("two-nodes", bad);
  EXPECT_NE(two.exit_code, 0);
  EXPECT_TRUE(Contains(two.err, "ranges.jsonl:5: field 'node'")) << two.err;
  EXPECT_TRUE(Contains(two.err, "names 2 nodes")) << two.err;
}

}  // namespace
}  // namespace pmixflow::test::slurm_hostlist_scenario_tests
