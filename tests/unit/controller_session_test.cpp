// Session control ordered by the scheduler (FLOW.md §4): INSTANTIATE, TERMINATE, time limits,
// EXTEND and inheritance, each answered only once the DVM has done what it says.
#include <map>

#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

// ---------------------------------------------------------------- session control

TEST_F(ControllerTest, InstantiateWithoutAppsIsAnsweredAtOnce) {
  attach();
  from_scheduler(11, 1, instantiate("n01,n02:4", "alloc-1"));
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 1u);
  const auto r = only<SessionCtrlResponse>(sent, Address::scheduler());
  EXPECT_EQ(r.id, 11u);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.info.get_uint(key::SESSION_ID), 1u);
  ASSERT_NE(r.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*r.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  EXPECT_EQ(ctl->session_count(), 1u);
  // The reservation's nodes still get their daemons; the ready event names the allocation.
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));
  daemons_ready({1, 2});
  const auto note = only<Notification>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(note.code, Status::DvmIsReady);
  EXPECT_EQ(*note.info.get<std::string>(key::ALLOC_ID), "alloc-1");
}

TEST_F(ControllerTest, AMultiAppJobKeepsEveryAppThroughTheLaunch) {
  attach();
  App solver = sleep_app(6, 5), monitor = sleep_app(2, 7);
  monitor.cmd = "monitor";
  monitor.argv = {};
  monitor.env = {"PMIXFLOW_RUNTIME=7"};
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {solver, monitor}));
  daemons_ready({1, 2});
  const auto launches = all_of<LaunchProcs>(env.take_sent());
  ASSERT_EQ(launches.size(), 2u);
  // Each daemon gets the whole job, and the ranks that are its own: n01 ranks 0-3 (solver),
  // n02 ranks 4-7 (solver 4-5, monitor 6-7).
  for (const auto& [to, launch] : launches) {
    ASSERT_EQ(launch.apps.size(), 2u);
    EXPECT_EQ(launch.apps[0], solver);
    EXPECT_EQ(launch.apps[1], monitor);
    EXPECT_EQ(launch.local_procs, 4u);
  }
  EXPECT_EQ(launches[0].second.first_rank, 0u);
  EXPECT_EQ(launches[1].second.first_rank, 4u);
}

TEST_F(ControllerTest, InstantiateWithAppsGrowsTheDvmLaunchesAndAnswersOnceStarted) {
  attach();
  from_scheduler(11, 1, instantiate("n01:4,n02:4", "alloc-1", {sleep_app(8, 5)}));
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Starting);
  EXPECT_TRUE(env.take_sent().empty());  // fenced: no launch, no answer yet
  EXPECT_EQ(env.count_events("job.fenced"), 1u);

  daemons_ready({1});
  EXPECT_TRUE(env.take_sent().empty());  // one daemon is not enough
  EXPECT_EQ(env.count_events("dvm.ready"), 0u);

  daemons_ready({2});
  EXPECT_EQ(env.count_events("dvm.ready"), 1u);
  auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, Address::scheduler());
  EXPECT_EQ(notes[0].second.code, Status::DvmIsReady);
  ASSERT_NE(notes[0].second.info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*notes[0].second.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  const auto launches = all_of<LaunchProcs>(sent);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].first, Address::daemon(1));
  EXPECT_EQ(launches[1].first, Address::daemon(2));
  EXPECT_EQ(launches[0].second.local_procs, 4u);
  EXPECT_EQ(launches[1].second.local_procs, 4u);
  EXPECT_EQ(launches[0].second.first_rank, 0u);
  EXPECT_EQ(launches[1].second.first_rank, 4u);
  EXPECT_EQ(launches[0].second.session_id, 1u);
  ASSERT_EQ(launches[0].second.apps.size(), 1u);
  EXPECT_EQ(launches[0].second.apps[0].argv, (std::vector<std::string>{"5"}));
  const std::string nspace = launches[0].second.nspace;
  EXPECT_EQ(launches[1].second.nspace, nspace);
  EXPECT_EQ(sent.size(), 3u);  // still no answer to the scheduler

  ctl->handle(Address::daemon(1), ProcsStarted{nspace, 1, Status::Success});
  EXPECT_TRUE(env.take_sent().empty());
  ctl->handle(Address::daemon(2), ProcsStarted{nspace, 2, Status::Success});
  const auto r = answer_to_scheduler(11);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.info.get_uint(key::SESSION_ID), 1u);
  EXPECT_EQ(*r.info.get<std::string>(key::ALLOC_ID), "alloc-1");
  ASSERT_NE(r.info.get<std::string>(key::NSPACE), nullptr);
  EXPECT_EQ(*r.info.get<std::string>(key::NSPACE), nspace);
}

