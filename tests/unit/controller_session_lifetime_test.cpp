// How long a session lives (FLOW.md §4): tied to its requestor or a job when PMIX_SESSION_SEP is
// false, never to a parent session, and what a spawn into it may use.
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

// ---------------------------------------------------------------- SEP, dependents, children

TEST_F(ControllerTest, SepFalseTiesASessionToItsRequestorsConnection) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});  // connects
  grant_forwarded(env.take_sent());
  const std::string ns = running_session(1, "n01:8", {1}, 8, {}, with(owned({}, kTool), key::SESSION_SEP, false));
  EXPECT_EQ(env.count_events("session.instantiate", {"\"sep\":false"}), 1u);
  ctl->handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  EXPECT_EQ(env.count_events("requestor.gone", {"tool.0"}), 1u);
  EXPECT_EQ(env.count_events("session.dependent_end"), 1u);
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(kill.nspace, ns);
  EXPECT_EQ(kill.reason, Status::ErrJobKilledByCmd);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
}

TEST_F(ControllerTest, ByDefaultASessionOutlivesItsRequestor) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  grant_forwarded(env.take_sent());
  running_session(1, "n01:8", {1}, 8, {}, owned({}, kTool));
  ASSERT_EQ(env.count_events("session.instantiate"), 1u);
  EXPECT_EQ(env.events_of("session.instantiate")[0].fields.find("\"sep\""), std::string::npos);  // the default
  ctl->handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, SepDetachesATiedSessionAloneOrBesideAnOperation) {
  attach();
  ctl->handle(Address::requestor(1), AllocRequest{5, Directive::New, cpus(8), kTool, "t#1"});
  ctl->handle(Address::requestor(2), AllocRequest{6, Directive::New, cpus(8), kMallory, "m#1"});
  grant_forwarded(env.take_sent());
  running_session(1, "n01:8", {1}, 8, {}, with(owned({}, kTool), key::SESSION_SEP, false));
  const std::string s2 = running_session(2, "n02:8", {2}, 8, {}, with(owned({}, kMallory), key::SESSION_SEP, false));

  from_scheduler(3, 1, with({}, key::SESSION_SEP, true));  // SEP alone is a valid request
  EXPECT_EQ(answer_to_scheduler(3).status, Status::Success);
  from_scheduler(4, 2, with(op(key::SESSION_PAUSE), key::SESSION_SEP, true));  // and may ride along
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, s2), (Signals{{2, kSigStop}}));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(env.count_events("session.sep", {"\"sep\":true"}), 2u);

  ctl->handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  ctl->handle(Address::requestor(2), PeerLost{Address::requestor(2)});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 2u);
}

