// The scheduler against a scripted Env, with the built-in FCFS policy: it decides, orders the
// RM through session control, and answers the requestor only once the RM has the session.
#include "scheduler_fixture.hpp"

namespace pmixflow::test::scheduler_tests {
namespace {

TEST_F(SchedulerTest, StartAttachesToTheControllerAsTheScheduler) {
  FakeEnv fresh{Address::scheduler()};
  Scheduler s(fresh, cluster, make_builtin_policy("fcfs"));
  s.start();
  const auto req = only<ConnectRequest>(fresh.take_sent(), Address::controller());
  EXPECT_TRUE(req.info.flag(key::SERVER_SCHEDULER));
  EXPECT_FALSE(s.rm_connected());
}

// A restarted scheduler whose process comes up later than planned (the emulator's new process,
// slow under a sanitizer) makes the calls planned for its life late, not never; those of its
// earlier life are not made again.
TEST_F(SchedulerTest, AScriptedCallOfALifeThatStartedLateIsMadeLateNotNever) {
  FakeEnv late{Address::scheduler()};
  late.advance(4.647);
  SchedulerConfig config;
  config.attach_at_start = false;
  config.planned_starts = {0, 4};
  const auto pause = [](double at, const char* corr) {
    InfoList ops;
    ops.add(key::SESSION_PAUSE, true);
    return ScriptedCall{
        at, corr, 0, std::nullopt, Address::controller(), SessionCtrlRequest{0, 1, ops, Proc{"scheduler", 0}, corr}};
  };
  config.script = {pause(2, "scheduler#1"), pause(4.5, "scheduler#2"), pause(6, "scheduler#3")};
  Scheduler s(late, cluster, make_builtin_policy("fcfs"), config);
  s.start();
  late.advance(0);
  auto sent = late.take_sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(std::get<SessionCtrlRequest>(sent[0].msg).corr, "scheduler#2");
  late.advance(2);
  sent = late.take_sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(std::get<SessionCtrlRequest>(sent[0].msg).corr, "scheduler#3");
}

TEST_F(SchedulerTest, NothingIsGrantedBeforeTheRmIsConnected) {
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(4)));
  EXPECT_TRUE(env.take_sent().empty());
  connect_rm();
  EXPECT_EQ(instantiations().size(), 1u);
}

TEST_F(SchedulerTest, TheRmConnectingToUsAlsoConnectsIt) {
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(4)));
  InfoList info;
  info.add(key::CONNECT_TO_SCHEDULER, true);
  sched.handle(Address::controller(), ConnectRequest{3, Proc{"prte", 0}, info});
  EXPECT_TRUE(sched.rm_connected());
  const auto sent = env.take_sent();
  const auto resp = all_of<ConnectResponse>(sent);
  ASSERT_EQ(resp.size(), 1u);
  EXPECT_EQ(resp[0].first, Address::controller());
  EXPECT_EQ(resp[0].second.id, 3u);
  EXPECT_EQ(resp[0].second.status, Status::Success);
  EXPECT_EQ(all_of<SessionCtrlRequest>(sent).size(), 1u);
}

TEST_F(SchedulerTest, ANewRequestIsInstantiatedThenAnswered) {
  connect_rm();
  InfoList info = cpus(4, "mine");
  info.add(key::ALLOC_TIME, std::string("10"));
  sched.handle(Address::requestor(1), request(5, Directive::New, info));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  const InfoList& res = resources(inst[0]);
  EXPECT_EQ(str(res, key::ALLOC_NODE_LIST), "n01:4");
  const std::string alloc_id = str(res, key::ALLOC_ID);
  EXPECT_FALSE(alloc_id.empty());
  EXPECT_EQ(str(res, key::ALLOC_REQ_ID), "mine");
  EXPECT_EQ(read_alloc_time(res), 10.0);
  EXPECT_EQ(inst[0].corr, "req#5");

  // The requestor waits for the RM: the RM learns of allocations only from us.
  EXPECT_TRUE(env.take_sent().empty());
  InfoList rm_info;
  rm_info.add(key::SESSION_ID, inst[0].session_id).add(key::ALLOC_ID, alloc_id);
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, rm_info, inst[0].corr});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(answer.id, 5u);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(str(answer.info, key::ALLOC_ID), alloc_id);
  EXPECT_EQ(answer.info.get_uint(key::SESSION_ID), inst[0].session_id);
  EXPECT_EQ(str(answer.info, key::ALLOC_NODE_LIST), "n01:4");
  ASSERT_EQ(records().size(), 1u);
  EXPECT_EQ(records()[0].node_list, "n01:4");
  EXPECT_EQ(records()[0].requestor, "tool.0");
}

