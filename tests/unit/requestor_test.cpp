// The requestor against a scripted Env: calls go out at their planned times, every answer
// (or failure) is logged once, with its latency; the calls as the run's outputs read them from
// the log (the call ledger) say so.
#include "pmixflow/roles/requestor.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "fake_env.hpp"
#include "ledger_sink.hpp"

namespace pmixflow {
namespace {

using test::all_of;
using test::FakeEnv;
using test::only;

const Proc kMe{"tool-7", 0};

PlannedCall alloc_at(double at, Address via, std::string corr, Directive d = Directive::New) {
  AllocRequest req;
  req.directive = d;
  req.info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  req.corr = std::move(corr);
  return PlannedCall{at, via, req, {}};
}

PlannedCall session_ctrl_at(double at, Address via, std::string corr) {
  SessionCtrlRequest req;
  req.session_id = 3;
  req.directives.add(key::SESSION_TERMINATE, true);
  req.corr = std::move(corr);
  return PlannedCall{at, via, req, {}};
}

PlannedCall spawn_at(double at, Address via, std::string corr, std::optional<Directive> alloc = std::nullopt) {
  SpawnRequest req;
  App app;
  app.cmd = "sleep";
  app.argv = {"5"};
  app.maxprocs = 4;
  req.apps = {app};
  if (alloc) {
    InfoList a;
    a.add(key::ALLOC_REQ_DIRECTIVE, *alloc).add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
    req.job_info.add(key::SPAWN_ALLOC, a);
  }
  req.corr = std::move(corr);
  return PlannedCall{at, via, req, {}};
}

class RequestorTest : public ::testing::Test {
 protected:
  RequestorTest() { env.attach(calls, "requestor:tool-7"); }
  const CallRecord& call(std::size_t i) const { return calls.at(i); }
  std::size_t placed() const { return calls.ledger.calls().size(); }
  // An answer's info as the log holds it.
  static nlohmann::json info_of(const CallRecord& c) { return nlohmann::json::parse(c.answer_info()); }

  FakeEnv env{Address::requestor(7)};
  test::CallsSink calls;
};

TEST_F(RequestorTest, CallsGoOutAtTheirPlannedTimesNotBefore) {
  // Out of order in the plan; placed in time order, ties in plan order.
  Requestor r(env, kMe,
              {alloc_at(5, Address::controller(), "t#1"), session_ctrl_at(2, Address::daemon(1), "t#2"),
               alloc_at(5, Address::scheduler(), "t#3", Directive::Release)});
  r.start();
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(1.999);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.001);
  const auto first = only<SessionCtrlRequest>(env.take_sent(), Address::daemon(1));
  EXPECT_EQ(first.corr, "t#2");
  EXPECT_EQ(first.caller, kMe);  // the call carries the requestor's own identity
  EXPECT_EQ(first.session_id, 3u);
  EXPECT_TRUE(first.directives.flag(key::SESSION_TERMINATE));

  env.advance(2.999);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.001);
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 2u);
  const auto allocs = all_of<AllocRequest>(sent);
  ASSERT_EQ(allocs.size(), 2u);
  EXPECT_EQ(allocs[0].first, Address::controller());
  EXPECT_EQ(allocs[0].second.corr, "t#1");
  EXPECT_EQ(allocs[0].second.directive, Directive::New);
  EXPECT_EQ(allocs[1].first, Address::scheduler());
  EXPECT_EQ(allocs[1].second.corr, "t#3");
  EXPECT_EQ(allocs[1].second.directive, Directive::Release);
  // Every call has its own id.
  EXPECT_NE(allocs[0].second.id, allocs[1].second.id);
  EXPECT_NE(allocs[0].second.id, first.id);

  ASSERT_EQ(placed(), 3u);
  EXPECT_DOUBLE_EQ(call(0).sent, 2.0);
  EXPECT_DOUBLE_EQ(call(1).sent, 5.0);
  EXPECT_EQ(call(0).what, "PMIX_SESSION_TERMINATE");
  EXPECT_EQ(call(1).what, "PMIX_ALLOC_NEW");
  EXPECT_EQ(call(2).what, "PMIX_ALLOC_RELEASE");
  EXPECT_EQ(call(1).via, "controller");
  EXPECT_EQ(call(1).directive, "PMIX_ALLOC_NEW");
  EXPECT_EQ(call(1).info(), R"([["pmix.alloc.ncpus",4]])");               // what it asked, in the log
  for (const auto& c : calls.ledger.calls()) EXPECT_FALSE(c.answered);  // nothing answered yet
}

