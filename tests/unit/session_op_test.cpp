// PMIx_Session_control's directives read as one operation, and who may ask for what: the
// rules a requestor meets when no scheduler decides for it (FLOW.md §4).
#include "pmixflow/roles/controller/session_op.hpp"

#include <gtest/gtest.h>

#include "pmixflow/model/node_slots.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {
namespace {

Status refusal(const ParsedSessionCtrl& p) {
  const auto* st = std::get_if<Status>(&p.result);
  return st ? *st : Status::Success;
}

TEST(SessionOperation, OneOperationIsReadWithTheJobsItNames) {
  InfoList d;
  d.add(key::SESSION_PREEMPT, true).add(key::NSPACE, std::string("job-3.1")).add(key::NSPACE, std::string("job-3.2"));
  const auto p = parse_session_ctrl(d);
  ASSERT_EQ(refusal(p), Status::Success);
  const auto& op = std::get<SessionOperation>(p.result);
  EXPECT_EQ(op.verb, SessionOp::Preempt);
  EXPECT_EQ(op.named, (std::vector<std::string>{"job-3.1", "job-3.2"}));
  EXPECT_FALSE(op.sep.has_value());
  EXPECT_EQ(p.names, "PMIX_SESSION_PREEMPT");
}

TEST(SessionOperation, TwoOperationsOrNoneAreABadParameter) {
  InfoList two;
  two.add(key::SESSION_PAUSE, true).add(key::SESSION_TERMINATE, true);
  const auto p = parse_session_ctrl(two);
  EXPECT_EQ(refusal(p), Status::ErrBadParam);
  EXPECT_EQ(p.names, "PMIX_SESSION_PAUSE+PMIX_SESSION_TERMINATE");  // the log still says what was asked
  EXPECT_EQ(refusal(parse_session_ctrl(InfoList{})), Status::ErrBadParam);
  InfoList unset;
  unset.add(key::SESSION_PAUSE, false);  // a directive set false asks for nothing
  EXPECT_EQ(refusal(parse_session_ctrl(unset)), Status::ErrBadParam);
}

TEST(SessionOperation, CompleteIsReadAsAnOperationAndResourceSelectionIsRefused) {
  // COMPLETE is refused once its session is found and its caller entitled (PRRTE's
  // apply_to_session()), so an unknown session answers PMIX_ERR_NOT_FOUND first.
  InfoList complete;
  complete.add(key::SESSION_COMPLETE, true);
  const auto c = parse_session_ctrl(complete);
  ASSERT_EQ(refusal(c), Status::Success);
  EXPECT_EQ(std::get<SessionOperation>(c.result).verb, SessionOp::Complete);
  InfoList select;
  InfoList res;
  res.add(key::ALLOC_NUM_NODES, std::uint64_t{2});
  select.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_RESOURCES, std::move(res));
  EXPECT_EQ(refusal(parse_session_ctrl(select)), Status::ErrNotSupported);
  InfoList provision;
  provision.add(key::SESSION_EXTEND, true).add(key::SESSION_PROVISION_IMAGE, std::string("rhel9"));
  EXPECT_EQ(refusal(parse_session_ctrl(provision)), Status::ErrNotSupported);
  // Beside the directive PRRTE refuses only counts and sizes: a queue is ignored there.
  InfoList queue;
  queue.add(key::SESSION_EXTEND, true).add(key::ALLOC_TIME, std::string("2:00")).add(key::ALLOC_QUEUE, std::string("b"));
  EXPECT_EQ(refusal(parse_session_ctrl(queue)), Status::Success);
  InfoList in_res;
  InfoList cpus;
  cpus.add(key::ALLOC_CPU_LIST, std::string("0-3"));
  in_res.add(key::SESSION_EXTEND, true).add(key::SESSION_RESOURCES, std::move(cpus));
  EXPECT_EQ(refusal(parse_session_ctrl(in_res)), Status::ErrNotSupported);
}

// PRRTE's parse_directives(): what it refuses before looking for the session.
TEST(SessionOperation, BadValuesAndStrayJobsAreABadParameterWhateverTheOperation) {
  const auto refused = [](InfoList d) { return refusal(parse_session_ctrl(d)); };
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_SIGNAL, std::int32_t{0})), Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_SIGNAL, std::int32_t{-9})), Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_SIGNAL, std::string("TERM"))), Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_PAUSE, true).add(key::ALLOC_TIME, std::string("1::2"))),
            Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_PAUSE, true).add(key::TIMEOUT, std::int32_t{-1})), Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_PAUSE, true).add(key::REQUESTOR, std::string("u.0"))),
            Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_PAUSE, true).add(key::SESSION_APP, std::vector<App>{App{.cmd = "sleep", .argv = {}, .env = {}, .maxprocs = 1}})),
            Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_JOB, InfoList{})),
            Status::ErrBadParam);
  EXPECT_EQ(refused(InfoList{}.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_RESOURCES, std::string("n01"))),
            Status::ErrBadParam);
  // The first bad directive decides, in the caller's order.
  EXPECT_EQ(refused(InfoList{}
                        .add(key::SESSION_PROVISION_NODES, std::string("n01"))
                        .add(key::SESSION_SIGNAL, std::int32_t{0})),
            Status::ErrNotSupported);
  EXPECT_EQ(refused(InfoList{}
                        .add(key::SESSION_SIGNAL, std::int32_t{0})
                        .add(key::SESSION_PROVISION_NODES, std::string("n01"))),
            Status::ErrBadParam);
}