TEST_F(ControllerTest, LastJobEndReclaimsTheSessionAndSendsOneComplete) {
  attach();
  const std::string nspace = running_session(3, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::ErrJobNonZeroTerm, 1});
  EXPECT_EQ(ctl->session_count(), 0u);

  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_EQ(complete.session_id, 3u);
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
  EXPECT_EQ(complete.directives.get_uint(key::SESSION_ID), 3u);
  EXPECT_EQ(*complete.directives.get<std::string>(key::ALLOC_ID), "alloc-3");
  std::vector<InfoList> jobs;
  for (const auto& item : complete.directives.items)
    if (item.key == key::JOB_INFO_ARRAY) jobs.push_back(std::get<InfoList>(item.value));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(*jobs[0].get<std::string>(key::NSPACE), nspace);
  ASSERT_NE(jobs[0].get<Status>(key::JOB_TERM_STATUS), nullptr);
  // PRRTE's NON_ZERO_TERM job state, converted (prrte-conformance.md row J3).
  EXPECT_EQ(*jobs[0].get<Status>(key::JOB_TERM_STATUS), Status::ErrExitNonzeroTerm);
  // Reclaimed once: the scheduler's answer to COMPLETE and repeated ends change nothing.
  ctl->handle(Address::scheduler(), SessionCtrlResponse{complete.id, Status::Success, {}, complete.corr});
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::Success, 0});
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(env.count_events("session.complete"), 1u);
}

TEST_F(ControllerTest, CompleteWaitsForASchedulerWhenNoneIsAttached) {
  const std::string nspace = running_session(3, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.take_sent().empty());  // reclaimed, but nobody to tell yet
  ctl->handle(Address::scheduler(), ConnectResponse{1, Status::Success});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
  EXPECT_EQ(complete.session_id, 3u);
}

TEST_F(ControllerTest, NodesWithDaemonsLaunchWithoutAFence) {
  attach();
  const std::string first = running_session(1, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{first, 1, Status::Success, 0});
  env.take_sent();
  ASSERT_EQ(env.daemons_started().size(), 1u);
  // Default inheritance keeps the daemon: the next session on n01 launches at once.
  from_scheduler(2, 2, instantiate("n01:8", "alloc-2", {sleep_app(8, 5)}));
  EXPECT_EQ(env.daemons_started().size(), 1u);
  const auto launch = only<LaunchProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(launch.session_id, 2u);
}

TEST_F(ControllerTest, ExistingSessionIdIsRefused) {
  attach();
  from_scheduler(1, 4, instantiate("n01", "alloc-4"));
  env.take_sent();
  from_scheduler(2, 4, instantiate("n02", "alloc-5"));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrExists);
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, TwoOperationsInOneRequestAreRefused) {
  attach();
  InfoList d = instantiate("n01", "alloc-1");
  d.add(key::SESSION_TERMINATE, true);
  from_scheduler(1, 1, d);
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  from_scheduler(2, 1, InfoList{});  // and none at all
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
}