TEST_F(RequestorTest, WithoutDetailTheLedgerKeepsWhatACallAskedButNotItsInfo) {
  // A replay's report keeps no call's info (its outputs read none): what a job asked is kept.
  calls.ledger.keep_detail(false);
  PlannedCall planned = alloc_at(1, Address::scheduler(), "job1");
  App app;
  app.cmd = "sleep";
  std::get<AllocRequest>(planned.call).info.add(key::SESSION_APP, std::vector<App>{app});
  Requestor r(env, kMe, {planned});
  r.start();
  env.advance(1);
  const std::uint64_t id = message_id(env.take_sent().at(0).msg);
  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-1"));
  r.handle(Address::scheduler(), AllocResponse{id, Status::Success, info, "job1"});
  EXPECT_TRUE(call(0).info().empty());
  EXPECT_EQ(call(0).answer_info(), "[]");
  EXPECT_EQ(call(0).asked.cpus, 4u);
  EXPECT_EQ(call(0).asked.profile, "sleep");
  EXPECT_EQ(call(0).status, Status::Success);
}

TEST_F(RequestorTest, ACallPlannedInThePastGoesOutAtStartNotBefore) {
  env.advance(10);
  Requestor r(env, kMe, {alloc_at(4, Address::controller(), "t#1")});
  r.start();
  env.advance(0);
  EXPECT_EQ(only<AllocRequest>(env.take_sent(), Address::controller()).corr, "t#1");
  EXPECT_DOUBLE_EQ(call(0).sent, 10.0);
}

TEST_F(RequestorTest, AnswersAreRecordedWithStatusAndLatency) {
  Requestor r(env, kMe, {alloc_at(1, Address::controller(), "t#1"), session_ctrl_at(2, Address::daemon(2), "t#2")});
  r.start();
  env.advance(2);
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 2u);
  const std::uint64_t alloc_id = message_id(sent[0].msg);
  const std::uint64_t ctrl_id = message_id(sent[1].msg);

  env.advance(1.5);  // t = 3.5
  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-1"));
  r.handle(Address::controller(), AllocResponse{alloc_id, Status::ErrOutOfResource, info, "t#1"});
  env.advance(4);  // t = 7.5
  r.handle(Address::daemon(2), SessionCtrlResponse{ctrl_id, Status::Success, {}, "t#2"});

  ASSERT_EQ(placed(), 2u);
  EXPECT_EQ(call(0).corr, "t#1");
  EXPECT_EQ(call(0).status, Status::ErrOutOfResource);
  // An error comes to the caller without info, as the PMIx client library hands it.
  EXPECT_EQ(call(0).answer_info(), "[]");
  EXPECT_DOUBLE_EQ(*call(0).answered - call(0).sent, 2.5);
  EXPECT_EQ(call(1).corr, "t#2");
  EXPECT_EQ(call(1).status, Status::Success);
  EXPECT_DOUBLE_EQ(*call(1).answered - call(1).sent, 5.5);

  ASSERT_EQ(env.count_events("answer"), 2u);
  std::size_t with_latency = 0;
  for (const auto& e : env.events())
    with_latency += e.kind == "answer" && e.fields.find("\"t#1\"") != std::string::npos &&
                    e.fields.find("\"latency\":2.5") != std::string::npos;
  EXPECT_EQ(with_latency, 1u);
}

