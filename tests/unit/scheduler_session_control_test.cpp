// A requestor's session control at the scheduler (FLOW.md §4): decided on ownership first, then
// ordered to the RM, and answered once, whether it came relayed by the RM or directly.
#include "scheduler_fixture.hpp"

namespace pmixflow::test::scheduler_tests {
namespace {

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

}  // namespace
}  // namespace pmixflow::test::scheduler_tests