// PRRTE's apply_to_session(): COMPLETE is refused once its session is found.
TEST_F(ControllerTest, CompleteIsNeverAcceptedByTheRm) {
  attach();
  from_scheduler(1, 1, op(key::SESSION_COMPLETE));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrNotFound);
  running_session(1, "n01:8", {1}, 8);
  from_scheduler(2, 1, op(key::SESSION_COMPLETE));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrNotSupported);
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, ResourceSelectionIsRefused) {
  attach();
  InfoList d = instantiate("n01", "alloc-1");
  d.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  from_scheduler(1, 1, d);
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrNotSupported);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, TerminateOfAnUnknownSessionIsNotFound) {
  attach();
  from_scheduler(1, 42, op(key::SESSION_TERMINATE));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, AppsWithoutANodeListAreRefused) {
  attach();
  InfoList d;
  d.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_APP, std::vector<App>{sleep_app(1, 5)});
  from_scheduler(1, 1, d);
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

TEST_F(ControllerTest, NodesOutsideTheAllocationAreRefused) {
  attach();
  from_scheduler(1, 1, instantiate("head", "alloc-1"));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  from_scheduler(2, 1, instantiate("n99", "alloc-1"));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
}

// PRRTE's apply_to_session() answers a TERMINATE at once; the session is reclaimed, and the
// scheduler told, once its last job has gone.
TEST_F(ControllerTest, TerminateIsAnsweredAtOnceAndCompletedAfterTheReclaim) {
  attach();
  const std::string nspace = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(7, 1, op(key::SESSION_TERMINATE));
  const auto ordered = env.take_sent();
  const auto kills = all_of<KillProcs>(ordered);
  const auto answers = all_of<SessionCtrlResponse>(ordered);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 7u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  ASSERT_EQ(kills.size(), 2u);
  EXPECT_EQ(kills[0].first, Address::daemon(1));
  EXPECT_EQ(kills[1].first, Address::daemon(2));
  EXPECT_EQ(kills[0].second.nspace, nspace);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobKilledByCmd);

  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_TRUE(env.take_sent().empty());  // no COMPLETE before the session is gone
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(ctl->session_count(), 0u);
  const auto sent = env.take_sent();
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_TRUE(all_of<SessionCtrlResponse>(sent).empty());
  const auto* job = completes[0].second.directives.get<InfoList>(key::JOB_INFO_ARRAY);
  ASSERT_NE(job, nullptr);
  // Killed by order, the job is plain TERMINATED in PRRTE: a job end (row J6).
  EXPECT_EQ(*job->get<Status>(key::JOB_TERM_STATUS), Status::EventJobEnd);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_KILLED_BY_CMD\""}), 1u);
}

TEST_F(ControllerTest, TerminateOfAReservationReclaimsAtOnce) {
  attach();
  from_scheduler(1, 1, instantiate("n01", "alloc-1"));
  env.take_sent();
  from_scheduler(2, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_FALSE(completes[0].second.directives.has(key::JOB_INFO_ARRAY));  // no job ran
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 2u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
  EXPECT_EQ(ctl->session_count(), 0u);
}

TEST_F(ControllerTest, TerminateWhileTheJobIsFencedNeverLaunchesIt) {
  attach();
  from_scheduler(11, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 5)}));
  from_scheduler(12, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 2u);
  std::map<std::uint64_t, Status> by_call;
  for (const auto& [to, a] : answers) by_call[a.id] = a.status;
  EXPECT_EQ(by_call[12], Status::Success);
  EXPECT_EQ(by_call[11], Status::ErrJobKilledByCmd);  // the instantiation learns its job was killed
  EXPECT_EQ(ctl->session_count(), 0u);
  daemons_ready({1});
  EXPECT_TRUE(all_of<LaunchProcs>(env.take_sent()).empty());
}

