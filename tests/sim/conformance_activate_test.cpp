// Conformance, FLOW.md §5: PMIX_ALLOC_ACTIVATE is answered by the controller, never the
// scheduler, however the nodes are named, and the ready event ends the DVM change.
#include "conformance_alloc_support.hpp"

namespace pmixflow::test::alloc_conformance {
namespace {

PMIXFLOW_SCENARIO_SUITE(Activate, AllocConformance);

// ------------------------------------------------------------------ §5: PMIX_ALLOC_ACTIVATE

TEST_P(Activate, AnsweredByTheControllerNotTheScheduler) {
  const ScenarioRun run = simulate("activate-local.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "v#1"), "PMIX_SUCCESS");
  EXPECT_FALSE(events(run, "scheduler.attached").empty());  // a scheduler is there, and is not asked
  // At the controller: answered there; only the caller hears of the DVM's new size.
  EXPECT_EQ(hops(run, "u#1"), (std::vector<std::string>{
                                  "requestor:u>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:u:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:u:notify(PMIX_DVM_IS_READY)",
                              }));
  // Through a daemon: relayed to the controller, answered by it, back through the daemon.
  EXPECT_EQ(hops(run, "v#1"), (std::vector<std::string>{
                                  "requestor:v>daemon:n01:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "daemon:n01>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>daemon:n01:alloc_response(PMIX_SUCCESS)",
                                  "daemon:n01>requestor:v:alloc_response(PMIX_SUCCESS)",
                                  "controller>daemon:n01:notify(PMIX_DVM_IS_READY)",
                                  "daemon:n01>requestor:v:notify(PMIX_DVM_IS_READY)",
                              }));
  expect_no_scheduler_decision(run, "u#1");
  expect_no_scheduler_decision(run, "v#1");
  EXPECT_TRUE(events(run, "request.forward").empty());
  EXPECT_EQ(daemons_started(run, 0.5, 1.5), (std::vector<std::string>{"n03"}));
  EXPECT_EQ(daemons_started(run, 1.5, 100), (std::vector<std::string>{"n04"}));
}

TEST_P(Activate, GrantedWithNoSchedulerAttached) {
  const ScenarioRun run = simulate("activate-without-scheduler.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_ERR_NOT_SUPPORTED");  // a NEW needs the scheduler: refused
  EXPECT_EQ(status(run, "r#2"), "PMIX_SUCCESS");            // an ACTIVATE does not
  EXPECT_EQ(events(run, "request.refused", "r#1").size(), 1u);
  EXPECT_TRUE(events(run, "request.refused", "r#2").empty());
  EXPECT_EQ(hops(run, "r#2"), (std::vector<std::string>{
                                  "requestor:r>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:r:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:r:notify(PMIX_DVM_IS_READY)",
                              }));
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03"}));
}

TEST_P(Activate, ServedWhereTheSchedulerOwnsTheAllocation) {
  const ScenarioRun run = simulate("activate-scheduler-owned.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "r#2"), "PMIX_SUCCESS");
  // alloc-1 is the scheduler's: granted by it and instantiated on its order.
  const auto inst = events(run, "session.instantiate", "r#1");
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(inst[0]["by"], "scheduler");
  EXPECT_EQ(inst[0]["alloc"], "alloc-1");
  EXPECT_EQ(inst[0]["node_list"], "n01:8,n02:8");
  EXPECT_EQ(events(run, "alloc.grant", "r#1").size(), 1u);
  // n02 is allocated but outside the DVM: its daemon failed to start.
  const auto first = events(run, "dvm.ready", "r#1");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0]["code"], "PMIX_ERR_DVM_MOD");
  // The activation naming alloc-1 is answered by the controller; the scheduler decides nothing
  // and its allocation is unchanged (no EXTEND, no new session).
  EXPECT_EQ(hops(run, "r#2"), (std::vector<std::string>{
                                  "requestor:r>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:r:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:r:notify(PMIX_DVM_IS_READY)",
                              }));
  expect_no_scheduler_decision(run, "r#2");
  EXPECT_EQ(events(run, "session.instantiate").size(), 1u);
  EXPECT_TRUE(events(run, "session.extend").empty());
  const auto act = events(run, "activate", "r#2");
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(act[0]["alloc"], "alloc-1");
  EXPECT_EQ(act[0]["num_starting"], 1);
  EXPECT_EQ(daemons_started(run, 2, 100), (std::vector<std::string>{"n02"}));
  const auto up = first_index(run, [](const json& e) { return ev_of(e) == "daemon.up" && e["who"] == "daemon:n02"; });
  EXPECT_GT(up, index_of(run, "activate", "r#2"));
  EXPECT_EQ(answer_info(run, "r#2", "pmix.alloc.id"), "alloc-1");
}

TEST_P(Activate, HostfileNamesTheNodes) {
  const ScenarioRun run = simulate("activate-hostfile.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  // PMIX_HOSTFILE alone: its two names.
  EXPECT_EQ(daemons_started(run, 0.5, 2), (std::vector<std::string>{"n03", "n04"}));
  // PMIX_HOST and PMIX_HOSTFILE together: merged; the file's nodes are already up.
  const auto act = events(run, "activate", "u#2");
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(act[0]["num_nodes"], 3);
  EXPECT_EQ(act[0]["num_starting"], 1);
  EXPECT_EQ(daemons_started(run, 2, 100), (std::vector<std::string>{"n05"}));
  expect_no_scheduler_decision(run, "u#1");
  expect_no_scheduler_decision(run, "u#2");
}

TEST_P(Activate, AllMeansEveryAllocatedNodeNotInTheDvm) {
  const ScenarioRun run = simulate("activate-all.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  const auto grow = events(run, "dvm.grow", "u#1");
  ASSERT_EQ(grow.size(), 1u);
  EXPECT_EQ(grow[0]["num_daemons"], 6);
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n04", "n05", "n06", "n07", "n08"}));
  ASSERT_EQ(events(run, "dvm.ready", "u#1").size(), 1u);
  EXPECT_EQ(only(run, "dvm.ready", "u#1").value("code", ""), "PMIX_DVM_IS_READY");
}

TEST_P(Activate, RelativeNamesCountFromZero) {
  const ScenarioRun run = simulate("activate-relative.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n06"}));  // +n2, +n5
}

TEST_P(Activate, FileInsideTheHostListIsRead) {
  const ScenarioRun run = simulate("activate-file-in-host.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 0.5, 100), (std::vector<std::string>{"n03", "n04", "n05"}));
}

TEST_P(Activate, HostfileExclusionsWorkOnTheFilesOwnList) {
  const ScenarioRun run = simulate("activate-hostfile-exclude.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 0.5, 2),
            (std::vector<std::string>{"n03", "n04", "n05", "n06"}));  // n[03-08] less ^n07, ^n08
  // The file's ^n07 does not reach the n07 PMIX_HOST names (PRRTE: conformance row R62).
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  EXPECT_EQ(daemons_started(run, 2, 100), (std::vector<std::string>{"n07"}));
}

TEST_P(Activate, HostfileSlotCountsAreIgnored) {
  const ScenarioRun run = simulate("activate-hostfile-slots.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");  // not refused as :N would be
  EXPECT_TRUE(events(run, "activate.refused").empty());
  EXPECT_EQ(daemons_started(run, 0.5, 2), (std::vector<std::string>{"n03", "n04"}));
  // The nodes kept their 8 slots each (the file says 2 and 4): 16 ranks fit on the two.
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  EXPECT_EQ(launches(run, "u#2"), (std::map<std::string, int>{{"daemon:n03", 8}, {"daemon:n04", 8}}));
}

TEST_P(Activate, SlotCountsAndEmptyNodesAreRefused) {
  const ScenarioRun run = simulate("activate-refused.jsonl");
  const std::vector<std::pair<std::string, std::string>> cases{{"u#1", "':N' is refused"},
                                                               {"u#2", "':N' is refused"},
                                                               {"u#3", "+e would pick"},
                                                               {"u#4", "+e would pick"},
                                                               {"u#5", "unknown host form '+x'"}};
  for (const auto& [corr, why] : cases) {
    EXPECT_EQ(status(run, corr), "PMIX_ERR_BAD_PARAM") << corr;
    const auto refused = events(run, "activate.refused", corr);
    ASSERT_EQ(refused.size(), 1u) << corr;
    EXPECT_NE(refused[0]["detail"].get<std::string>().find(why), std::string::npos)
        << corr << ": " << refused[0].dump();
    EXPECT_EQ(hops(run, corr), (std::vector<std::string>{
                                   "requestor:u>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                   "controller>requestor:u:alloc_response(PMIX_ERR_BAD_PARAM)",
                               }))
        << corr;
    EXPECT_TRUE(events(run, "dvm.grow", corr).empty()) << corr;
  }
  EXPECT_TRUE(daemons_started(run, 0.5, 100).empty());  // n03 named in three of them: never started
  EXPECT_TRUE(received(run, "u").empty());
}

TEST_P(Activate, AlreadyActiveIsSatisfied) {
  const ScenarioRun run = simulate("activate-already-active.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");  // nodes already in the DVM: not an error
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");  // +all with nothing left: satisfied, not refused
  for (const char* corr : {"u#1", "u#2"}) {
    const auto act = events(run, "activate", corr);
    ASSERT_EQ(act.size(), 1u) << corr;
    EXPECT_EQ(act[0]["num_starting"], 0) << corr;
    EXPECT_TRUE(events(run, "dvm.grow", corr).empty()) << corr;
    EXPECT_TRUE(events(run, "activate.refused", corr).empty()) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  EXPECT_TRUE(daemons_started(run, 0.5, 100).empty());
  // FLOW.md 5: "answered when it is granted; the daemons themselves are reported by the
  // PMIX_DVM_IS_READY event": the requestor hears the answer first, then the event.
  const auto got = received(run, "u");
  ASSERT_EQ(got.size(), 2u);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::string corr = "u#" + std::to_string(i + 1);
    EXPECT_EQ(got[i]["code"], "PMIX_DVM_IS_READY") << corr;
    const long answer = first_index(run, [&](const json& e) { return ev_of(e) == "answer" && e["corr"] == corr; });
    const long event = first_index(run, [&](const json& e) { return e == got[i]; });
    EXPECT_LT(answer, event) << corr << ": the ready event reached the requestor before the answer to its ACTIVATE";
  }
}

TEST_P(Activate, NodeOutsideTheAllocationIsAnError) {
  const ScenarioRun run = simulate("activate-outside-allocation.jsonl");
  EXPECT_EQ(status(run, "r#1"), "PMIX_SUCCESS");
  EXPECT_EQ(answer_info(run, "r#1", "pmix.alloc.nlist"), "n01:8");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"u#1", "node 'n99' is not in the allocation"},  // not in the machine
      {"u#2", "+n8 is out of range"},                  // past the last allocated node
      {"u#3", "node 'n99' is not in the allocation"},  // a good node with a bad one
      {"r#2", "node 'n05' is not in the allocation"},  // in the machine, not in alloc-1
  };
  for (const auto& [corr, why] : cases) {
    EXPECT_EQ(status(run, corr), "PMIX_ERR_BAD_PARAM") << corr;
    const auto refused = events(run, "activate.refused", corr);
    ASSERT_EQ(refused.size(), 1u) << corr;
    EXPECT_NE(refused[0]["detail"].get<std::string>().find(why), std::string::npos)
        << corr << ": " << refused[0].dump();
    EXPECT_TRUE(events(run, "dvm.grow", corr).empty()) << corr;
    expect_no_scheduler_decision(run, corr);
  }
  // Nothing of a refused request is started: not n03 (u#3), not n05 (r#2).
  EXPECT_TRUE(daemons_started(run, 0.5, 100).empty());
}

TEST_P(Activate, AnsweredOnGrantThenTheReadyEventNamesTheAllocation) {
  const ScenarioRun run = simulate("activate-ready-event.jsonl");
  for (const char* corr : {"r#1", "r#2", "r#3"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  const auto all = received(run, "r");
  ASSERT_EQ(all.size(), 3u);
  // r is the requestor of alloc-1's session too: it hears that its grow failed (n02, n03).
  EXPECT_EQ(all[0]["code"], "PMIX_ERR_DVM_MOD");
  EXPECT_EQ(info_of(all[0]), (json{{"pmix.alloc.id", "alloc-1"}, {"pmix.job.term.status", "PMIX_ERROR"}}));
  const std::vector<json> got(all.begin() + 1, all.end());
  // r#2 carried PMIX_ALLOC_REQ_ID: the event names the allocation and the request.
  EXPECT_EQ(got[0]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(info_of(got[0]), (json{{"pmix.alloc.id", "alloc-1"}, {"pmix.alloc.reqid", "act-n02"}}));
  // r#3 had no request id: the allocation only.
  EXPECT_EQ(got[1]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(info_of(got[1]), (json{{"pmix.alloc.id", "alloc-1"}}));
  // Answered on grant, before the daemon is up; the event follows once it has reported in.
  const double up_n02 = [&] {
    for (const auto& e : events(run, "daemon.up"))
      if (e["who"] == "daemon:n02") return e["t"].get<double>();
    return -1.0;
  }();
  ASSERT_GT(up_n02, 3.0);
  EXPECT_LT(answered(run, "r#2"), up_n02);
  EXPECT_GT(got[0]["t"].get<double>(), up_n02);
  EXPECT_LT(answered(run, "r#3"), got[1]["t"].get<double>());
  EXPECT_LT(index_of(run, "answer", "r#2"), first_index(run, [&](const json& e) { return e == got[0]; }));
  EXPECT_LT(index_of(run, "answer", "r#3"), first_index(run, [&](const json& e) { return e == got[1]; }));
  // The controller's own record of the change matches.
  const auto ready = events(run, "dvm.ready", "r#2");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(info_of(ready[0]), (json{{"pmix.alloc.id", "alloc-1"}, {"pmix.alloc.reqid", "act-n02"}}));
}

TEST_P(Activate, FailedDaemonStartEndsTheChangeWithDvmMod) {
  const ScenarioRun run = simulate("activate-dvm-mod.jsonl");
  EXPECT_EQ(status(run, "u#1"), "PMIX_SUCCESS");  // granted: the failure comes later, as the event
  EXPECT_EQ(status(run, "u#2"), "PMIX_SUCCESS");
  const auto failed =
      first_index(run, [](const json& e) { return ev_of(e) == "daemon.start_failed" && e["who"] == "daemon:n03"; });
  ASSERT_GE(failed, 0);
  const auto noticed = events(run, "daemon.failed");
  ASSERT_EQ(noticed.size(), 1u);
  EXPECT_EQ(noticed[0]["node"], "n03");
  const auto ready = events(run, "dvm.ready", "u#1");
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0]["code"], "PMIX_ERR_DVM_MOD");
  const auto got = received(run, "u");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["code"], "PMIX_ERR_DVM_MOD");
  EXPECT_GT(got[0]["t"].get<double>(), answered(run, "u#1"));
  EXPECT_EQ(hops(run, "u#1"), (std::vector<std::string>{
                                  "requestor:u>controller:alloc_request(PMIX_ALLOC_ACTIVATE)",
                                  "controller>requestor:u:alloc_response(PMIX_SUCCESS)",
                                  "controller>requestor:u:notify(PMIX_ERR_DVM_MOD)",
                              }));
  EXPECT_EQ(info_of(ready[0]), (json{{"pmix.alloc.id", "alloc-0"}, {"pmix.job.term.status", "PMIX_ERROR"}}));
  // n04 of the same request is sent away (PRRTE's grow_rollback()); n03, activated again,
  // comes up.
  EXPECT_GE(index_of_hop(run, "", "controller>daemon:n04:daemon_shutdown"), 0);
  std::set<std::string> up;
  for (const auto& e : events(run, "daemon.up")) up.insert(e["who"].get<std::string>());
  EXPECT_TRUE(up.count("daemon:n03"));
  EXPECT_EQ(got[1]["code"], "PMIX_DVM_IS_READY");
  EXPECT_EQ(only(run, "dvm.ready", "u#2").value("code", ""), "PMIX_DVM_IS_READY");
}

TEST_P(Activate, JobsSubmittedWhileTheDvmGrowsWaitForTheReadyEvent) {
  const ScenarioRun run = simulate("activate-launch-fence.jsonl");
  for (const char* corr : {"u#1", "s#1", "t#1"}) EXPECT_EQ(status(run, corr), "PMIX_SUCCESS") << corr;
  const long fenced = index_of(run, "job.fenced", "s#1");
  const long ready = index_of(run, "dvm.ready", "u#1");
  const long launch = index_of(run, "job.launch", "s#1");
  const long procs = first_index(run, [](const json& e) {
    return ev_of(e) == "send" && e["msg"] == "launch_procs" && e.value("corr", "") == "s#1";
  });
  ASSERT_GE(fenced, 0);
  ASSERT_GE(ready, 0);
  EXPECT_LT(fenced, ready);
  EXPECT_LT(ready, launch);
  EXPECT_LT(ready, procs);
  EXPECT_DOUBLE_EQ(run.events[static_cast<std::size_t>(launch)]["t"].get<double>(),
                   run.events[static_cast<std::size_t>(ready)]["t"].get<double>());  // released by the event itself
  // After the change, a new job is not fenced.
  EXPECT_TRUE(events(run, "job.fenced", "t#1").empty());
  EXPECT_EQ(events(run, "job.launch", "t#1").size(), 1u);
}

}  // namespace
}  // namespace pmixflow::test::alloc_conformance
