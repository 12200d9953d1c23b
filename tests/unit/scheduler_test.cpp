// The scheduler against a scripted Env, with the built-in FCFS policy: it decides, orders the
// RM through session control, and answers the requestor only once the RM has the session.
#include "pmixflow/roles/scheduler.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"
#include "ledger_sink.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {
namespace {

using test::all_of;
using test::FakeEnv;
using test::only;

Cluster small_cluster() {
  return Cluster({{"head", 8, false}, {"n01", 8, true}, {"n02", 8, true}, {"n03", 8, true}, {"n04", 8, true}});
}

const Proc kTool{"tool", 0};

inline constexpr char kFcfs[] = "fcfs";
inline constexpr char kPriorityPreempt[] = "priority-preempt";

template <const char* PolicyName>
class SchedulerFixture : public ::testing::Test {
 protected:
  Cluster cluster = small_cluster();
  FakeEnv env{Address::scheduler()};
  Scheduler sched{env, cluster, make_builtin_policy(PolicyName), config()};
  // The scheduler's accounting as the run's outputs read it from its events.
  test::SchedulerSink accounts;
  const std::vector<AllocationAccount>& records() const { return accounts.ledger.accounts(); }

  static SchedulerConfig config() {
    SchedulerConfig c;
    c.queue_priorities = {{"low", 0}, {"high", 10}};
    return c;
  }

  void SetUp() override {
    env.attach(accounts, "scheduler");
    sched.start();
    env.take_sent();
  }
  void connect_rm() {
    sched.handle(Address::controller(), ConnectResponse{1, Status::Success});
    ASSERT_TRUE(sched.rm_connected());
  }

  static AllocRequest request(std::uint64_t id, Directive d, InfoList info, Proc caller = kTool) {
    return AllocRequest{id, d, std::move(info), std::move(caller), "req#" + std::to_string(id)};
  }
  static InfoList cpus(std::uint64_t n, std::string req_id = "") {
    InfoList info;
    info.add(key::ALLOC_NUM_CPUS, n);
    if (!req_id.empty()) info.add(key::ALLOC_REQ_ID, std::move(req_id));
    return info;
  }
  static InfoList alloc_ref(const std::string& alloc_id) {
    InfoList info;
    info.add(key::ALLOC_ID, alloc_id);
    return info;
  }
  // The INSTANTIATE orders sent to the controller since the last look.
  std::vector<SessionCtrlRequest> instantiations() {
    std::vector<SessionCtrlRequest> out;
    for (auto& [to, req] : all_of<SessionCtrlRequest>(env.take_sent())) {
      EXPECT_EQ(to, Address::controller());
      EXPECT_TRUE(req.directives.flag(key::SESSION_INSTANTIATE));
      out.push_back(req);
    }
    return out;
  }
  static const InfoList& resources(const SessionCtrlRequest& inst) {
    static const InfoList none;
    const auto* res = inst.directives.get<InfoList>(key::SESSION_RESOURCES);
    EXPECT_NE(res, nullptr);
    return res ? *res : none;
  }
  static std::string str(const InfoList& info, std::string_view k) {
    const auto* s = info.get<std::string>(k);
    return s ? *s : "<missing " + std::string(k) + ">";
  }
  // Requestor 1 asks for `n` cpus, the RM instantiates it; returns the alloc id. Outbox empty.
  std::string granted(std::uint64_t id, std::uint64_t n, Proc caller = kTool, InfoList extra = {}) {
    InfoList info = cpus(n);
    for (auto& item : extra.items) info.items.push_back(std::move(item));
    sched.handle(Address::requestor(1), request(id, Directive::New, std::move(info), std::move(caller)));
    const auto inst = instantiations();
    EXPECT_EQ(inst.size(), 1u);
    if (inst.empty()) return "";
    sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, {}, inst[0].corr});
    const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
    EXPECT_EQ(answer.status, Status::Success);
    return str(answer.info, key::ALLOC_ID);
  }
  // The RM reports the session of `alloc_id` (session `session`) reclaimed.
  void complete(std::uint32_t session, const std::string& alloc_id, InfoList jobs = {}) {
    InfoList d;
    d.add(key::SESSION_COMPLETE, true).add(key::SESSION_ID, session).add(key::ALLOC_ID, alloc_id);
    for (auto& item : jobs.items) d.items.push_back(std::move(item));
    sched.handle(Address::controller(), SessionCtrlRequest{900 + session, session, std::move(d), Proc{"prte", 0}, "c"});
  }
  static InfoList job_ended(Status status) {
    InfoList job, jobs;
    job.add(key::NSPACE, std::string("job")).add(key::JOB_TERM_STATUS, status);
    jobs.add(key::JOB_INFO_ARRAY, job);
    return jobs;
  }
};