TEST_F(SchedulerTest, AppsTravelIntoTheInstantiationAndTheNspaceBack) {
  connect_rm();
  InfoList info = cpus(2);
  App app;
  app.cmd = "sleep";
  app.argv = {"5"};
  app.maxprocs = 2;
  info.add(key::SESSION_APP, std::vector<App>{app});
  sched.handle(Address::requestor(1), request(5, Directive::New, info));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  const auto* apps = inst[0].directives.get<std::vector<App>>(key::SESSION_APP);
  ASSERT_NE(apps, nullptr);
  EXPECT_EQ(*apps, std::vector<App>{app});
  InfoList rm_info;
  rm_info.add(key::NSPACE, std::string("job-1.1"));
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, rm_info, inst[0].corr});
  EXPECT_EQ(str(only<AllocResponse>(env.take_sent(), Address::requestor(1)).info, key::NSPACE), "job-1.1");
}

TEST_F(SchedulerTest, WholeNodesAreAskedForByCount) {
  connect_rm();
  InfoList info;
  info.add(key::ALLOC_NUM_NODES, std::uint64_t{2});
  sched.handle(Address::requestor(1), request(5, Directive::New, info));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n01:8,n02:8");
}

TEST_F(SchedulerTest, ARequestWithoutASizeIsABadParam) {
  connect_rm();
  sched.handle(Address::requestor(1), request(5, Directive::New, {}));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
}

TEST_F(SchedulerTest, ARefusedInstantiationIsReportedAndItsResourcesFreed) {
  connect_rm();
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(32)));
  auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::ErrBadParam, {}, inst[0].corr});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
  sched.handle(Address::requestor(1), request(6, Directive::New, cpus(32)));
  EXPECT_EQ(instantiations().size(), 1u);  // the whole machine is free again
}

// A request whose grant launches `sleep 5`, and the INSTANTIATE orders it gives.
InfoList with_app(InfoList info) {
  App app;
  app.cmd = "sleep";
  app.argv = {"5"};
  info.add(key::SESSION_APP, std::vector<App>{app});
  return info;
}

TEST_F(SchedulerTest, AFailedLaunchReportsTheRmsStatusEvenAfterTheComplete) {
  connect_rm();
  const auto inst = instantiations_of(request(5, Directive::New, with_app(cpus(8))));
  ASSERT_EQ(inst.size(), 1u);
  // The RM reclaims the session (COMPLETE) before it answers the instantiation.
  complete(inst[0].session_id, str(resources(inst[0]), key::ALLOC_ID));
  env.take_sent();
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::ErrJobFailedToLaunch, {}, inst[0].corr});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrJobFailedToLaunch);
  EXPECT_EQ(records().at(0).status, Status::ErrJobFailedToLaunch);
  sched.handle(Address::requestor(1), request(6, Directive::New, cpus(32)));
  EXPECT_EQ(instantiations().size(), 1u);  // and its resources are free
}