TEST_F(RequestorTest, OnlyTheFirstAnswerCounts) {
  Requestor r(env, kMe, {alloc_at(0, Address::controller(), "t#1")});
  r.start();
  env.advance(0);
  const std::uint64_t id = message_id(env.take_sent().at(0).msg);
  env.advance(1);
  r.handle(Address::controller(), AllocResponse{id, Status::Success, {}, "t#1"});
  env.advance(1);
  r.handle(Address::controller(), AllocResponse{id, Status::ErrUnreach, {}, "t#1"});
  r.handle(Address::controller(), PeerLost{Address::controller()});
  EXPECT_EQ(call(0).status, Status::Success);
  EXPECT_DOUBLE_EQ(*call(0).answered, 1.0);
  EXPECT_EQ(env.count_events("answer"), 1u);
}

TEST_F(RequestorTest, LosingTheEntryPointFailsEveryCallThroughIt) {
  Requestor r(env, kMe,
              {alloc_at(1, Address::controller(), "t#1"), session_ctrl_at(1, Address::controller(), "t#2"),
               alloc_at(1, Address::daemon(3), "t#3")});
  r.start();
  env.advance(1);
  env.take_sent();
  env.advance(1);
  r.handle(Address::controller(), PeerLost{Address::controller()});
  ASSERT_EQ(placed(), 3u);
  EXPECT_EQ(call(0).status, Status::ErrUnreach);
  EXPECT_DOUBLE_EQ(*call(0).answered, 2.0);
  EXPECT_EQ(call(1).status, Status::ErrUnreach);
  EXPECT_DOUBLE_EQ(*call(1).answered, 2.0);
  EXPECT_FALSE(call(2).answered);  // another entry point: still waiting
  EXPECT_TRUE(env.take_sent().empty());
}

TEST_F(RequestorTest, AnUnreachableCallIsAnsweredAlone) {
  Requestor r(env, kMe, {alloc_at(1, Address::daemon(3), "t#1"), alloc_at(1, Address::daemon(3), "t#2")});
  r.start();
  env.advance(1);
  const auto sent = env.take_sent();
  ASSERT_EQ(sent.size(), 2u);
  env.advance(0.25);
  r.handle(Address::daemon(3),
           Unreachable{Address::daemon(3), MessageKind::AllocRequest, message_id(sent[1].msg), "t#2"});
  EXPECT_FALSE(call(0).answered);
  EXPECT_EQ(call(1).status, Status::ErrUnreach);
  EXPECT_DOUBLE_EQ(*call(1).answered - call(1).sent, 0.25);
}

TEST_F(RequestorTest, EventsAreLoggedNotMistakenForAnswers) {
  Requestor r(env, kMe, {alloc_at(0, Address::controller(), "t#1")});
  r.start();
  env.advance(0);
  r.handle(Address::controller(), Notification{Status::DvmIsReady, {}, "t#1"});
  EXPECT_FALSE(call(0).answered);
  EXPECT_EQ(env.count_events("event.received"), 1u);
}

// ---------------------------------------------------------------- PMIx_Spawn

TEST_F(RequestorTest, SpawnsGoOutAtTheirTimesWithTheRequestorsIdentity) {
  Requestor r(env, kMe,
              {spawn_at(3, Address::daemon(2), "t#1", Directive::New), spawn_at(4, Address::controller(), "t#2")});
  r.start();
  env.advance(3);
  const auto first = only<SpawnRequest>(env.take_sent(), Address::daemon(2));
  EXPECT_EQ(first.caller, kMe);
  EXPECT_EQ(first.corr, "t#1");
  ASSERT_EQ(first.apps.size(), 1u);
  EXPECT_EQ(first.apps[0].maxprocs, 4u);
  const auto* alloc = first.job_info.get<InfoList>(key::SPAWN_ALLOC);
  ASSERT_NE(alloc, nullptr);
  ASSERT_NE(alloc->get<Directive>(key::ALLOC_REQ_DIRECTIVE), nullptr);
  EXPECT_EQ(*alloc->get<Directive>(key::ALLOC_REQ_DIRECTIVE), Directive::New);
  env.advance(1);
  const auto second = only<SpawnRequest>(env.take_sent(), Address::controller());
  EXPECT_EQ(second.corr, "t#2");
  EXPECT_NE(second.id, first.id);
  ASSERT_EQ(placed(), 2u);
  EXPECT_EQ(call(0).what, "PMIx_Spawn+PMIX_ALLOC_NEW");
  EXPECT_EQ(call(1).what, "PMIx_Spawn");
  EXPECT_EQ(env.count_events("call", {"\"what\":\"PMIx_Spawn+PMIX_ALLOC_NEW\""}), 1u);
}