using SchedulerTest = SchedulerFixture<kFcfs>;
using PreemptingSchedulerTest = SchedulerFixture<kPriorityPreempt>;

TEST_F(SchedulerTest, StartAttachesToTheControllerAsTheScheduler) {
  FakeEnv fresh{Address::scheduler()};
  Scheduler s(fresh, cluster, make_builtin_policy("fcfs"));
  s.start();
  const auto req = only<ConnectRequest>(fresh.take_sent(), Address::controller());
  EXPECT_TRUE(req.info.flag(key::SERVER_SCHEDULER));
  EXPECT_FALSE(s.rm_connected());
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

TEST_F(SchedulerTest, AFailedLaunchReportsTheRmsStatusEvenAfterTheComplete) {
  connect_rm();
  App app;
  app.cmd = "sleep";
  app.argv = {"5"};
  InfoList info = cpus(8);
  info.add(key::SESSION_APP, std::vector<App>{app});
  sched.handle(Address::requestor(1), request(5, Directive::New, info));
  const auto inst = instantiations();
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

TEST_F(SchedulerTest, ExtendInTimeSendsTheNewTotalLimit) {
  connect_rm();
  InfoList limit;
  limit.add(key::ALLOC_TIME, std::string("10"));
  const std::string alloc = granted(1, 8, kTool, limit);
  InfoList more = alloc_ref(alloc);
  more.add(key::ALLOC_TIME, std::string("5"));
  sched.handle(Address::requestor(1), request(2, Directive::Extend, more));
  const auto ext = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_TRUE(ext.directives.flag(key::SESSION_EXTEND));
  EXPECT_EQ(ext.session_id, 1u);
  EXPECT_EQ(read_alloc_time(ext.directives), 15.0);
  EXPECT_FALSE(ext.directives.has(key::ALLOC_NODE_LIST));
  sched.handle(Address::controller(), SessionCtrlResponse{ext.id, Status::Success, {}, ext.corr});
  const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(answer.id, 2u);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(str(answer.info, key::ALLOC_ID), alloc);
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

TEST_F(SchedulerTest, ForwardedSessionControlOnAnUnknownSessionIsNotFound) {
  connect_rm();
  InfoList d;
  d.add(key::SESSION_PAUSE, true).add(key::REQUESTOR, kTool);
  sched.handle(Address::controller(), SessionCtrlRequest{8, 1, d, Proc{"prte", 0}, "t#1"});
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(r.id, 8u);
  EXPECT_EQ(r.status, Status::ErrNotFound);
}

TEST_F(SchedulerTest, ARequestorsSessionControlIsDecidedThenOrdered) {
  connect_rm();
  granted(1, 4);  // session 1, owned by kTool
  InfoList d;
  d.add(key::SESSION_PAUSE, true).add(key::REQUESTOR, kTool);
  sched.handle(Address::controller(), SessionCtrlRequest{8, 1, d, Proc{"prte", 0}, "t#9"});
  const auto order = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(order.session_id, 1u);
  EXPECT_TRUE(order.directives.flag(key::SESSION_PAUSE));
  EXPECT_FALSE(order.directives.has(key::REQUESTOR));
  sched.handle(Address::controller(), SessionCtrlResponse{order.id, Status::Success, {}, "t#9"});
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(r.id, 8u);
  EXPECT_EQ(r.status, Status::Success);
  // Someone else's session: refused without bothering the RM.
  InfoList other;
  other.add(key::SESSION_PAUSE, true).add(key::REQUESTOR, Proc{"mallory", 0});
  sched.handle(Address::controller(), SessionCtrlRequest{9, 1, other, Proc{"prte", 0}, "m#1"});
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::controller()).status, Status::ErrNoPermissions);
}

// ---------------------------------------------------------------- a requestor's session control (FLOW.md §4)

// A requestor's session control as the RM forwards it: caller prte, the real requestor inside.
SessionCtrlRequest forwarded_ctrl(std::uint64_t id, std::uint32_t session, std::string_view op, Proc requestor,
                                  InfoList extra = {}) {
  InfoList d;
  d.add(op, true);
  for (auto& item : extra.items) d.items.push_back(std::move(item));
  d.add(key::REQUESTOR, std::move(requestor));
  return SessionCtrlRequest{id, session, std::move(d), Proc{"prte", 0}, "fwd#" + std::to_string(id)};
}

TEST_F(SchedulerTest, AllSessionsMeansEverySessionTheRequestorOwnsAnsweredWhenAllAreDone) {
  connect_rm();
  granted(1, 4);                    // session 1: tool
  granted(2, 4, Proc{"other", 0});  // session 2: someone else
  granted(3, 4);                    // session 3: tool
  env.clear_events();
  sched.handle(Address::controller(), forwarded_ctrl(8, kAllSessions, key::SESSION_PAUSE, kTool));
  const auto orders = all_of<SessionCtrlRequest>(env.take_sent());
  ASSERT_EQ(orders.size(), 2u);
  for (const auto& [to, o] : orders) {
    EXPECT_EQ(to, Address::controller());
    EXPECT_TRUE(o.directives.flag(key::SESSION_PAUSE));
    EXPECT_FALSE(o.directives.has(key::REQUESTOR));  // an order: the RM does not re-check ownership
    EXPECT_EQ(o.caller, (Proc{"scheduler", 0}));
    EXPECT_EQ(o.corr, "fwd#8");
  }
  EXPECT_EQ(orders[0].second.session_id, 1u);
  EXPECT_EQ(orders[1].second.session_id, 3u);
  EXPECT_EQ(env.count_events("session_ctrl.decide", {"\"requestor\":\"tool.0\""}), 1u);

  sched.handle(Address::controller(), SessionCtrlResponse{orders[1].second.id, Status::Success, {}, "fwd#8"});
  EXPECT_TRUE(env.take_sent().empty());  // one session still to go
  sched.handle(Address::controller(), SessionCtrlResponse{orders[0].second.id, Status::Success, {}, "fwd#8"});
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(r.id, 8u);
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_EQ(r.corr, "fwd#8");
}

TEST_F(SchedulerTest, AllSessionsIsAnsweredWithTheFirstFailure) {
  connect_rm();
  granted(1, 4);
  granted(2, 4);
  sched.handle(Address::controller(), forwarded_ctrl(8, kAllSessions, key::SESSION_TERMINATE, kTool));
  const auto orders = all_of<SessionCtrlRequest>(env.take_sent());
  ASSERT_EQ(orders.size(), 2u);
  sched.handle(Address::controller(), SessionCtrlResponse{orders[0].second.id, Status::ErrNotFound, {}, "fwd#8"});
  sched.handle(Address::controller(), SessionCtrlResponse{orders[1].second.id, Status::Success, {}, "fwd#8"});
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(r.id, 8u);
  EXPECT_EQ(r.status, Status::ErrNotFound);
  // A late duplicate answer from the RM answers nobody twice.
  sched.handle(Address::controller(), SessionCtrlResponse{orders[1].second.id, Status::Success, {}, "fwd#8"});
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(SchedulerTest, AllSessionsWithNothingOwnedSucceedsWithoutOrders) {
  connect_rm();
  granted(1, 4, Proc{"other", 0});
  sched.handle(Address::controller(), forwarded_ctrl(8, kAllSessions, key::SESSION_PAUSE, kTool));
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(r.id, 8u);
  EXPECT_EQ(r.status, Status::Success);
}

TEST_F(SchedulerTest, AllSessionsSkipsAllocationsTheRmHasNotInstantiatedYet) {
  connect_rm();
  granted(1, 4);
  sched.handle(Address::requestor(1), request(2, Directive::New, cpus(4)));
  ASSERT_EQ(instantiations().size(), 1u);  // session 2 is on its way, not yet the RM's
  sched.handle(Address::controller(), forwarded_ctrl(8, kAllSessions, key::SESSION_PAUSE, kTool));
  const auto order = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(order.session_id, 1u);
}

TEST_F(SchedulerTest, SessionControlWithoutTheRmIsUnreachable) {
  sched.handle(Address::controller(), forwarded_ctrl(8, 1, key::SESSION_PAUSE, kTool));
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(r.id, 8u);
  EXPECT_EQ(r.status, Status::ErrUnreach);
}

TEST_F(SchedulerTest, SessionControlCannotChooseResources) {
  connect_rm();
  granted(1, 4);
  sched.handle(Address::controller(), forwarded_ctrl(8, 2, key::SESSION_INSTANTIATE, kTool));
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::controller()).status, Status::ErrNotSupported);
  InfoList nodes;
  nodes.add(key::ALLOC_NODE_LIST, std::string("n02:8"));
  sched.handle(Address::controller(), forwarded_ctrl(9, 1, key::SESSION_EXTEND, kTool, nodes));
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::controller()).status, Status::ErrNotSupported);
}