// The RM sends the COMPLETE first, but a real transport may deliver the failed answer first:
// the COMPLETE that follows is still the session's, accepted and recorded, not "not found".
TEST_F(SchedulerTest, AFailedLaunchsCompleteThatArrivesAfterItsAnswerIsAccepted) {
  connect_rm();
  const auto inst = instantiations_of(request(5, Directive::New, with_app(cpus(8))));
  ASSERT_EQ(inst.size(), 1u);
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::ErrJobFailedToMap, {}, inst[0].corr});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrJobFailedToMap);
  complete(inst[0].session_id, str(resources(inst[0]), key::ALLOC_ID), job_ended(Status::ErrJobFailedToMap));
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::controller()).status, Status::Success);
  ASSERT_EQ(records().size(), 1u);
  EXPECT_EQ(records()[0].status, Status::ErrJobFailedToMap);
  ASSERT_EQ(records()[0].jobs.size(), 1u);
  EXPECT_EQ(records()[0].jobs[0].second, Status::ErrJobFailedToMap);
  // Its slots went back once, with the answer: the whole machine is free, and no more.
  sched.handle(Address::requestor(1), request(6, Directive::New, cpus(32)));
  EXPECT_EQ(instantiations().size(), 1u);
  sched.handle(Address::requestor(1), request(7, Directive::New, cpus(1)));
  EXPECT_TRUE(instantiations().empty());
  // A second COMPLETE for it is unknown again.
  complete(inst[0].session_id, str(resources(inst[0]), key::ALLOC_ID));
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::controller()).status, Status::ErrNotFound);
}

TEST_F(SchedulerTest, FcfsARequestThatDoesNotFitWaitsAndIsNotOvertaken) {
  connect_rm();
  const std::string big = granted(1, 24);  // n01..n03
  sched.handle(Address::requestor(2), request(2, Directive::New, cpus(16)));
  sched.handle(Address::requestor(3), request(3, Directive::New, cpus(4)));  // fits, but must wait its turn
  EXPECT_TRUE(env.take_sent().empty());

  complete(1, big);
  const auto sent = env.take_sent();
  const auto done = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].first, Address::controller());
  EXPECT_EQ(done[0].second.status, Status::Success);
  std::vector<SessionCtrlRequest> inst;
  for (auto& [to, r] : all_of<SessionCtrlRequest>(sent)) inst.push_back(r);
  ASSERT_EQ(inst.size(), 2u);
  EXPECT_EQ(inst[0].corr, "req#2");  // in arrival order
  EXPECT_EQ(inst[1].corr, "req#3");
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n01:8,n02:8");
  EXPECT_EQ(str(resources(inst[1]), key::ALLOC_NODE_LIST), "n03:4");
}

TEST_F(SchedulerTest, CompleteIsRecordedWithItsJobs) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  InfoList job;
  job.add(key::NSPACE, std::string("job-1.1")).add(key::JOB_TERM_STATUS, Status::ErrJobNonZeroTerm);
  InfoList jobs;
  jobs.add(key::JOB_INFO_ARRAY, job);
  env.advance(7);
  complete(1, alloc, jobs);
  ASSERT_EQ(records().size(), 1u);
  const auto& rec = records()[0];
  EXPECT_EQ(rec.alloc_id, alloc);
  EXPECT_DOUBLE_EQ(rec.ended, 7.0);
  ASSERT_EQ(rec.jobs.size(), 1u);
  EXPECT_EQ(rec.jobs[0].first, "job-1.1");
  EXPECT_EQ(rec.jobs[0].second, Status::ErrJobNonZeroTerm);
}

TEST_F(SchedulerTest, CompleteOfAnUnknownSessionIsNotFound) {
  connect_rm();
  complete(4, "alloc-99");
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::controller()).status, Status::ErrNotFound);
}

TEST_F(SchedulerTest, CancellingAQueuedRequestAnswersBoth) {
  connect_rm();
  const std::string all = granted(1, 32);
  sched.handle(Address::requestor(2), request(2, Directive::New, cpus(4, "later")));
  EXPECT_TRUE(env.take_sent().empty());
  InfoList cancel;
  cancel.add(key::ALLOC_REQ_ID, std::string("later"));
  sched.handle(Address::requestor(2), request(3, Directive::ReqCancel, cancel));
  const auto answers = all_of<AllocResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].second.id, 2u);
  EXPECT_EQ(answers[0].second.status, Status::ErrJobCanceled);
  EXPECT_EQ(answers[1].second.id, 3u);
  EXPECT_EQ(answers[1].second.status, Status::Success);
  complete(1, all);  // nothing is left to grant
  EXPECT_TRUE(all_of<SessionCtrlRequest>(env.take_sent()).empty());
}