TEST(SessionOperation, SepRidesAlongOrStandsAlone) {
  InfoList alone;
  alone.add(key::SESSION_SEP, false);
  const auto p = parse_session_ctrl(alone);
  ASSERT_EQ(refusal(p), Status::Success);
  EXPECT_EQ(std::get<SessionOperation>(p.result).verb, SessionOp::Sep);
  EXPECT_EQ(std::get<SessionOperation>(p.result).sep, false);
  InfoList along;
  along.add(key::SESSION_RESUME, true).add(key::SESSION_SEP, true);
  const auto q = parse_session_ctrl(along);
  ASSERT_EQ(refusal(q), Status::Success);
  EXPECT_EQ(std::get<SessionOperation>(q.result).verb, SessionOp::Resume);
  EXPECT_EQ(std::get<SessionOperation>(q.result).sep, true);
  EXPECT_EQ(q.names, "PMIX_SESSION_RESUME+PMIX_SESSION_SEP");
}

TEST(SessionOperation, SignalCarriesItsNumber) {
  InfoList d;
  d.add(key::SESSION_SIGNAL, std::uint64_t{15});
  const auto p = parse_session_ctrl(d);
  ASSERT_EQ(refusal(p), Status::Success);
  EXPECT_EQ(std::get<SessionOperation>(p.result).signal, 15u);
}

TEST(SessionPermissions, OnlyTheSchedulerInstantiatesAndNeverEverySession) {
  const SessionCaller scheduler{true, Principal{Proc{"scheduler", 0}, {}, {}}};
  const SessionCaller tool{false, Principal{Proc{"tool-1", 0}, {}, {}}};
  EXPECT_EQ(may_instantiate(scheduler, 7), Status::Success);
  EXPECT_EQ(may_instantiate(tool, 7), Status::ErrNoPermissions);
  EXPECT_EQ(may_instantiate(scheduler, kAllSessions), Status::ErrBadParam);
}

TEST(SessionPermissions, ARequestorActsOnWhatItsNamespaceOwnsTheSchedulerOnEverySession) {
  const SessionCaller scheduler{true, Principal{Proc{"scheduler", 0}, {}, {}}};
  const SessionCaller rank3{false, Principal{Proc{"tool-1", 3}, {}, {}}};
  const auto owner = [](const char* nspace) { return Principal{Proc{nspace, 0}, {}, {}}; };
  EXPECT_EQ(may_act_on(rank3, owner("tool-1"), 1), Status::Success);  // any rank of the owner's namespace
  EXPECT_EQ(may_act_on(rank3, owner("tool-2"), 1), Status::ErrNoPermissions);
  EXPECT_EQ(may_act_on(scheduler, owner("tool-2"), 1), Status::Success);
  EXPECT_TRUE(owns(scheduler, owner("tool-2"), 1));
}

// FLOW.md 4: "by the namespace that created it, or by its user id" - the user for tools only,
// as PRRTE's prte_session_is_owned_by() admits it.
TEST(SessionPermissions, AnotherToolOfTheSameUserMayActAnotherUsersMayNot) {
  const Principal owner{Proc{"tool-1", 0}, 1001, 100};
  const SessionCaller same_user{false, Principal{Proc{"tool-2", 0}, 1001, 100}};
  const SessionCaller other_user{false, Principal{Proc{"tool-3", 0}, 1002, 100}};
  const SessionCaller unknown_user{false, Principal{Proc{"tool-4", 0}, {}, {}}};
  EXPECT_EQ(may_act_on(same_user, owner, 1), Status::Success);
  EXPECT_EQ(may_act_on(other_user, owner, 1), Status::ErrNoPermissions);
  EXPECT_EQ(may_act_on(unknown_user, owner, 1), Status::ErrNoPermissions);  // an unknown user is nobody's
}

TEST(SessionPermissions, AJobsProcessesOwnTheirSessionButNotAnotherOfTheirUsers) {
  const Principal owner{Proc{"tool-1", 0}, 1001, 100};
  const SessionCaller own_job{false, Principal{Proc{"job-5.1", 0}, 1001, 100}, true, 5};
  const SessionCaller other_job{false, Principal{Proc{"job-dvm.1", 0}, 1001, 100}, true, 0};
  EXPECT_EQ(may_act_on(own_job, owner, 5), Status::Success);
  EXPECT_EQ(may_act_on(own_job, owner, 6), Status::ErrNoPermissions);
  EXPECT_EQ(may_act_on(other_job, owner, 5), Status::ErrNoPermissions);  // the same user, but not a tool
}

TEST(NodeSlots, ReadsANodeListAgainstTheMachine) {
  const Cluster c({{"head", 8, false}, {"n01", 8, true}, {"n02", 4, true}});
  const auto slots = parse_node_slots("n01:3,n02", c);
  ASSERT_TRUE(slots.has_value());
  EXPECT_EQ(*slots, (SlotList{{1, 3}, {2, 4}}));  // a node without a count is all of its slots
  EXPECT_EQ(format_node_slots(*slots, c), "n01:3,n02:4");
  EXPECT_FALSE(parse_node_slots("n09", c).has_value());   // not on this machine
  EXPECT_FALSE(parse_node_slots("head", c).has_value());  // cannot be scheduled
  EXPECT_THROW(parse_node_slots("n01:", c), InputError);
}

}  // namespace
}  // namespace pmixflow