TEST_F(ControllerTest, TimeLimitTerminatesTheSession) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_TIME, std::string("10"));
  from_scheduler(1, 1, instantiate("n01", "alloc-1", {}, extra));
  daemons_ready({1});
  env.take_sent();
  env.advance(9.9);
  EXPECT_TRUE(env.take_sent().empty());
  EXPECT_EQ(ctl->session_count(), 1u);
  env.advance(0.1);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(env.count_events("session.timeout"), 1u);
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  EXPECT_TRUE(complete.directives.flag(key::SESSION_COMPLETE));
}

TEST_F(ControllerTest, TimeLimitKillsRunningJobsWithTimeout) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_TIME, std::string("10"));
  const std::string nspace = running_session(1, "n01:8", {1}, 8, extra);
  // With its app, the session's time counts from the job's start (plus a 1 ms grace for a
  // job ending exactly at its limit to report its own end).
  env.advance(10);
  EXPECT_TRUE(all_of<KillProcs>(env.take_sent()).empty());
  env.advance(0.002);
  const auto kill = only<KillProcs>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(kill.nspace, nspace);
  EXPECT_EQ(kill.reason, Status::ErrTimeout);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::ErrTimeout, 0});
  const auto complete = only<SessionCtrlRequest>(env.take_sent(), Address::scheduler());
  // The limit kills as a TERMINATE does: the COMPLETE says the job ended (row J8); the log
  // keeps the cause.
  EXPECT_EQ(*complete.directives.get<InfoList>(key::JOB_INFO_ARRAY)->get<Status>(key::JOB_TERM_STATUS),
            Status::EventJobEnd);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_TIMEOUT\"", "\"term_status\":\"PMIX_EVENT_JOB_END\""}),
            1u);
}

TEST_F(ControllerTest, ExtendThatChangesNothingIsRefused) {
  attach();
  from_scheduler(1, 1, instantiate("n01", "alloc-1"));
  env.take_sent();
  from_scheduler(2, 1, op(key::SESSION_EXTEND));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  from_scheduler(3, 9, op(key::SESSION_EXTEND));
  EXPECT_EQ(answer_to_scheduler(3).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, ExtendWithANewTimeRearmsTheLimitFromNow) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_TIME, std::string("10"));
  from_scheduler(1, 1, instantiate("n01", "alloc-1", {}, extra));
  daemons_ready({1});
  env.take_sent();
  env.advance(5);
  InfoList d = op(key::SESSION_EXTEND);
  d.add(key::ALLOC_TIME, std::string("20"));  // 20 s from now, whatever was used (PRRTE re-arms)
  from_scheduler(2, 1, d);
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  env.advance(5);  // t = 10: the old limit no longer applies
  EXPECT_EQ(ctl->session_count(), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(14.9);  // t = 24.9
  EXPECT_EQ(ctl->session_count(), 1u);
  env.advance(0.1);  // t = 25
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 1u);
}

TEST_F(ControllerTest, ExtendWithNodesGrowsTheDvm) {
  attach();
  from_scheduler(1, 1, instantiate("n01", "alloc-1"));
  daemons_ready({1});
  env.take_sent();
  InfoList d = op(key::SESSION_EXTEND);
  d.add(key::ALLOC_NODE_LIST, std::string("n03:2"));
  from_scheduler(2, 1, d);
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  EXPECT_EQ(env.daemons_started(), (std::vector<NodeId>{1, 3}));
  daemons_ready({3});
  EXPECT_EQ(only<Notification>(env.take_sent(), Address::scheduler()).code, Status::DvmIsReady);
}

TEST_F(ControllerTest, InheritNoneShutsTheSessionsDaemonsDownOnReclaim) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_INHERITANCE, std::uint32_t{1});
  const std::string nspace = running_session(1, "n01:4,n02:4", {1, 2}, 8, extra);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  ctl->handle(Address::daemon(2), ProcsEnded{nspace, 2, Status::Success, 0});
  const auto sent = env.take_sent();
  const auto shutdowns = all_of<DaemonShutdown>(sent);
  ASSERT_EQ(shutdowns.size(), 2u);
  EXPECT_EQ(shutdowns[0].first, Address::daemon(1));
  EXPECT_EQ(shutdowns[1].first, Address::daemon(2));
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::None);
  EXPECT_EQ(ctl->daemon_state(Cluster::kHead), DaemonState::Up);
  EXPECT_EQ(all_of<SessionCtrlRequest>(sent).size(), 1u);
}