TEST_F(SchedulerTest, CancellingAnUnknownRequestIsNotFound) {
  connect_rm();
  InfoList cancel;
  cancel.add(key::ALLOC_REQ_ID, std::string("nope"));
  sched.handle(Address::requestor(2), request(3, Directive::ReqCancel, cancel));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrNotFound);
  sched.handle(Address::requestor(2), request(4, Directive::ReqCancel, {}));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrBadParam);
}

TEST_F(SchedulerTest, ReleaseByTheOwnerTerminatesTheSession) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  sched.handle(Address::requestor(1), request(2, Directive::Release, alloc_ref(alloc)));
  const auto term = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_TRUE(term.directives.flag(key::SESSION_TERMINATE));
  EXPECT_EQ(term.session_id, 1u);
  sched.handle(Address::controller(), SessionCtrlResponse{term.id, Status::Success, {}, term.corr});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(answer.id, 2u);
  EXPECT_EQ(answer.status, Status::Success);
}

TEST_F(SchedulerTest, ReleaseBySomeoneElseIsRefused) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  sched.handle(Address::requestor(2), request(2, Directive::Release, alloc_ref(alloc), Proc{"intruder", 0}));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrNoPermissions);
  sched.handle(Address::requestor(2), request(3, Directive::Release, alloc_ref("alloc-99")));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrNotFound);
}

// PMIX_ALLOC_TIME on PMIX_ALLOC_EXTEND is the "total session time" (the PMIx Standard),
// counted from the grant; the RM re-arms a session's limit from the moment it is told, so it
// is told what is left.
TEST_F(SchedulerTest, ExtendInTimeSetsANewTotalAndTellsTheRmWhatIsLeft) {
  connect_rm();
  InfoList limit;
  limit.add(key::ALLOC_TIME, std::string("10"));
  const std::string alloc = granted(1, 8, kTool, limit);
  env.advance(4);
  InfoList more = alloc_ref(alloc);
  more.add(key::ALLOC_TIME, std::string("15"));
  sched.handle(Address::requestor(1), request(2, Directive::Extend, more));
  const auto ext = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_TRUE(ext.directives.flag(key::SESSION_EXTEND));
  EXPECT_EQ(ext.session_id, 1u);
  EXPECT_NEAR(*read_alloc_time(ext.directives), 11.0, 1.0);  // 15 s in all, about 4 used
  EXPECT_FALSE(ext.directives.has(key::ALLOC_NODE_LIST));
  EXPECT_EQ(env.count_events("alloc.extend", {"\"time_limit\":15"}), 1u);
  sched.handle(Address::controller(), SessionCtrlResponse{ext.id, Status::Success, {}, ext.corr});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(answer.id, 2u);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(str(answer.info, key::ALLOC_ID), alloc);
}

TEST_F(SchedulerTest, ExtendToATotalAlreadyUsedUpIsABadParam) {
  connect_rm();
  InfoList limit;
  limit.add(key::ALLOC_TIME, std::string("10"));
  const std::string alloc = granted(1, 8, kTool, limit);
  env.advance(6);
  InfoList more = alloc_ref(alloc);
  more.add(key::ALLOC_TIME, std::string("5"));
  sched.handle(Address::requestor(1), request(2, Directive::Extend, more));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
}

TEST_F(SchedulerTest, ExtendWithNothingToAddIsABadParam) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  sched.handle(Address::requestor(1), request(2, Directive::Extend, alloc_ref(alloc)));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrBadParam);
}

TEST_F(SchedulerTest, ExtendInCpusAddsNodesTheRmIsToldAbout) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  InfoList more = alloc_ref(alloc);
  more.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  sched.handle(Address::requestor(1), request(2, Directive::Extend, more));
  const auto ext = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(str(ext.directives, key::ALLOC_NODE_LIST), "n02:4");
  sched.handle(Address::controller(), SessionCtrlResponse{ext.id, Status::Success, {}, ext.corr});
  EXPECT_EQ(str(only<AllocResponse>(env.take_sent(), Address::requestor(1)).info, key::ALLOC_NODE_LIST), "n01:8,n02:4");
}

TEST_F(SchedulerTest, ARequestLargerThanTheMachineIsRefusedAtOnce) {
  connect_rm();
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(33)));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  InfoList nodes;
  nodes.add(key::ALLOC_NUM_NODES, std::uint64_t{5});
  sched.handle(Address::requestor(1), request(6, Directive::New, nodes));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  // Refused, not queued: a later request that fits is not held behind it.
  sched.handle(Address::requestor(1), request(7, Directive::New, cpus(32)));
  EXPECT_EQ(instantiations().size(), 1u);
}