TEST_F(SchedulerTest, ATimeExtensionIsOrderedWithItsOtherDirectives) {
  connect_rm();
  granted(1, 4);
  InfoList more;
  more.add(key::ALLOC_TIME, std::string("1:00"));
  sched.handle(Address::controller(), forwarded_ctrl(8, 1, key::SESSION_EXTEND, kTool, more));
  const auto order = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(order.session_id, 1u);
  EXPECT_TRUE(order.directives.flag(key::SESSION_EXTEND));
  EXPECT_EQ(read_alloc_time(order.directives), 60.0);
}

TEST_F(SchedulerTest, SessionControlSentDirectlyIsAnsweredToItsSender) {
  connect_rm();
  granted(1, 4);
  InfoList d;
  d.add(key::SESSION_RESUME, true);
  sched.handle(Address::requestor(2), SessionCtrlRequest{5, 1, d, kTool, "direct#1"});  // no REQUESTOR: the caller
  const auto order = only<SessionCtrlRequest>(env.take_sent(), Address::controller());
  EXPECT_TRUE(order.directives.flag(key::SESSION_RESUME));
  sched.handle(Address::controller(), SessionCtrlResponse{order.id, Status::Success, {}, "direct#1"});
  const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::requestor(2));
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.status, Status::Success);
  // And a direct caller that does not own the session is refused.
  sched.handle(Address::requestor(3), SessionCtrlRequest{6, 1, d, Proc{"mallory", 0}, "direct#2"});
  EXPECT_EQ(only<SessionCtrlResponse>(env.take_sent(), Address::requestor(3)).status, Status::ErrNoPermissions);
}

