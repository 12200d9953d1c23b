// PMIX_ALLOC_ACTIVATE (FLOW.md §5): the controller, not the scheduler, grows the DVM onto
// allocated nodes, and jobs wait behind the fence until the change is done.
#include <cstdio>
#include <fstream>

#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

// ---------------------------------------------------------------- PMIX_ALLOC_ACTIVATE (FLOW.md §5)

TEST_F(ControllerTest, ActivateIsAnsweredByTheControllerNotTheScheduler) {
  attach();
  activate(5, "n03,n04");
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));  // nothing to the scheduler
  EXPECT_EQ(answer.id, 5u);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.corr, "act#5");
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{3, 4}));
  EXPECT_EQ(env.count_events("activate", {"\"num_nodes\":2", "\"num_starting\":2"}), 1u);
  EXPECT_EQ(ctl->session_count(), 0u);  // nothing is added to any allocation

  daemons_ready({3});
  EXPECT_TRUE(env.take_sent().empty());  // granted, but the DVM is not ready yet
  daemons_ready({4});
  const auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  // Whoever asked hears it, and only they: not the scheduler (PRRTE's dvm_mod_notify()).
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::requestor(1));
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
  EXPECT_EQ(notes[0].second.corr, "act#5");
  EXPECT_EQ(sent.size(), 1u);
  EXPECT_EQ(ctl->daemon_state(4), DaemonState::Up);
}

TEST_F(ControllerTest, ActivateSelectsByIndexOrTakesAll) {
  attach();
  activate(5, "+n1");  // counting allocated nodes from zero: n01 is +n0
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2}));
  daemons_ready({2});
  env.take_sent();
  activate(6, "+all");  // every allocated node not in the DVM
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2, 1, 3, 4}));
  EXPECT_EQ(ctl->daemon_state(Cluster::kHead), DaemonState::Up);
}

TEST_F(ControllerTest, ActivatingNodesAlreadyInTheDvmIsSatisfied) {
  scheduled_dvm({1, 2, 3, 4});
  for (std::string host : {"n01", "+all"}) {
    SCOPED_TRACE(host);
    activate(5, host);
    env.advance(0);
    const auto sent = env.take_sent();
    ASSERT_EQ(sent.size(), 2u);
    // Granted (not refused), and then still reported ready, to whoever asked.
    ASSERT_TRUE(std::holds_alternative<AllocResponse>(sent[0].msg));
    EXPECT_EQ(sent[0].to, Address::requestor(1));
    EXPECT_EQ(std::get<AllocResponse>(sent[0].msg).status, Status::Success);
    ASSERT_TRUE(std::holds_alternative<Notification>(sent[1].msg));
    EXPECT_EQ(sent[1].to, Address::requestor(1));
    EXPECT_EQ(std::get<Notification>(sent[1].msg).code, Status::DvmIsReady);
  }
  EXPECT_EQ(env.daemons_started().size(), 4u);  // nothing new started
}

TEST_F(ControllerTest, ActivateRefusesSlotCountsEmptyNodesAndForeignNodes) {
  attach();
  for (std::string host : {"n01:2", "+e", "+e:1", "head", "n99", "+n9"}) {
    SCOPED_TRACE(host);
    activate(5, host);
    const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
    EXPECT_EQ(answer.id, 5u);
    EXPECT_EQ(answer.status, Status::ErrBadParam);
  }
  EXPECT_EQ(env.count_events("activate.refused"), 6u);
  activate(6, "");  // neither PMIX_HOST nor PMIX_HOSTFILE
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, ActivateReadsAHostfileIgnoringItsSlots) {
  attach();
  const std::string dir = ::testing::TempDir();
  const std::string names = dir + "/pmixflow_activate_names";
  const std::string exclude = dir + "/pmixflow_activate_exclude";
  {
    std::ofstream(names) << "# nodes to activate\nn02 slots=4\nn03\n";
    std::ofstream(exclude) << "^n04\n";
  }
  activate(5, "", with({}, key::HOSTFILE, names));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2, 3}));
  // PMIX_HOST and PMIX_HOSTFILE together: the file's ^n04 drops n04 from the file's own list
  // only, so +all still takes it (PRRTE's prte_util_add_hostfile_nodes(), conformance row R62).
  activate(6, "+all", with({}, key::HOSTFILE, exclude));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{2, 3, 1, 4}));
  EXPECT_EQ(ctl->daemon_state(4), DaemonState::Starting);
  std::remove(names.c_str());
  std::remove(exclude.c_str());
}