TEST_F(SchedulerTest, LosingTheControllerAnswersOutstandingCallsUnreachable) {
  connect_rm();
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(4)));
  sched.handle(Address::requestor(2), request(6, Directive::New, cpus(4)));
  ASSERT_EQ(instantiations().size(), 2u);
  sched.handle(Address::controller(), PeerLost{Address::controller()});
  EXPECT_FALSE(sched.rm_connected());
  const auto answers = all_of<AllocResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].first, Address::requestor(1));
  EXPECT_EQ(answers[0].second.id, 5u);
  EXPECT_EQ(answers[0].second.status, Status::ErrUnreach);
  EXPECT_EQ(answers[1].first, Address::requestor(2));
  EXPECT_EQ(answers[1].second.status, Status::ErrUnreach);
}

TEST_F(SchedulerTest, TheForwardedRequestorIsTheOwner) {
  connect_rm();
  // Relayed by the RM: the caller is the controller, the real requestor rides in the info.
  InfoList info = cpus(8);
  info.add(key::REQUESTOR, Proc{"user-job", 4});
  sched.handle(Address::controller(), request(40, Directive::New, info, Proc{"prte", 0}));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, {}, inst[0].corr});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(answer.id, 40u);  // back the way it came
  EXPECT_EQ(records().at(0).requestor, "user-job.4");
  const std::string alloc = str(answer.info, key::ALLOC_ID);

  InfoList other = alloc_ref(alloc);
  other.add(key::REQUESTOR, Proc{"someone", 0});
  sched.handle(Address::controller(), request(41, Directive::Release, other, Proc{"prte", 0}));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::controller()).status, Status::ErrNoPermissions);

  InfoList owner = alloc_ref(alloc);
  owner.add(key::REQUESTOR, Proc{"user-job", 0});
  sched.handle(Address::controller(), request(42, Directive::Release, owner, Proc{"prte", 0}));
  EXPECT_TRUE(only<SessionCtrlRequest>(env.take_sent(), Address::controller()).directives.flag(key::SESSION_TERMINATE));
}

// ---------------------------------------------------------------- what INSTANTIATE carries

TEST_F(SchedulerTest, InstantiationCarriesTheRequestorSeparationAndInheritance) {
  connect_rm();
  InfoList info = cpus(4);
  info.add(key::ALLOC_CHILD_SEP, true).add(key::SESSION_SEP, false).add(key::ALLOC_INHERITANCE, std::uint32_t{1});
  info.add(key::REQUESTOR, Proc{"app-3", 2});
  sched.handle(Address::controller(), request(5, Directive::New, info, Proc{"prte", 0}));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  const InfoList& d = inst[0].directives;
  ASSERT_NE(d.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*d.get<Proc>(key::REQUESTOR), (Proc{"app-3", 2}));  // the real requestor, not the relay
  ASSERT_NE(d.get<bool>(key::ALLOC_CHILD_SEP), nullptr);
  EXPECT_TRUE(*d.get<bool>(key::ALLOC_CHILD_SEP));
  ASSERT_NE(d.get<bool>(key::SESSION_SEP), nullptr);
  EXPECT_FALSE(*d.get<bool>(key::SESSION_SEP));  // false is passed on, not dropped
  EXPECT_EQ(resources(inst[0]).get_uint(key::ALLOC_INHERITANCE), 1u);
}

TEST_F(SchedulerTest, ADirectRequestIsOwnedByItsCaller) {
  connect_rm();
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(4), Proc{"submit", 7}));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  ASSERT_NE(inst[0].directives.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*inst[0].directives.get<Proc>(key::REQUESTOR), (Proc{"submit", 7}));
  EXPECT_FALSE(inst[0].directives.has(key::ALLOC_CHILD_SEP));
  EXPECT_FALSE(inst[0].directives.has(key::SESSION_SEP));
}

}  // namespace
}  // namespace pmixflow::test::scheduler_tests