// A direct caller's session control in flight when the RM goes away is answered once, as a
// session control (FLOW.md §2: every request gets exactly one answer).
TEST_F(SchedulerTest, LosingTheRmAnswersAPendingSessionControlOnceAsSessionControl) {
  connect_rm();
  granted(1, 4);
  granted(2, 4);
  InfoList d;
  d.add(key::SESSION_PAUSE, true);
  sched.handle(Address::requestor(2), SessionCtrlRequest{5, kAllSessions, d, kTool, "direct#1"});
  ASSERT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 2u);
  sched.handle(Address::controller(), PeerLost{Address::controller()});
  const auto sent = env.take_sent();
  EXPECT_EQ(sent.size(), 1u) << "one call, one answer";
  const auto answers = all_of<SessionCtrlResponse>(sent);
  ASSERT_EQ(answers.size(), 1u) << "the caller of PMIx_Session_control got a different kind of answer";
  EXPECT_EQ(answers[0].first, Address::requestor(2));
  EXPECT_EQ(answers[0].second.id, 5u);
  EXPECT_EQ(answers[0].second.status, Status::ErrUnreach);
}

TEST_F(SchedulerTest, ADirectToolThatGoesAwayIsReportedToTheRm) {
  connect_rm();
  granted(1, 4, Proc{"submit", 2});  // from requestor 1, attached here directly
  sched.handle(Address::requestor(1), PeerLost{Address::requestor(1)});
  const auto note = only<Notification>(env.take_sent(), Address::controller());
  EXPECT_EQ(note.code, Status::ErrLostConnection);
  ASSERT_NE(note.info.get<Proc>("pmix.procid"), nullptr);
  EXPECT_EQ(*note.info.get<Proc>("pmix.procid"), (Proc{"submit", 2}));
  sched.handle(Address::requestor(1), PeerLost{Address::requestor(1)});  // once
  sched.handle(Address::requestor(5), PeerLost{Address::requestor(5)});  // never a tool of ours
  EXPECT_TRUE(env.take_sent().empty());
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

// ---------------------------------------------------------------- PMIX_EVENT_NODE_DOWN

Notification node_down_event(std::string name) {
  InfoList info;
  info.add("pmix.hname", std::move(name));
  return Notification{Status::EventNodeDown, info, ""};
}

TEST_F(SchedulerTest, ANodeReportedDownLeavesThePool) {
  connect_rm();
  sched.handle(Address::controller(), node_down_event("n01"));
  EXPECT_EQ(env.count_events("node.removed", {"\"node\":\"n01\""}), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  // The machine is smaller now: what only the whole machine could hold is refused at once.
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(32)));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  InfoList four;
  four.add(key::ALLOC_NUM_NODES, std::uint64_t{4});
  sched.handle(Address::requestor(1), request(6, Directive::New, four));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(1)).status, Status::ErrOutOfResource);
  // What is left is handed out without the dead node.
  sched.handle(Address::requestor(1), request(7, Directive::New, cpus(24)));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
}