TEST_F(ControllerTest, ActivateWithinANamedAllocation) {
  attach();
  from_scheduler(1, 1, owned(instantiate("n01:8,n02:8", "alloc-1"), kTool));
  daemons_ready({1});
  ctl->handle(Address::daemon(2), DaemonStartFailed{2});
  env.take_sent();
  ASSERT_EQ(ctl->daemon_state(2), DaemonState::Failed);

  activate(5, "n02", with({}, key::ALLOC_ID, std::string("alloc-9")));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNotFound);
  activate(6, "n02", with({}, key::ALLOC_ID, std::string("alloc-1")), kMallory);
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrNoPermissions);
  activate(7, "n03", with({}, key::ALLOC_ID, std::string("alloc-1")));  // not in that allocation
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));

  // The owner brings the allocation's lost node back into the DVM.
  activate(8, "+all", with(with({}, key::ALLOC_ID, std::string("alloc-1")), key::ALLOC_REQ_ID, std::string("again")));
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(answer.status, Status::Success);
  ASSERT_NE(answer.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*answer.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  // n01's daemon left with the failed change (PRRTE's grow_rollback()): it starts again too.
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2, 1, 2}));
  daemons_ready({1, 2});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 1u);
  for (const auto& [to, n] : notes) {
    EXPECT_EQ(to, Address::requestor(1));
    EXPECT_EQ(n.code, Status::DvmIsReady);
    ASSERT_NE(n.info.get<std::string>(key::ALLOC_ID), nullptr);
    EXPECT_EQ(*n.info.get<std::string>(key::ALLOC_ID), "alloc-1");
    ASSERT_NE(n.info.get<std::string>(key::ALLOC_REQ_ID), nullptr);
    EXPECT_EQ(*n.info.get<std::string>(key::ALLOC_REQ_ID), "again");
  }
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, ADaemonThatFailsDuringAnActivationIsReportedAsADvmModError) {
  attach();
  activate(5, "n03");
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::Success);  // granted
  ctl->handle(Address::daemon(3), DaemonStartFailed{3});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::requestor(1));
  EXPECT_EQ(notes[0].second.code, Status::ErrDvmMod);
  // The cause, as PRRTE's prte_plm_base_dvm_mod_notify() gives it: the generic PMIX_ERROR.
  for (const auto& [to, n] : notes) {
    ASSERT_NE(n.info.get<Status>(key::JOB_TERM_STATUS), nullptr);
    EXPECT_EQ(*n.info.get<Status>(key::JOB_TERM_STATUS), Status::Error);
  }
}

TEST_F(ControllerTest, JobsWaitBehindTheFenceWhileAnActivationGrowsTheDvm) {
  scheduled_dvm({1});
  activate(5, "n03");
  env.take_sent();
  from_scheduler(6, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 5)}));  // n01 is up, but the DVM is changing
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("job.fenced"), 1u);
  daemons_ready({3});
  const auto launch = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0].first, Address::daemon(1));
  EXPECT_EQ(launch[0].second.session_id, 1u);
}

TEST_F(ControllerTest, AnActivationRelayedByADaemonIsAnsweredAndReportedThroughIt) {
  attach();
  ctl->handle(Address::daemon(2),
              AllocRequest{9, Directive::Activate, with({}, key::HOST, std::string("n04")), Proc{"app", 1}, "app#1"});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(answer.id, 9u);
  EXPECT_EQ(answer.status, Status::Success);
  daemons_ready({4});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::daemon(2));
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
}

// ---------------------------------------------------------------- who hears of a DVM change (R41, D43)

TEST_F(ControllerTest, TheInitialBringUpIsToldToNobody) {
  make(ControllerConfig{true, NoSchedulerMode::Hold, {1, 2}});
  attach();
  daemons_ready({1, 2});
  EXPECT_TRUE(all_of<Notification>(env.take_sent()).empty());
  EXPECT_EQ(env.count_events("dvm.ready", {"\"corr\":\"dvm-start\""}), 1u);
}

TEST_F(ControllerTest, ASessionsGrowIsToldToItsRequestorWhenConnectedHere) {
  attach();
  // The requestor has called the controller itself: it is one of its clients.
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, kTool, "t#1"});
  env.take_sent();
  from_scheduler(6, 1, owned(instantiate("n02:8", "alloc-1"), kTool));
  env.take_sent();
  daemons_ready({2});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 1u);  // not the scheduler: it named a requestor
  EXPECT_EQ(notes[0].first, Address::requestor(1));
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
  ASSERT_NE(notes[0].second.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*notes[0].second.info.get<std::string>(key::ALLOC_ID), "alloc-1");
}

TEST_F(ControllerTest, ARequestorConnectedElsewhereHearsNothing) {
  attach();
  from_scheduler(6, 1, owned(instantiate("n02:8", "alloc-1"), kMallory));  // never called the controller
  env.take_sent();
  daemons_ready({2});
  EXPECT_TRUE(all_of<Notification>(env.take_sent()).empty());
  EXPECT_EQ(env.count_events("dvm.ready", {"\"requestor\":\"mallory.0\""}), 1u);
}

TEST_F(ControllerTest, TheEventGoesToTheProcessNotToAConnectionThatOnceCarriedIt) {
  attach();
  // One connection first calls as the tool, then as mallory (a tool that took over its socket):
  // the tool is no longer connected here, and its session's change reaches nobody.
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, {}, kTool, "t#1"});
  ctl->handle(Address::requestor(1), AllocRequest{6, Directive::New, {}, kMallory, "m#1"});
  env.take_sent();
  from_scheduler(7, 1, owned(instantiate("n02:8", "alloc-1"), kTool));
  env.take_sent();
  daemons_ready({2});
  EXPECT_TRUE(all_of<Notification>(env.take_sent()).empty());
  // mallory's own session's change does reach it, through that connection.
  from_scheduler(8, 2, owned(instantiate("n03:8", "alloc-2"), kMallory));
  env.take_sent();
  daemons_ready({3});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::requestor(1));
}

TEST_F(ControllerTest, AnInstantiationNamingNoRequestorIsToldToTheScheduler) {
  attach();
  from_scheduler(6, 1, instantiate("n02:8", "alloc-1"));
  env.take_sent();
  daemons_ready({2});
  const auto notes = all_of<Notification>(env.take_sent());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::scheduler());
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
