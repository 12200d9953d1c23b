// Conformance, failure injection: a daemon that fails to start and a node that dies while its
// session runs, each seen through the answers and events that follow.
#include "conformance_alloc_support.hpp"

namespace pmixflow::test::alloc_conformance {
namespace {

PMIXFLOW_SCENARIO_SUITE(Failures, AllocConformance);

// ------------------------------------------------------------------ failure injection

TEST_P(Failures, ADaemonThatFailsToStart) {
  const ScenarioRun run = simulate("fail-daemon-start.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_ERR_JOB_FAILED_TO_LAUNCH");
  EXPECT_EQ(status(run, "b#1"), "PMIX_SUCCESS");
  const long start_failed =
      first_index(run, [](const json& e) { return ev_of(e) == "daemon.start_failed" && e["who"] == "daemon:n02"; });
  ASSERT_GE(start_failed, 0);
  const auto noticed = events(run, "daemon.failed");
  ASSERT_EQ(noticed.size(), 1u);
  EXPECT_EQ(noticed[0]["node"], "n02");
  // The DVM change of a's instantiation ends PMIX_ERR_DVM_MOD, and a hears it: the requestor
  // the scheduler named in its INSTANTIATE, not the scheduler (PRRTE's grow requester).
  const auto ready = events(run, "dvm.ready", "a#1");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0]["code"], "PMIX_ERR_DVM_MOD");
  EXPECT_EQ(info_of(ready[0]), (json{{"pmix.alloc.id", "alloc-1"}, {"pmix.job.term.status", "PMIX_ERROR"}}));
  EXPECT_GE(index_of_hop(run, "a#1", "controller>requestor:a:notify(PMIX_ERR_DVM_MOD)"), 0);
  EXPECT_LT(index_of_hop(run, "a#1", "controller>scheduler:notify(PMIX_ERR_DVM_MOD)"), 0);
  // The job held behind the fence never launches, on any node (PRRTE's abort of the held
  // jobs), and n01's daemon, started by the same change, is sent away (its rollback).
  EXPECT_TRUE(launches(run, "a#1").empty());
  EXPECT_TRUE(events(run, "job.launch_failed").empty());
  EXPECT_GE(index_of_hop(run, "", "controller>daemon:n01:daemon_shutdown"), 0);
  const auto end = events(run, "job.end", "a#1");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["status"], "PMIX_ERR_JOB_FAILED_TO_LAUNCH");
  // Reclaimed, and COMPLETE carries the job's status.
  bool complete = false;
  for (const auto& e : run.events) {
    if (ev_of(e) != "send" || e["msg"] != "session_ctrl" || e.value("corr", "") != "a#1" || e["who"] != "controller")
      continue;
    const json d = info_of(e, "directives");
    if (!d.contains("pmix.ssn.complete")) continue;
    complete = true;
    EXPECT_EQ(d["pmix.job.arr"],
              (json::array({json::array({"pmix.nspace", "job-1.1"}),
                            json::array({"pmix.job.term.status", "PMIX_ERR_JOB_FAILED_TO_LAUNCH"})})));
  }
  EXPECT_TRUE(complete);
  // The next session on the nodes starts fresh daemons there and runs.
  EXPECT_EQ(daemons_started(run, 10, 100), (std::vector<std::string>{"n01", "n02"}));
  EXPECT_EQ(launches(run, "b#1"), (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 8}}));
  EXPECT_EQ(only(run, "job.end", "b#1").value("status", ""), "PMIX_SUCCESS");
}

TEST_P(Failures, ANodeThatDiesWhileASessionRuns) {
  const ScenarioRun run = simulate("fail-node-down.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "a#1", "pmix.alloc.nlist"), "n01:8,n02:8");
  const auto fail = events(run, "node.fail");
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_EQ(fail[0]["node"], "n02");
  const auto down = events(run, "node.down");
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0]["code"], "PMIX_EVENT_NODE_DOWN");
  // The job with ranks there ends aborted by the system event; its other ranks are killed.
  const auto end = events(run, "job.end", "a#1");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["status"], "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT");
  EXPECT_NEAR(end[0]["t"].get<double>(), 5.0, 0.01);
  bool killed_n01 = false;
  for (const auto& e : run.events)
    killed_n01 = killed_n01 || (ev_of(e) == "send" && e["msg"] == "kill_procs" && e["to"] == "daemon:n01" &&
                                e["reason"] == "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT");
  EXPECT_TRUE(killed_n01);
  bool complete = false;
  for (const auto& e : run.events) {
    if (ev_of(e) != "send" || e["msg"] != "session_ctrl" || e.value("corr", "") != "a#1" || e["who"] != "controller")
      continue;
    const json d = info_of(e, "directives");
    if (!d.contains("pmix.ssn.complete")) continue;
    complete = true;
    EXPECT_EQ(d["pmix.job.arr"][1], json::array({"pmix.job.term.status", "PMIX_ERR_JOB_TERM_WO_SYNC"}));
  }
  EXPECT_TRUE(complete);
  // PMIX_EVENT_NODE_DOWN reaches the scheduler, which removes the node from its pool...
  const long notified = first_index(run, [](const json& e) {
    return ev_of(e) == "recv" && e["who"] == "scheduler" && e["msg"] == "notify" && e["code"] == "PMIX_EVENT_NODE_DOWN";
  });
  ASSERT_GE(notified, 0);
  EXPECT_EQ(info_of(run.events[static_cast<std::size_t>(notified)]), (json{{"pmix.hname", "n02"}}));
  const auto removed = events(run, "node.removed");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0]["node"], "n02");
  EXPECT_GT(first_index(run, [](const json& e) { return ev_of(e) == "node.removed"; }), notified);
  // ...and never grants it again: the whole machine is no longer there; seven nodes are.
  EXPECT_EQ(status(run, "b#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_EQ(status(run, "c#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "c#1", "pmix.alloc.nlist"), "n01:8,n03:8,n04:8,n05:8,n06:8,n07:8,n08:8");
  for (const auto& g : events(run, "alloc.grant")) {
    if (g["t"].get<double>() > 5.0) {
      EXPECT_EQ(g["node_list"].get<std::string>().find("n02"), std::string::npos) << g.dump();
    }
  }
}

}  // namespace
}  // namespace pmixflow::test::alloc_conformance