TEST_F(SchedulerTest, ANodeDownTwiceOrUnknownOrAnotherEventChangesNothing) {
  connect_rm();
  sched.handle(Address::controller(), node_down_event("n01"));
  sched.handle(Address::controller(), node_down_event("n01"));
  sched.handle(Address::controller(), node_down_event("n99"));
  InfoList other;
  other.add("pmix.hname", std::string("n02"));
  sched.handle(Address::controller(), Notification{Status::DvmIsReady, other, ""});
  EXPECT_EQ(env.count_events("node.removed"), 1u);
  EXPECT_TRUE(env.take_sent().empty());
  sched.handle(Address::requestor(1), request(5, Directive::New, cpus(24)));  // n02..n04 are all still there
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
}

TEST_F(SchedulerTest, ADeadNodeIsNotHandedOutAgainWhenItsSessionEnds) {
  connect_rm();
  const std::string alloc = granted(1, 8);  // n01
  sched.handle(Address::controller(), node_down_event("n01"));
  complete(1, alloc);
  env.take_sent();
  sched.handle(Address::requestor(1), request(2, Directive::New, cpus(24)));
  auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, {}, inst[0].corr});
  env.take_sent();
  sched.handle(Address::requestor(1), request(3, Directive::New, cpus(8)));
  EXPECT_TRUE(env.take_sent().empty());  // waits: n01 is gone, not free
}

TEST_F(SchedulerTest, APartlyUsedNodeThatGoesDownKeepsNoFreeSlots) {
  connect_rm();
  granted(1, 4);  // n01:4, 4 slots still free there
  sched.handle(Address::controller(), node_down_event("n01"));
  sched.handle(Address::requestor(1), request(2, Directive::New, cpus(24)));
  const auto inst = instantiations();
  ASSERT_EQ(inst.size(), 1u);
  EXPECT_EQ(str(resources(inst[0]), key::ALLOC_NODE_LIST), "n02:8,n03:8,n04:8");
}

// Every request gets exactly one answer (FLOW.md §2), and one the machine can never hold is
// refused rather than left waiting: also when the machine shrinks while it waits.
TEST_F(SchedulerTest, AQueuedRequestTheShrunkMachineCanNeverHoldIsRefused) {
  connect_rm();
  const std::string alloc = granted(1, 8);
  sched.handle(Address::requestor(2), request(2, Directive::New, cpus(32)));
  EXPECT_TRUE(env.take_sent().empty());  // queued behind session 1
  sched.handle(Address::controller(), node_down_event("n02"));
  const auto refused = all_of<AllocResponse>(env.take_sent());
  ASSERT_EQ(refused.size(), 1u) << "a request for 32 cpus on a 24-cpu machine is left waiting for ever";
  EXPECT_EQ(refused[0].first, Address::requestor(2));
  EXPECT_EQ(refused[0].second.id, 2u);
  EXPECT_EQ(refused[0].second.status, Status::ErrOutOfResource);
}

}  // namespace
}  // namespace pmixflow

