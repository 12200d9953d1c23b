// Session control on running jobs: PAUSE/RESUME, PREEMPT/RESTORE and SIGNAL, the all-sessions
// id, and the controller deciding alone when no scheduler is attached.
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

// ---------------------------------------------------------------- PAUSE / RESUME / PREEMPT / RESTORE / SIGNAL

TEST_F(ControllerTest, PauseStopsEveryJobOnceAndResumeContinuesIt) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(2, 1, op(key::SESSION_PAUSE));
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigStop}, {2, kSigStop}}));
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.id, 2u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  EXPECT_EQ(sent.size(), 3u);  // no kill, no COMPLETE: a paused job keeps its slots
  EXPECT_EQ(env.count_events("job.suspend", {"\"paused\":true"}), 1u);
  EXPECT_EQ(
      env.count_events("session_ctrl.execute", {"\"ops\":\"PMIX_SESSION_PAUSE\"", "\"decided_by\":\"scheduler\""}), 1u);

  from_scheduler(3, 1, op(key::SESSION_PAUSE));  // never signalled twice for the same state
  EXPECT_EQ(answer_to_scheduler(3).status, Status::Success);

  from_scheduler(4, 1, op(key::SESSION_RESUME));
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigCont}, {2, kSigCont}}));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(env.count_events("job.continue"), 1u);

  from_scheduler(5, 1, op(key::SESSION_RESUME));
  EXPECT_EQ(answer_to_scheduler(5).status, Status::Success);
  EXPECT_EQ(ctl->session_count(), 1u);
}

TEST_F(ControllerTest, TerminateContinuesAPausedJobBeforeKillingIt) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(2, 1, op(key::SESSION_PAUSE));
  env.take_sent();
  from_scheduler(3, 1, op(key::SESSION_TERMINATE));
  const auto sent = env.take_sent();
  for (NodeId n : {NodeId{1}, NodeId{2}}) {
    SCOPED_TRACE("daemon " + std::to_string(n));
    std::vector<std::string> to_daemon;
    for (const auto& m : sent)
      if (m.to == Address::daemon(n)) to_daemon.emplace_back(message_name(kind_of(m.msg)));
    ASSERT_EQ(to_daemon, (std::vector<std::string>{"signal_procs", "kill_procs"}));
  }
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigCont}, {2, kSigCont}}));
  // Answered at once, as PRRTE's apply_to_session() answers it; the COMPLETE follows the reclaim.
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
}

TEST_F(ControllerTest, PreemptStopsOnlyTheNamedJobAndKeepsItsResources) {
  attach();
  reservation(1, "n01:8,n02:8", {1, 2}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 12, in_session(1)), {1, 2});
  ASSERT_NE(a, b);

  from_scheduler(3, 1, with(op(key::SESSION_PREEMPT), key::NSPACE, b));
  auto sent = env.take_sent();
  EXPECT_TRUE(signals(sent, a).empty());
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigStop}, {2, kSigStop}}));
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());  // suspended, not freed (the deliberate deviation)
  EXPECT_TRUE(all_of<DaemonShutdown>(sent).empty());
  EXPECT_TRUE(completed_sessions(sent).empty());
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  EXPECT_EQ(env.count_events("job.suspend", {b, "\"preempted\":true"}), 1u);
  EXPECT_EQ(ctl->session_count(), 1u);

  from_scheduler(4, 1, with(op(key::SESSION_RESTORE), key::NSPACE, b));
  sent = env.take_sent();
  EXPECT_TRUE(signals(sent, a).empty());
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigCont}, {2, kSigCont}}));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
}

TEST_F(ControllerTest, PreemptWithoutANamedJobStopsThemAll) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 4, in_session(1)), {1});
  from_scheduler(3, 1, op(key::SESSION_PREEMPT));
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigStop}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigStop}}));
}

// One suspended state, as PRRTE's PRTE_JOB_FLAG_SUSPENDED: whichever directive stopped a job,
// RESUME and RESTORE both continue it, and a stopped job is never stopped again.
TEST_F(ControllerTest, PauseAndPreemptShareOneSuspendedState) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 4, in_session(1)), {1});
  from_scheduler(3, 1, with(op(key::SESSION_PREEMPT), key::NSPACE, b));
  EXPECT_EQ(signals(env.take_sent(), b), (Signals{{1, kSigStop}}));

  from_scheduler(4, 1, op(key::SESSION_PAUSE));  // b is already stopped: only a is signalled
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigStop}}));
  EXPECT_TRUE(signals(sent, b).empty());

  from_scheduler(5, 1, op(key::SESSION_RESUME));  // the preempted b is continued too
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigCont}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigCont}}));

  from_scheduler(6, 1, op(key::SESSION_PAUSE));
  from_scheduler(7, 1, op(key::SESSION_RESTORE));  // restores the paused jobs
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigStop}, {1, kSigCont}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, kSigStop}, {1, kSigCont}}));
  from_scheduler(8, 1, op(key::SESSION_RESUME));  // nothing is stopped: nothing is signalled
  sent = env.take_sent();
  EXPECT_TRUE(signals(sent, a).empty());
  EXPECT_TRUE(signals(sent, b).empty());
}