TEST_F(RequestorTest, ASpawnAnswerRecordsTheNspace) {
  Requestor r(env, kMe, {spawn_at(1, Address::controller(), "t#1", Directive::New)});
  r.start();
  env.advance(1);
  const std::uint64_t id = message_id(env.take_sent().at(0).msg);
  env.advance(2.5);
  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-4")).add(key::SESSION_ID, std::uint32_t{4});
  r.handle(Address::controller(), SpawnResponse{id, Status::Success, "job-4.1", info, "t#1"});
  const CallRecord& res = call(0);
  EXPECT_EQ(res.status, Status::Success);
  EXPECT_DOUBLE_EQ(*res.answered - res.sent, 2.5);
  EXPECT_EQ(res.answer_info(), R"([["pmix.alloc.id","alloc-4"],["pmix.session.id",4],["pmix.nspace","job-4.1"]])");
  EXPECT_EQ(env.count_events("answer", {"\"job-4.1\"", "\"latency\":2.5"}), 1u);
  // Answered once.
  r.handle(Address::controller(), SpawnResponse{id, Status::ErrJobAllocFailed, "", {}, "t#1"});
  EXPECT_EQ(call(0).status, Status::Success);
}

TEST_F(RequestorTest, AFailedSpawnHasNoNspace) {
  Requestor r(env, kMe, {spawn_at(0, Address::controller(), "t#1", Directive::New)});
  r.start();
  env.advance(0);
  const std::uint64_t id = message_id(env.take_sent().at(0).msg);
  r.handle(Address::controller(), SpawnResponse{id, Status::ErrJobAllocFailed, "", {}, "t#1"});
  EXPECT_EQ(call(0).status, Status::ErrJobAllocFailed);
  EXPECT_EQ(call(0).answer_info(), "[]");  // no nspace
  EXPECT_DOUBLE_EQ(*call(0).answered, 0.0);
}

TEST_F(RequestorTest, ASpawnThroughALostEntryPointFails) {
  Requestor r(env, kMe, {spawn_at(1, Address::daemon(3), "t#1")});
  r.start();
  env.advance(1);
  env.take_sent();
  r.handle(Address::daemon(3), PeerLost{Address::daemon(3)});
  EXPECT_EQ(call(0).status, Status::ErrUnreach);
  EXPECT_EQ(call(0).answer_info(), "[]");
}

TEST(DescribeCall, NamesTheDirectiveOrTheSessionOperations) {
  EXPECT_EQ(describe_call(AllocRequest{0, Directive::ReqCancel, {}, {}, ""}), "PMIX_ALLOC_REQ_CANCEL");
  SessionCtrlRequest s;
  s.directives.add(key::SESSION_EXTEND, true).add(key::SESSION_SEP, true).add(key::ALLOC_TIME, std::string("5"));
  EXPECT_EQ(describe_call(s), "PMIX_SESSION_EXTEND+PMIX_SESSION_SEP");
  EXPECT_EQ(describe_call(SessionCtrlRequest{}), "PMIx_Session_control");
  EXPECT_EQ(describe_call(SpawnRequest{}), "PMIx_Spawn");
  SpawnRequest sp;
  InfoList alloc;
  alloc.add(key::ALLOC_REQ_DIRECTIVE, Directive::Activate);
  sp.job_info.add(key::SPAWN_ALLOC, alloc);
  EXPECT_EQ(describe_call(sp), "PMIx_Spawn+PMIX_ALLOC_ACTIVATE");
}

}  // namespace
}  // namespace pmixflow