namespace pmixflow {
namespace {

InfoList in_queue(const std::string& queue, bool preemptible) {
  InfoList info;
  info.add(key::ALLOC_QUEUE, queue);
  if (preemptible) info.add(key::ALLOC_PREEMPTIBLE, true);
  return info;
}

TEST_F(PreemptingSchedulerTest, AHigherPriorityRequestTerminatesAPreemptibleSessionAndItIsRequeued) {
  connect_rm();
  const std::string low = granted(1, 32, kTool, in_queue("low", true));  // the whole machine
  env.advance(5);
  InfoList high = cpus(16);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high), Proc{"boss", 0}));
  // Resources are taken back with a TERMINATE (PREEMPT would keep them), nothing granted yet.
  const auto orders = all_of<SessionCtrlRequest>(env.take_sent());
  ASSERT_EQ(orders.size(), 1u);
  EXPECT_EQ(orders[0].second.session_id, 1u);
  EXPECT_TRUE(orders[0].second.directives.flag(key::SESSION_TERMINATE));
  sched.handle(Address::controller(), SessionCtrlResponse{orders[0].second.id, Status::Success, {}, "t"});
  EXPECT_TRUE(env.take_sent().empty());

  env.advance(1);
  complete(1, low, job_ended(Status::ErrJobKilledByCmd));
  const auto sent = env.take_sent();
  const auto inst = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(inst.size(), 1u);  // the high request only: the requeued one no longer fits
  EXPECT_EQ(str(resources(inst[0].second), key::ALLOC_ID), "alloc-2");
  const auto& rec = records()[0];
  EXPECT_EQ(rec.preemptions, 1u);
  EXPECT_DOUBLE_EQ(rec.lost_cpu_s, 6.0 * 32);
  EXPECT_LT(rec.started, 0);  // waiting again

  // The high session runs and ends: the requeued request is instantiated again, and its
  // requestor, who had its answer long ago, is not answered a second time.
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].second.id, Status::Success, {}, "i"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::Success);
  env.advance(10);
  complete(2, "alloc-2");
  const auto again = instantiations();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(str(resources(again[0]), key::ALLOC_ID), "alloc-3");
  sched.handle(Address::controller(), SessionCtrlResponse{again[0].id, Status::Success, {}, "i"});
  EXPECT_TRUE(all_of<AllocResponse>(env.take_sent()).empty());
  EXPECT_DOUBLE_EQ(records()[0].started, 16.0);
}

TEST_F(PreemptingSchedulerTest, LosingTheRmDuringAPreemptionAnswersNobodyTwice) {
  connect_rm();
  granted(1, 32, kTool, in_queue("low", true));
  InfoList high = cpus(8);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high)));
  ASSERT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 1u);  // the TERMINATE
  sched.handle(Address::controller(), PeerLost{Address::controller()});
  // The TERMINATE had no caller; the waiting request is still queued, not answered.
  EXPECT_TRUE(all_of<AllocResponse>(env.take_sent()).empty());
}

TEST_F(PreemptingSchedulerTest, AJobThatFinishedBeforeTheTerminateIsNotRequeued) {
  connect_rm();
  const std::string low = granted(1, 32, kTool, in_queue("low", true));
  InfoList high = cpus(8);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high)));
  ASSERT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 1u);
  complete(1, low, job_ended(Status::Success));  // it completed on its own meanwhile
  EXPECT_EQ(records()[0].preemptions, 0u);
  EXPECT_GE(records()[0].ended, 0);
  EXPECT_EQ(instantiations().size(), 1u);  // the high request
}

TEST_F(PreemptingSchedulerTest, ASessionNotGrantedPreemptibleIsNeverTerminated) {
  connect_rm();
  granted(1, 32, kTool, in_queue("low", false));
  InfoList high = cpus(8);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high)));
  EXPECT_TRUE(all_of<SessionCtrlRequest>(env.take_sent()).empty());
}

TEST_F(PreemptingSchedulerTest, AnUnknownQueueIsABadParam) {
  connect_rm();
  InfoList info = cpus(8);
  info.add(key::ALLOC_QUEUE, std::string("gold"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(info)));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrBadParam);
}

}  // namespace
}  // namespace pmixflow
