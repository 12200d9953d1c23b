// The failures the controller must survive: a node lost under running jobs and a launch failing
// on some nodes, the other ranks killed and their slots freed.
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

// ---------------------------------------------------------------- a node lost

TEST_F(ControllerTest, ALostNodeAbortsItsJobsAndTellsTheScheduler) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  EXPECT_EQ(ctl->daemon_state(2), DaemonState::Failed);
  auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::scheduler());
  EXPECT_EQ(notes[0].second.code, Status::EventNodeDown);
  ASSERT_NE(notes[0].second.info.get<std::string>("pmix.hname"), nullptr);
  EXPECT_EQ(*notes[0].second.info.get<std::string>("pmix.hname"), "n02");
  const auto kills = all_of<KillProcs>(sent);
  ASSERT_EQ(kills.size(), 1u);  // the dead node's ranks are gone already
  EXPECT_EQ(kills[0].first, Address::daemon(1));
  EXPECT_EQ(kills[0].second.nspace, ns);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobAbortedBySysEvent);
  EXPECT_EQ(env.count_events("node.down", {"\"node\":\"n02\""}), 1u);

  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobAbortedBySysEvent, 0});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  ASSERT_EQ(job_records(complete).size(), 1u);
  // Its processes ended without the finalize sync, as PRRTE converts a lost daemon (row J15).
  EXPECT_EQ(*job_records(complete)[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobTermWoSync);

  // Lost once: hearing of it again changes nothing.
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  ctl->handle(Address::daemon(2), Unreachable{Address::daemon(2), MessageKind::KillProcs, 0, ""});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("node.down"), 1u);
}

TEST_F(ControllerTest, AnUndeliverableMessageToADaemonMeansItsNodeIsDown) {
  attach();
  const std::string ns = running_session(1, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), Unreachable{Address::daemon(1), MessageKind::SignalProcs, 0, ""});
  const auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].second.code, Status::EventNodeDown);
  // Its only node is gone: the job ends there and then, and the session with it.
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_EQ(*job_records(completes[0].second)[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobTermWoSync);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, WithoutASchedulerALostNodeStillAbortsItsJobs) {
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(0), PeerLost{Address::daemon(Cluster::kHead)});  // the controller's own node: ignored
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->daemon_state(Cluster::kHead), DaemonState::Up);
  ctl->handle(Address::daemon(1), PeerLost{Address::daemon(1)});
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(2));  // no scheduler to tell
  EXPECT_EQ(kill.reason, Status::ErrJobAbortedBySysEvent);
}

TEST_F(ControllerTest, ANodeLostWhileItsDaemonStartsFailsTheDvmChange) {
  attach();
  from_scheduler(1, 1, instantiate("n01:8", "alloc-1"));
  env.take_sent();
  ctl->handle(Address::daemon(1), PeerLost{Address::daemon(1)});
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Failed);
  const auto note = only<Notification>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(note.code, Status::ErrDvmMod);
  EXPECT_EQ(env.count_events("daemon.failed"), 1u);
}

// The ranks on the surviving nodes are killed and end: their slots are free again.
TEST_F(ControllerTest, TheSurvivingNodesOfAnAbortedJobAreFreed) {
  scheduled_dvm({1, 2});
  const std::string ns = spawned(spawn(5, 16, {}), {1, 2});
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].first, Address::daemon(1));
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobAbortedBySysEvent, 0});
  env.take_sent();
  // The job is done with: its slots come back on every node of its map, the dead one too.
  auto nodes = env.events_of("node");
  std::erase_if(nodes, [](const auto& e) { return e.fields.find("\"node\":\"n01\"") == std::string::npos; });
  ASSERT_FALSE(nodes.empty());
  EXPECT_NE(nodes.back().fields.find("\"use\":\"free\""), std::string::npos) << nodes.back().fields;
  ctl->handle(Address::requestor(1), spawn(6, 8, {}));
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<LaunchProcs>(sent).size(), 1u) << "n01's 8 slots are still counted busy";
}

// ---------------------------------------------------------------- a failed launch

TEST_F(ControllerTest, ALaunchFailingOnOneNodeKillsTheOtherRanksAndFailsTheSession) {
  attach();
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {sleep_app(8, 5)}));
  daemons_ready({1, 2});
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  const std::string ns = launches[0].second.nspace;
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::Success});
  ctl->handle(Address::daemon(1), ProcsStarted{ns, 1, Status::ErrJobFailedToLaunch});
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(kill.nspace, ns);
  EXPECT_EQ(kill.reason, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(env.count_events("job.launch_failed", {"\"node\":\"n01\""}), 1u);
  ctl->handle(Address::daemon(2), ProcsEnded{ns, 2, Status::ErrJobFailedToLaunch, 0});
  const auto sent = env.take_sent();
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_EQ(*job_records(completes[0].second)[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrJobFailedToLaunch);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 11u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(env.count_events("job.start"), 0u);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, ALaunchFailingEverywhereKillsNothingAndFailsOnce) {
  attach();
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {sleep_app(8, 5)}));
  daemons_ready({1, 2});
  const std::string ns = all_of<LaunchProcs>(env.take_sent()).at(0).second.nspace;
  ctl->handle(Address::daemon(1), ProcsStarted{ns, 1, Status::ErrJobFailedToLaunch});
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::ErrJobFailedToLaunch});
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<KillProcs>(sent).size(), 1u);  // the first failure kills the rest, once
  EXPECT_EQ(all_of<SessionCtrlRequest>(sent).size(), 1u);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
}

// Ranks that did start and were killed because another node failed to launch have ended:
// their slots are free again.
TEST_F(ControllerTest, RanksKilledAfterAFailedLaunchFreeTheirSlots) {
  scheduled_dvm({1, 2});
  ctl->handle(Address::requestor(1), spawn(5, 16, {}));
  const std::string ns = all_of<LaunchProcs>(env.take_sent()).at(0).second.nspace;
  ctl->handle(Address::daemon(2), ProcsStarted{ns, 2, Status::Success});
  ctl->handle(Address::daemon(1), ProcsStarted{ns, 1, Status::ErrJobFailedToLaunch});
  EXPECT_EQ(only<KillProcs>(env.take_sent(), Address::daemon(2)).reason, Status::ErrJobFailedToLaunch);
  ctl->handle(Address::daemon(2), ProcsEnded{ns, 2, Status::ErrJobFailedToLaunch, 0});
  const auto failed = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(failed.status, Status::ErrJobFailedToLaunch);
  ctl->handle(Address::requestor(1), spawn(6, 16, {}));
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<LaunchProcs>(sent).size(), 2u) << "n02's killed ranks are still counted busy";
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