TEST_F(ControllerTest, PreemptOfAJobNotInTheSessionIsNotFound) {
  attach();
  const std::string ns = running_session(1, "n01:8", {1}, 8);
  from_scheduler(2, 1, with(op(key::SESSION_PREEMPT), key::NSPACE, std::string("job-9.9")));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrNotFound);  // and nothing was signalled
  from_scheduler(3, 1, with(op(key::SESSION_RESTORE), key::NSPACE, std::string("job-9.9")));
  EXPECT_EQ(answer_to_scheduler(3).status, Status::ErrNotFound);
}

TEST_F(ControllerTest, SignalIsDeliveredToTheNamedJobsOrToAll) {
  attach();
  reservation(1, "n01:8,n02:8", {1, 2}, kTool);
  const std::string a = spawned(spawn(1, 4, in_session(1)), {1});
  const std::string b = spawned(spawn(2, 12, in_session(1)), {1, 2});
  from_scheduler(3, 1, with(with({}, key::SESSION_SIGNAL, std::int32_t{kSigTerm}), key::NSPACE, a));
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, kSigTerm}}));
  EXPECT_TRUE(signals(sent, b).empty());
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  EXPECT_EQ(env.count_events("job.signal", {a, "\"signal\":15"}), 1u);

  InfoList usr1;
  usr1.add(key::SESSION_SIGNAL, std::int32_t{10});
  from_scheduler(4, 1, usr1);
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, a), (Signals{{1, 10}}));
  EXPECT_EQ(signals(sent, b), (Signals{{1, 10}, {2, 10}}));
  EXPECT_TRUE(all_of<KillProcs>(sent).empty());  // the controller only delivers it
}

TEST_F(ControllerTest, ASignalOutOfRangeIsABadParam) {
  attach();
  running_session(1, "n01:8", {1}, 8);
  for (std::int32_t sig : {0, -1, 65}) {
    SCOPED_TRACE("signal " + std::to_string(sig));
    InfoList d;
    d.add(key::SESSION_SIGNAL, sig);
    from_scheduler(2, 1, d);
    EXPECT_EQ(answer_to_scheduler(2).status, Status::ErrBadParam);
  }
  InfoList named;
  named.add(key::SESSION_SIGNAL, std::int32_t{kSigTerm}).add(key::NSPACE, std::string("job-9.9"));
  from_scheduler(3, 1, named);
  EXPECT_EQ(answer_to_scheduler(3).status, Status::ErrNotFound);
}

// PAUSE stops every job of the session (FLOW.md §4), including one still waiting behind the
// launch fence: it must not be launched running.
TEST_F(ControllerTest, AJobPausedBehindTheFenceDoesNotRunWhenLaunched) {
  attach();
  from_scheduler(1, 1, instantiate("n01:8", "alloc-1", {sleep_app(8, 100)}));
  from_scheduler(2, 1, op(key::SESSION_PAUSE));
  EXPECT_EQ(answer_to_scheduler(2).status, Status::Success);
  daemons_ready({1});
  const auto sent = env.take_sent();
  bool launched = false, stopped_after = false;
  for (const auto& m : sent) {
    if (m.to != Address::daemon(1)) continue;
    if (std::holds_alternative<LaunchProcs>(m.msg)) launched = true;
    if (const auto* sig = std::get_if<SignalProcs>(&m.msg); sig && sig->signal == kSigStop && launched)
      stopped_after = true;
  }
  EXPECT_TRUE(!launched || stopped_after) << "a paused job was launched and left running";
}

// ---------------------------------------------------------------- UINT32_MAX: every session the caller controls

TEST_F(ControllerTest, AllSessionsFromTheSchedulerMeansItsSessionsNotTheDvmPool) {
  scheduled_dvm({3});
  const std::string s1 = running_session(1, "n01:8", {1}, 8);
  const std::string s2 = running_session(2, "n02:8", {2}, 8);
  const std::string pool = spawned(spawn(9, 4, {}), {3});
  from_scheduler(5, kAllSessions, op(key::SESSION_PAUSE));
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, s1), (Signals{{1, kSigStop}}));
  EXPECT_EQ(signals(sent, s2), (Signals{{2, kSigStop}}));
  EXPECT_TRUE(signals(sent, pool).empty());
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.id, 5u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
}