TEST_F(ControllerTest, DefaultInheritanceKeepsTheDaemons) {
  attach();
  const std::string nspace = running_session(1, "n01:8", {1}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{nspace, 1, Status::Success, 0});
  EXPECT_TRUE(all_of<DaemonShutdown>(env.take_sent()).empty());
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Up);
}

TEST_F(ControllerTest, InheritNoneKeepsADaemonAnotherSessionStillUses) {
  attach();
  InfoList extra;
  extra.add(key::ALLOC_INHERITANCE, std::uint32_t{1});
  from_scheduler(1, 1, instantiate("n01:4", "alloc-1", {}, extra));
  from_scheduler(2, 2, instantiate("n01:4", "alloc-2"));
  daemons_ready({1});
  env.take_sent();
  from_scheduler(3, 1, op(key::SESSION_TERMINATE));
  EXPECT_TRUE(all_of<DaemonShutdown>(env.take_sent()).empty());
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Up);
}

TEST_F(ControllerTest, ADaemonThatNeverComesUpFailsTheLaunch) {
  attach();
  from_scheduler(11, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 5)}));
  ctl->handle(Address::daemon(1), DaemonStartFailed{1});
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::Failed);
  const auto sent = env.take_sent();
  const auto notes = all_of<Notification>(sent);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].second.code, Status::ErrDvmMod);
  EXPECT_TRUE(all_of<LaunchProcs>(sent).empty());
  // The job never ran: the session is reclaimed, the scheduler told, the instantiation failed.
  EXPECT_EQ(ctl->session_count(), 0u);
  const auto completes = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(completes.size(), 1u);
  EXPECT_EQ(*completes[0].second.directives.get<InfoList>(key::JOB_INFO_ARRAY)->get<Status>(key::JOB_TERM_STATUS),
            Status::ErrJobFailedToLaunch);
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 11u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobFailedToLaunch);
}

// ---------------------------------------------------------------- EXTEND

TEST_F(ControllerTest, ExtendWithATimeoutSetsALimitInSeconds) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  env.advance(10);
  from_scheduler(2, 1, with(op(key::SESSION_EXTEND), key::TIMEOUT, std::uint32_t{30}));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  EXPECT_EQ(env.count_events("session.extend", {"\"time_limit\":30"}), 1u);
  env.advance(29.9);  // t = 39.9: the limit counts from the EXTEND
  EXPECT_EQ(ctl->session_count(), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.1);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_EQ(env.count_events("session.timeout"), 1u);
  EXPECT_EQ(completed_sessions(env.take_sent()), (std::vector<std::uint32_t>{1}));
}

// PRRTE's session_extend() records an inheritance given, the one the session has included: a change.
TEST_F(ControllerTest, ExtendRecordsTheInheritanceItGivesEvenTheOneItHas) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  from_scheduler(2, 1, with(op(key::SESSION_EXTEND), key::ALLOC_INHERITANCE, std::uint32_t{3}));  // already the default
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  from_scheduler(5, 1, with(op(key::SESSION_EXTEND), key::ALLOC_INHERITANCE, std::uint32_t{9}));  // no such value
  EXPECT_EQ(answer_to_scheduler(5).status, Status::ErrBadParam);
  from_scheduler(3, 1, with(op(key::SESSION_EXTEND), key::ALLOC_INHERITANCE, std::uint32_t{1}));
  EXPECT_EQ(answer_to_scheduler(3).status, Status::Success);
  from_scheduler(4, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  EXPECT_EQ(all_of<DaemonShutdown>(sent).size(), 1u);  // now handed back to the scheduler without a daemon
  EXPECT_EQ(ctl->daemon_state(1), DaemonState::None);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