TEST_F(ControllerTest, ASessionTiedToAJobEndsWithThatJob) {
  scheduled_dvm({3});
  const std::string owner_job = spawned(spawn(9, 4, {}), {3});
  from_scheduler(1, 1, with(owned(instantiate("n01:8", "alloc-1"), Proc{owner_job, 0}), key::SESSION_SEP, false));
  daemons_ready({1});
  env.take_sent();
  ctl->handle(Address::daemon(3), ProcsEnded{owner_job, 3, Status::Success, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(env.count_events("session.dependent_end", {"\"owner_nspace\":\"" + owner_job + "\""}), 1u);
  EXPECT_EQ(ctl->session_count(), 0u);
}

// PRRTE links no session to another (docs/prrte-conformance.md J21): whatever FLOW.md and
// PRRTE's structures.rst say, a child outlives its parent, separated or not.
TEST_F(ControllerTest, ChildSessionsOutliveTheirParent) {
  attach();
  const std::string parent_job = running_session(1, "n01:8", {1}, 8);
  const Proc inside{parent_job, 3};  // a process of session 1's job asks for more
  from_scheduler(2, 2, owned(instantiate("n02:2", "alloc-2"), inside));
  from_scheduler(3, 3, with(owned(instantiate("n02:2", "alloc-3"), inside), key::ALLOC_CHILD_SEP, true));
  from_scheduler(4, 4, with(owned(instantiate("n02:2", "alloc-4"), inside), key::SESSION_SEP, true));
  daemons_ready({2});
  env.take_sent();
  EXPECT_EQ(env.count_events("session.instantiate", {"\"parent\":1"}), 3u);  // still said, for the reader

  ctl->handle(Address::daemon(1), ProcsEnded{parent_job, 1, Status::Success, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(env.count_events("session.dependent_end"), 0u);
  EXPECT_EQ(ctl->session_count(), 3u);
  for (std::uint32_t child : {2u, 3u, 4u}) {
    from_scheduler(4 + child, child, op(key::SESSION_PAUSE));
    EXPECT_EQ(answer_to_scheduler(4 + child).status, Status::Success) << "session " << child;
  }
}

TEST_F(ControllerTest, ATerminatedParentLeavesItsChildsJobsRunning) {
  attach();
  const std::string parent_job = running_session(1, "n01:8", {1}, 8);
  const std::string child_job = running_session(2, "n02:8", {2}, 8, {}, owned({}, Proc{parent_job, 0}));
  from_scheduler(7, 1, op(key::SESSION_TERMINATE));
  const auto ordered = env.take_sent();
  const auto kills_parent = all_of<KillProcs>(ordered);
  ASSERT_EQ(kills_parent.size(), 1u);
  EXPECT_EQ(kills_parent[0].first, Address::daemon(1));
  EXPECT_EQ(kills_parent[0].second.nspace, parent_job);
  ASSERT_EQ(all_of<SessionCtrlResponse>(ordered).size(), 1u);  // answered at once
  ctl->handle(Address::daemon(1), ProcsEnded{parent_job, 1, Status::ErrJobKilledByCmd, 0});
  const auto sent = env.take_sent();
  EXPECT_EQ(completed_sessions(sent), (std::vector<std::uint32_t>{1}));
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());
  EXPECT_EQ(ctl->session_count(), 1u);
  ctl->handle(Address::daemon(2), ProcsEnded{child_job, 2, Status::Success, 0});
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ASessionTiedToAClientOfADaemonOrOfTheSchedulerEndsWhenThatClientIsLost) {
  attach();
  const std::string s1 =
      running_session(1, "n01:8", {1}, 8, {}, with(owned({}, Proc{"tool-a", 0}), key::SESSION_SEP, false));
  const std::string s2 =
      running_session(2, "n02:8", {2}, 8, {}, with(owned({}, Proc{"tool-b", 0}), key::SESSION_SEP, false));
  running_session(3, "n03:8", {3}, 8, {}, owned({}, Proc{"tool-a", 0}));  // default: detached
  InfoList lost_a;
  lost_a.add("pmix.procid", Proc{"tool-a", 0});
  ctl->handle(Address::daemon(4), Notification{Status::ErrLostConnection, lost_a, ""});  // a daemon's client went away
  EXPECT_EQ(env.count_events("requestor.gone", {"tool-a.0", "daemon:4"}), 1u);
  const auto kill_a = only<KillProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(kill_a.nspace, s1);
  InfoList lost_b;
  lost_b.add("pmix.procid", Proc{"tool-b", 0});
  ctl->handle(Address::scheduler(), Notification{Status::ErrLostConnection, lost_b, ""});  // a tool of the scheduler's
  EXPECT_EQ(only<KillProcs>(env.take_sent(), Address::daemon(2)).nspace, s2);
  // Other events name nobody to end.
  ctl->handle(Address::daemon(4), Notification{Status::DvmIsReady, lost_a, ""});
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(ControllerTest, OnlyTheSchedulerInstantiatesSessions) {
  from_requestor(1, 5, 7, instantiate("n01:8", "alloc-7"), kTool);  // no scheduler: refused, not decided here
  EXPECT_EQ(answer_to_requestor(1, 5).status, Status::ErrNoPermissions);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
  attach();
  from_requestor(1, 6, 7, instantiate("n01:8", "alloc-7"), kTool);  // with one: it decides
  const auto fwd = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(fwd.directives.flag(key::SESSION_INSTANTIATE));
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ASpawnIntoASessionUsesOnlyWhatItsRunningJobsLeaveFree) {
  attach();
  reservation(1, "n01:8,n02:4", {1, 2}, kTool);
  spawned(spawn(1, 6, in_session(1)), {1});
  ctl->handle(Address::requestor(1), spawn(2, 7, in_session(1)));  // 2 + 4 free
  EXPECT_EQ(only<SpawnResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  ctl->handle(Address::requestor(1), spawn(3, 6, in_session(1)));
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].first, Address::daemon(1));
  EXPECT_EQ(launches[0].second.local_procs, 2u);
  EXPECT_EQ(launches[1].first, Address::daemon(2));
  EXPECT_EQ(launches[1].second.local_procs, 4u);
  EXPECT_EQ(launches[1].second.first_rank, 2u);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