TEST_F(ControllerTest, TerminatingAllSessionsEndsEachAndAnswersOnce) {
  attach();
  const std::string s1 = running_session(1, "n01:8", {1}, 8);
  const std::string s2 = running_session(2, "n02:8", {2}, 8);
  from_scheduler(5, kAllSessions, op(key::SESSION_TERMINATE));
  auto sent = env.take_sent();
  const auto kills = all_of<KillProcs>(sent);
  ASSERT_EQ(kills.size(), 2u);
  EXPECT_EQ(kills[0].second.nspace, s1);
  EXPECT_EQ(kills[1].second.nspace, s2);
  auto answers = all_of<SessionCtrlResponse>(sent);
  ctl->handle(Address::daemon(1), ProcsEnded{s1, 1, Status::ErrJobKilledByCmd, 0});
  ctl->handle(Address::daemon(2), ProcsEnded{s2, 2, Status::ErrJobKilledByCmd, 0});
  sent = env.take_sent();
  for (auto& a : all_of<SessionCtrlResponse>(sent)) answers.push_back(a);
  EXPECT_EQ(completed_sessions(sent), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(ctl->session_count(), 0u);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::scheduler());
  EXPECT_EQ(answers[0].second.id, 5u);
  EXPECT_EQ(answers[0].second.status, Status::Success);
}

TEST_F(ControllerTest, InstantiateCannotNameAllSessions) {
  attach();
  from_scheduler(1, kAllSessions, instantiate("n01", "alloc-1"));
  EXPECT_EQ(answer_to_scheduler(1).status, Status::ErrBadParam);
  EXPECT_EQ(ctl->session_count(), 0u);
  EXPECT_TRUE(env.daemons_started().empty());
}

// PREEMPT acts on the jobs named by PMIX_NSPACE, across every session the caller controls:
// the job is preempted, and the caller is told it succeeded.
TEST_F(ControllerTest, PreemptAcrossAllSessionsOfANamedJobSucceeds) {
  attach();
  const std::string s1 = running_session(1, "n01:8", {1}, 8);
  const std::string s2 = running_session(2, "n02:8", {2}, 8);
  from_scheduler(5, kAllSessions, with(op(key::SESSION_PREEMPT), key::NSPACE, s2));
  const auto sent = env.take_sent();
  EXPECT_TRUE(signals(sent, s1).empty());
  EXPECT_EQ(signals(sent, s2), (Signals{{2, kSigStop}}));
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].second.status, Status::Success)
      << "the job was preempted, yet the caller is told it was not found";
}

// ---------------------------------------------------------------- no scheduler: the controller decides

TEST_F(ControllerTest, WithoutASchedulerOnlyTheOwnerControlsItsSession) {
  const std::string ns = running_session(1, "n01:8", {1}, 8, {}, owned({}, kTool));
  from_requestor(2, 3, 1, op(key::SESSION_PAUSE), kMallory);
  EXPECT_EQ(answer_to_requestor(2, 3).status, Status::ErrNoPermissions);  // and nothing signalled
  EXPECT_EQ(env.count_events("session_ctrl.execute", {"\"decided_by\":\"controller\""}), 1u);

  from_requestor(1, 4, 1, op(key::SESSION_PAUSE), Proc{"tool", 5});  // any rank of the owning namespace
  auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigStop}}));
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].first, Address::requestor(1));
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);

  from_requestor(1, 5, 9, op(key::SESSION_PAUSE), kTool);
  EXPECT_EQ(answer_to_requestor(1, 5).status, Status::ErrNotFound);

  from_requestor(2, 6, 1, op(key::SESSION_TERMINATE), kMallory);
  EXPECT_EQ(answer_to_requestor(2, 6).status, Status::ErrNoPermissions);
  EXPECT_EQ(ctl->session_count(), 1u);

  from_requestor(1, 7, 1, op(key::SESSION_TERMINATE), kTool);
  sent = env.take_sent();
  EXPECT_EQ(signals(sent, ns), (Signals{{1, kSigCont}}));
  ASSERT_EQ(all_of<KillProcs>(sent).size(), 1u);
  ASSERT_EQ(all_of<SessionCtrlResponse>(sent).size(), 1u);  // answered at once
  EXPECT_EQ(all_of<SessionCtrlResponse>(sent)[0].second.status, Status::Success);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(ctl->session_count(), 0u);  // the COMPLETE waits for a scheduler
}

TEST_F(ControllerTest, WithoutASchedulerAllSessionsMeansTheCallersOwn) {
  const std::string s1 = running_session(1, "n01:8", {1}, 8, {}, owned({}, kTool));
  const std::string s2 = running_session(2, "n02:8", {2}, 8, {}, owned({}, kMallory));
  const std::string s3 = running_session(3, "n03:8", {3}, 8, {}, owned({}, kTool));
  from_requestor(1, 4, kAllSessions, op(key::SESSION_PAUSE), kTool);
  const auto sent = env.take_sent();
  EXPECT_EQ(signals(sent, s1), (Signals{{1, kSigStop}}));
  EXPECT_TRUE(signals(sent, s2).empty());
  EXPECT_EQ(signals(sent, s3), (Signals{{3, kSigStop}}));
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::requestor(1));
  EXPECT_EQ(answers[0].second.status, Status::Success);

  // Owns nothing: PRRTE's apply_to_all() finds no session to serve.
  from_requestor(3, 5, kAllSessions, op(key::SESSION_PAUSE), Proc{"nobody", 0});
  EXPECT_EQ(answer_to_requestor(3, 5).status, Status::ErrNotFound);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
