// Conformance, FLOW.md §2 and §6: a standalone DVM serving requests itself, and a DVM that is
// not the allocation (allocated nodes stay unusable until their daemons are activated).
#include "conformance_alloc_support.hpp"

namespace pmixflow::test::alloc_conformance {
namespace {

PMIXFLOW_SCENARIO_SUITE(DvmVersusAllocation, AllocConformance);
PMIXFLOW_SCENARIO_SUITE(Standalone, AllocConformance);

// ------------------------------------------------------------------ §2: the standalone DVM

TEST_P(Standalone, ServesAsPrrtesRasHosts) {
  const ScenarioRun run = simulate("standalone-serve.jsonl");
  for (const char* corr : {"a#1", "a#2", "b#1", "c#1"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  EXPECT_EQ(status(run, "d#1"), "PMIX_ERR_BAD_PARAM");
  // The controller decides each request itself; nothing goes to a scheduler.
  for (const char* corr : {"a#1", "b#1", "c#1", "d#1"}) {
    ASSERT_EQ(events(run, "alloc.standalone", corr).size(), 1u) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  // Answered at once; a, the reservation's requestor, then hears that the DVM has grown.
  EXPECT_EQ(hops(run, "a#1"), (std::vector<std::string>{
                                  "requestor:a>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>requestor:a:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:a:notify(PMIX_DVM_IS_READY)",
                              }));
  EXPECT_EQ(hops(run, "b#1"), (std::vector<std::string>{
                                  "requestor:b>daemon:n01:alloc_request(PMIX_ALLOC_NEW)",
                                  "daemon:n01>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>daemon:n01:alloc_response(PMIX_SUCCESS)",
                                  "daemon:n01>requestor:b:alloc_response(PMIX_SUCCESS)",
                              }));
  // Reservations made by the controller: of the nodes named, else of nothing.
  const auto inst = events(run, "session.instantiate");
  ASSERT_EQ(inst.size(), 3u);
  for (const auto& e : inst) EXPECT_EQ(e["by"], "controller");
  EXPECT_EQ(inst[0]["node_list"], "n01:8,n02:8");
  EXPECT_EQ(inst[1]["node_list"], "");
  EXPECT_EQ(inst[2]["node_list"], "");
  EXPECT_EQ(answer_info(run, "a#1", "pmix.alloc.id"), "a.1");
  EXPECT_TRUE(answer_info(run, "a#1", "pmix.alloc.nlist").is_null());  // the answer names no nodes
  EXPECT_EQ(answer_info(run, "b#1", "pmix.alloc.id"), "b.2");
  // The spawn naming a's reservation runs there, and only there.
  EXPECT_EQ(launches(run, "a#2"), (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 4}}));
  EXPECT_EQ(only(run, "job.end", "a#2").value("status", ""), "PMIX_SUCCESS");
  EXPECT_TRUE(events(run, "job.launch", "c#1").empty());  // the request's own app is not launched
}

TEST_P(Standalone, RefusesWithoutASchedulerWhenConfiguredTo) {
  const ScenarioRun run = simulate("refuse-without-scheduler.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_ERR_NOT_SUPPORTED");
  EXPECT_EQ(hops(run, "r#1"), (std::vector<std::string>{
                                  "requestor:r>controller:alloc_request(PMIX_ALLOC_NEW)",
                                  "controller>requestor:r:alloc_response(PMIX_ERR_NOT_SUPPORTED)",
                              }));
  EXPECT_EQ(events(run, "request.refused", "r#1").size(), 1u);
  EXPECT_TRUE(events(run, "alloc.standalone").empty());  // not served by the RM itself
  EXPECT_TRUE(events(run, "request.held").empty());      // nor held
  EXPECT_TRUE(events(run, "session.instantiate").empty());
}

TEST_P(Standalone, ReleaseIsServedByTheController) {
  const ScenarioRun run = simulate("standalone-release.jsonl");
  EXPECT_EQ(status(run, "a#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "b#1"), "PMIX_ERR_NO_PERMISSIONS");
  EXPECT_EQ(status(run, "a#2"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "a#3"), "PMIX_ERR_NOT_FOUND");
  EXPECT_EQ(status(run, "c#1"), "PMIX_SUCCESS");
  for (const char* corr : {"a#1", "b#1", "a#2", "a#3"}) {
    EXPECT_EQ(events(run, "alloc.standalone", corr).size(), 1u) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  EXPECT_EQ(hops(run, "a#2"), (std::vector<std::string>{
                                  "requestor:a>controller:alloc_request(PMIX_ALLOC_RELEASE)",
                                  "controller>requestor:a:alloc_response(PMIX_SUCCESS)",
                              }));
  // Released: reclaimed into the DVM pool before the owner hears so; the refused release
  // changed nothing.
  const auto reclaimed = events(run, "session.reclaimed");
  ASSERT_EQ(reclaimed.size(), 1u);
  EXPECT_EQ(reclaimed[0]["alloc"], "a.1");
  EXPECT_EQ(reclaimed[0]["nodes_to"], "scheduler");  // returned, whatever the inheritance
  EXPECT_GT(reclaimed[0]["t"].get<double>(), answered(run, "b#1"));
  EXPECT_LT(index_of(run, "session.reclaimed"),
            index_of_hop(run, "a#2", "controller>requestor:a:alloc_response(PMIX_SUCCESS)"));
  // Their daemons were told to leave (prte_ras_base_teardown_reservation()): c's reservation of
  // the same nodes grows the DVM over them again.
  std::size_t shutdowns = 0;
  for (const auto& e : events(run, "send")) shutdowns += e.value("msg", "") == "daemon_shutdown";
  EXPECT_EQ(shutdowns, 2u);
  EXPECT_EQ(only(run, "dvm.grow", "c#1")["num_daemons"], 2);
}

TEST_P(Standalone, AReleaseByNodeListShrinksTheDvm) {
  const ScenarioRun run = simulate("standalone-shrink.jsonl");
  EXPECT_EQ(status(run, "c#1"), "PMIX_ERR_NOT_FOUND");  // no node list
  EXPECT_EQ(status(run, "c#2"), "PMIX_ERR_NOT_FOUND");  // a node not in the pool
  EXPECT_EQ(status(run, "c#3"), "PMIX_ERR_BAD_PARAM");
  EXPECT_EQ(status(run, "c#4"), "PMIX_ERR_BAD_PARAM");
  for (const char* corr : {"c#1", "c#2", "c#3", "c#4"}) EXPECT_TRUE(events(run, "dvm.shrink", corr).empty()) << corr;
  // Two phases: answered on acceptance, then the caller alone hears that the DVM changed.
  EXPECT_EQ(hops(run, "c#5"), (std::vector<std::string>{
                                  "requestor:c>controller:alloc_request(PMIX_ALLOC_RELEASE)",
                                  "controller>requestor:c:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:c:notify(PMIX_DVM_IS_READY)",
                              }));
  // c#5 sent n01's daemon away (not head's, the controller's own), c#7 n02's; c#6 named n01
  // again, without a daemon by then: no change.
  std::vector<std::string> shutdowns;
  for (const auto& e : events(run, "send"))
    if (e.value("msg", "") == "daemon_shutdown") shutdowns.push_back(e.value("to", ""));
  EXPECT_EQ(shutdowns, (std::vector<std::string>{"daemon:n01", "daemon:n02"}));
  EXPECT_EQ(hops(run, "c#6"), (std::vector<std::string>{
                                  "requestor:c>controller:alloc_request(PMIX_ALLOC_RELEASE)",
                                  "controller>requestor:c:alloc_response(PMIX_SUCCESS)",
                              }));
  // a's job ran on n01 and n02: it ends, cleanly, when its last node leaves.
  const auto end = only(run, "job.end", "a#2");
  EXPECT_EQ(end.value("status", ""), "PMIX_SUCCESS");
  EXPECT_DOUBLE_EQ(end["t"].get<double>(), only(run, "dvm.shrink", "c#7")["t"].get<double>());
}

// ------------------------------------------------------------------ §6: the DVM versus the allocation

TEST_P(DvmVersusAllocation, HostNarrowedDvmLeavesAllocatedNodesUnusableUntilActivated) {
  const ScenarioRun run = simulate("dvm-host-narrowed.jsonl");
  // --host n01,n02: two daemons at start-up, on eight allocated nodes.
  const auto start = events(run, "dvm.grow", "dvm-start");
  ASSERT_EQ(start.size(), 1u);
  EXPECT_EQ(start[0]["num_daemons"], 2);
  EXPECT_EQ(daemons_started(run, 0, 0.5), (std::vector<std::string>{"n01", "n02"}));
  // FLOW.md 6 and 8: the other nodes are allocated and not in the DVM, and the log says so.
  std::set<std::string> logged_without_daemon;
  for (const auto& e : run.events)
    if (ev_of(e) == "node" && e["t"].get<double>() < 0.5 && e["daemon"] == "none")
      logged_without_daemon.insert(e["node"].get<std::string>());
  EXPECT_EQ(logged_without_daemon, (std::set<std::string>{"n03", "n04", "n05", "n06", "n07", "n08"}))
      << "the event log does not show the allocated nodes that have no daemon (FLOW.md 8: every node, allocated or "
         "not, in the DVM or not)";
  // Unusable: 24 ranks do not fit the 16 slots of the DVM.
  EXPECT_EQ(status(run, "s#1"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_TRUE(launches(run, "s#1").empty());
  // Usable once activated, with no scheduler involved.
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  expect_no_scheduler_decision(run, "u#1");
  EXPECT_EQ(daemons_started(run, 1.5, 3), (std::vector<std::string>{"n03", "n04", "n05", "n06", "n07", "n08"}));
  EXPECT_EQ(status(run, "s#2"), "PMIX_SUCCESS");
  EXPECT_EQ(launches(run, "s#2"),
            (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 8}, {"daemon:n03", 8}}));
}

TEST_P(DvmVersusAllocation, ReleasedReservationHandsNodesBackWithoutDaemonsUntilActivated) {
  const ScenarioRun run = simulate("dvm-released-reservation.jsonl");
  for (const char* corr : {"r#1", "r#2", "r#4", "r#5"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  EXPECT_EQ(answer_info(run, "r#1", "pmix.alloc.nlist"), "n01:8,n02:8");
  // Released with inheritance NONE: the nodes go back to the scheduler and their daemons away.
  const auto reclaimed = events(run, "session.reclaimed");
  ASSERT_EQ(reclaimed.size(), 1u);
  EXPECT_EQ(reclaimed[0]["nodes_to"], "scheduler");
  std::set<std::string> shut, exited;
  for (const auto& e : run.events) {
    if (ev_of(e) == "send" && e["msg"] == "daemon_shutdown") shut.insert(e["to"].get<std::string>());
    if (ev_of(e) == "daemon.exit") exited.insert(e["who"].get<std::string>());
  }
  EXPECT_EQ(shut, (std::set<std::string>{"daemon:n01", "daemon:n02"}));
  EXPECT_EQ(exited, (std::set<std::string>{"daemon:n01", "daemon:n02"}));
  for (const char* n : {"n01", "n02"}) {
    const long gone =
        first_index(run, [&](const json& e) { return ev_of(e) == "node" && e["node"] == n && e["daemon"] == "none"; });
    EXPECT_GE(gone, 0) << n;
    EXPECT_LT(gone, index_of(run, "answer", "r#2")) << n;
  }
  // Without daemons the DVM no longer spans them: a whole-machine job does not fit.
  EXPECT_EQ(status(run, "r#3"), "PMIX_ERR_OUT_OF_RESOURCE");
  EXPECT_TRUE(launches(run, "r#3").empty());
  // ACTIVATE brings them back, answered locally; the DVM is whole again.
  expect_no_scheduler_decision(run, "r#4");
  EXPECT_EQ(daemons_started(run, 5.5, 7), (std::vector<std::string>{"n01", "n02"}));
  // r hears two events: its session's nodes spanned (r#1, the requestor the scheduler named),
  // then its activation's daemons up (r#4).
  const auto got = received(run, "r");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["code"], "PMIX_DVM_IS_READY");
  EXPECT_LT(got[0]["t"].get<double>(), answered(run, "r#2"));
  EXPECT_EQ(got[1]["code"], "PMIX_DVM_IS_READY");
  EXPECT_GT(got[1]["t"].get<double>(), answered(run, "r#4"));
  std::map<std::string, int> whole;
  for (const auto& n : kAllCompute) whole["daemon:" + n] = 8;
  EXPECT_EQ(launches(run, "r#5"), whole);
}

TEST_P(DvmVersusAllocation, InstantiationOnNodesWithoutDaemonsGrowsTheDvm) {
  const ScenarioRun run = simulate("session-lifecycle.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_SUCCESS");
  const auto grow = events(run, "dvm.grow", "r#1");
  ASSERT_EQ(grow.size(), 1u);
  EXPECT_EQ(grow[0]["num_daemons"], 2);
  EXPECT_EQ(grow[0]["alloc"], "alloc-1");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n01", "n02"}));
  // The session's job waits for the new daemons: fenced, then launched by the ready event.
  const long fenced = index_of(run, "job.fenced", "r#1");
  long last_up = -1;
  for (std::size_t i = 0; i < run.events.size(); ++i)
    if (ev_of(run.events[i]) == "daemon.up") last_up = static_cast<long>(i);
  const long ready = index_of(run, "dvm.ready", "r#1");
  const long launch = index_of(run, "job.launch", "r#1");
  ASSERT_GE(fenced, 0);
  EXPECT_LT(index_of(run, "session.instantiate", "r#1"), fenced);
  EXPECT_LT(fenced, last_up);
  EXPECT_LT(last_up, ready);
  EXPECT_LT(ready, launch);
  EXPECT_EQ(info_of(run.events[static_cast<std::size_t>(ready)]), (json{{"pmix.alloc.id", "alloc-1"}}));
  EXPECT_EQ(run.events[static_cast<std::size_t>(ready)]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(launches(run, "r#1"), (std::map<std::string, int>{{"daemon:n01", 8}, {"daemon:n02", 8}}));
}

}  // namespace
}  // namespace pmixflow::test::alloc_conformance
