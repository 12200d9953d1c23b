// The PMIx vocabulary (upstream values from spec/PMIX-CONSTANTS.md), InfoList, and the
// sizes and renderings built on them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fake_env.hpp"  // PrintTo for Status
#include "pmixflow/log/render.hpp"
#include "pmixflow/proto/hop.hpp"
#include "pmixflow/proto/messages.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/info.hpp"
#include "pmixflow/vocab/keys.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {
namespace {

// ---------------------------------------------------------------- directives

TEST(Directive, UpstreamValues) {
  const std::vector<std::pair<Directive, int>> expected{
      {Directive::New, 1},       {Directive::Extend, 2},   {Directive::Release, 3},    {Directive::Reaquire, 4},
      {Directive::ReqCancel, 5}, {Directive::Activate, 6}, {Directive::External, 128},
  };
  for (const auto& [d, value] : expected) EXPECT_EQ(static_cast<int>(d), value) << directive_name(d);
}

TEST(Directive, NamesAndParseRoundTrip) {
  const std::vector<std::pair<Directive, std::string>> names{
      {Directive::New, "PMIX_ALLOC_NEW"},
      {Directive::Extend, "PMIX_ALLOC_EXTEND"},
      {Directive::Release, "PMIX_ALLOC_RELEASE"},
      {Directive::Reaquire, "PMIX_ALLOC_REAQUIRE"},  // upstream spelling, kept
      {Directive::ReqCancel, "PMIX_ALLOC_REQ_CANCEL"},
      {Directive::Activate, "PMIX_ALLOC_ACTIVATE"},
      {Directive::External, "PMIX_ALLOC_EXTERNAL"},
  };
  for (const auto& [d, name] : names) {
    EXPECT_EQ(directive_name(d), name);
    EXPECT_EQ(parse_directive(name), d) << name;
    EXPECT_EQ(parse_directive(name.substr(std::string("PMIX_ALLOC_").size())), d) << name;  // "NEW"
  }
}

TEST(Directive, UnknownTextIsNotADirective) {
  EXPECT_FALSE(parse_directive("PMIX_ALLOC_REACQUIRE"));
  EXPECT_FALSE(parse_directive("new"));  // names are case-sensitive, as upstream macros are
  EXPECT_FALSE(parse_directive(""));
  EXPECT_FALSE(parse_directive("PMIX_ALLOC_"));
  EXPECT_FALSE(parse_directive("1"));
  EXPECT_EQ(directive_name(static_cast<Directive>(77)), "PMIX_ALLOC_UNKNOWN");
}

// ---------------------------------------------------------------- statuses

TEST(Status, UpstreamValuesAndNames) {
  const std::vector<std::tuple<Status, int, std::string>> expected{
      {Status::Success, 0, "PMIX_SUCCESS"},
      {Status::ErrExists, -11, "PMIX_ERR_EXISTS"},
      {Status::ErrNoPermissions, -23, "PMIX_ERR_NO_PERMISSIONS"},
      {Status::ErrTimeout, -24, "PMIX_ERR_TIMEOUT"},
      {Status::ErrUnreach, -25, "PMIX_ERR_UNREACH"},
      {Status::ErrBadParam, -27, "PMIX_ERR_BAD_PARAM"},
      {Status::ErrNotFound, -46, "PMIX_ERR_NOT_FOUND"},
      {Status::ErrNotSupported, -47, "PMIX_ERR_NOT_SUPPORTED"},
      {Status::EventJobEnd, -145, "PMIX_EVENT_JOB_END"},
      {Status::OperationInProgress, -156, "PMIX_OPERATION_IN_PROGRESS"},
      {Status::OperationSucceeded, -157, "PMIX_OPERATION_SUCCEEDED"},
      {Status::ErrJobAllocFailed, -188, "PMIX_ERR_JOB_ALLOC_FAILED"},
      {Status::EventJobStart, -191, "PMIX_EVENT_JOB_START"},
      {Status::EventSessionStart, -192, "PMIX_EVENT_SESSION_START"},
      {Status::EventSessionEnd, -193, "PMIX_EVENT_SESSION_END"},
      {Status::DvmIsReady, -195, "PMIX_DVM_IS_READY"},
      {Status::ErrDvmMod, -196, "PMIX_ERR_DVM_MOD"},
  };
  for (const auto& [s, value, name] : expected) {
    EXPECT_EQ(static_cast<int>(s), value) << name;
    EXPECT_EQ(status_name(s), name);
    EXPECT_EQ(parse_status(name), s) << name;
  }
}

TEST(Status, AnyNumberRoundTrips) {
  // pmix_status_t is an open set: a code we have no name for survives as its number, written
  // as the named unknown (never a bare number); a bare one, as older logs hold, still reads.
  EXPECT_EQ(status_name(static_cast<Status>(-999)), "PMIX_STATUS_UNKNOWN(-999)");
  EXPECT_EQ(parse_status("PMIX_STATUS_UNKNOWN(-999)"), static_cast<Status>(-999));
  EXPECT_EQ(parse_status("PMIX_STATUS_UNKNOWN(-25)"), Status::ErrUnreach) << "a newer pmixflow may name it";
  EXPECT_EQ(parse_status("-999"), static_cast<Status>(-999));
  EXPECT_EQ(parse_status("-25"), Status::ErrUnreach);
  EXPECT_EQ(status_name(*parse_status("PMIX_ERR_JOB_NON_ZERO_TERM")), "PMIX_ERR_JOB_NON_ZERO_TERM");
  EXPECT_FALSE(parse_status("PMIX_ERR_NOPE"));
  EXPECT_FALSE(parse_status("-25x"));
  EXPECT_FALSE(parse_status(""));
}

// ---------------------------------------------------------------- session operations

TEST(SessionOp, KeysNamesAndParseRoundTrip) {
  const std::vector<std::tuple<SessionOp, std::string, std::string>> ops{
      {SessionOp::Instantiate, "PMIX_SESSION_INSTANTIATE", "pmix.ssn.inst"},
      {SessionOp::Pause, "PMIX_SESSION_PAUSE", "pmix.ssn.pause"},
      {SessionOp::Resume, "PMIX_SESSION_RESUME", "pmix.ssn.resume"},
      {SessionOp::Preempt, "PMIX_SESSION_PREEMPT", "pmix.ssn.preempt"},
      {SessionOp::Restore, "PMIX_SESSION_RESTORE", "pmix.ssn.restore"},
      {SessionOp::Signal, "PMIX_SESSION_SIGNAL", "pmix.ssn.sig"},
      {SessionOp::Terminate, "PMIX_SESSION_TERMINATE", "pmix.ssn.terminate"},
      {SessionOp::Extend, "PMIX_SESSION_EXTEND", "pmix.ssn.xtend"},
      {SessionOp::Sep, "PMIX_SESSION_SEP", "pmix.ssn.sep"},
      {SessionOp::Complete, "PMIX_SESSION_COMPLETE", "pmix.ssn.complete"},
  };
  for (const auto& [op, name, k] : ops) {
    EXPECT_EQ(session_op_name(op), name);
    EXPECT_EQ(session_op_key(op), k);
    EXPECT_EQ(parse_session_op(name), op) << name;
    EXPECT_EQ(parse_session_op(k), op) << k;
    EXPECT_EQ(parse_session_op(name.substr(std::string("PMIX_SESSION_").size())), op) << name;
  }
  EXPECT_FALSE(parse_session_op("PMIX_SESSION_RESOURCES"));  // a key, not an operation
  EXPECT_FALSE(parse_session_op("pmix.ssn.res"));
  EXPECT_FALSE(parse_session_op("KILL"));
  EXPECT_EQ(kAllSessions, UINT32_MAX);
}

// ---------------------------------------------------------------- keys

TEST(Keys, UpstreamKeyStrings) {
  const std::vector<std::pair<std::string_view, std::string_view>> keys{
      {key::ALLOC_REQ_ID, "pmix.alloc.reqid"},
      {key::ALLOC_ID, "pmix.alloc.id"},
      {key::ALLOC_NUM_NODES, "pmix.alloc.nnodes"},
      {key::ALLOC_NODE_LIST, "pmix.alloc.nlist"},
      {key::ALLOC_NUM_CPUS, "pmix.alloc.ncpus"},
      {key::ALLOC_NUM_CPU_LIST, "pmix.alloc.ncpulist"},
      {key::ALLOC_CPU_LIST, "pmix.alloc.cpulist"},
      {key::ALLOC_MEM_SIZE, "pmix.alloc.msize"},
      {key::ALLOC_TIME, "pmix.alloc.time"},
      {key::ALLOC_QUEUE, "pmix.alloc.queue"},
      {key::ALLOC_PREEMPTIBLE, "pmix.alloc.preempt"},
      {key::ALLOC_CHILD_SEP, "pmix.alloc.sep"},
      {key::ALLOC_INHERITANCE, "pmix.alloc.inhrt"},
      {key::HOST, "pmix.host"},
      {key::HOSTFILE, "pmix.hostfile"},
      {key::ADD_HOST, "pmix.addhost"},
      {key::ADD_HOSTFILE, "pmix.addhostfile"},
      {key::SESSION_ID, "pmix.session.id"},
      {key::REQUESTOR, "pmix.requestor"},
      {key::NSPACE, "pmix.nspace"},
      {key::TIMEOUT, "pmix.timeout"},
      {key::USERID, "pmix.euid"},
      {key::JOB_INFO_ARRAY, "pmix.job.arr"},
      {key::JOB_TERM_STATUS, "pmix.job.term.status"},
      {key::SESSION_CTRL_ID, "pmix.ssnctrl.id"},
      {key::SESSION_RESOURCES, "pmix.ssn.res"},
      {key::SESSION_JOB, "pmix.ssn.job"},
      {key::SESSION_APP, "pmix.ssn.app"},
      {key::SESSION_PROVISION_NODES, "pmix.ssn.pvnnds"},
      {key::SESSION_PROVISION_IMAGE, "pmix.ssn.pvnimg"},
      {key::SERVER_SCHEDULER, "pmix.srv.sched"},
      {key::SERVER_SYS_CONTROLLER, "pmix.srv.ctrlr"},
      {key::CONNECT_TO_SCHEDULER, "pmix.cnct.sched"},
      {key::CONNECT_TO_SYS_CONTROLLER, "pmix.cnct.ctrlr"},
      {key::TOOL_CONNECT_OPTIONAL, "pmix.tool.conopt"},
  };
  for (const auto& [k, upstream] : keys) EXPECT_EQ(k, upstream);
  EXPECT_EQ(static_cast<int>(Inheritance::None), 1);
  EXPECT_EQ(static_cast<int>(Inheritance::Child), 2);
  EXPECT_EQ(static_cast<int>(Inheritance::Default), 3);
  EXPECT_EQ(static_cast<int>(Inheritance::ChildDefault), 4);
}

TEST(Keys, FoundByNameOrKeyWithTheirType) {
  auto by_name = find_key("PMIX_ALLOC_NUM_CPUS");
  ASSERT_TRUE(by_name);
  EXPECT_EQ(by_name->key, "pmix.alloc.ncpus");
  EXPECT_EQ(by_name->type, ValueType::UInt64);
  auto by_key = find_key("pmix.session.id");
  ASSERT_TRUE(by_key);
  EXPECT_EQ(by_key->name, "PMIX_SESSION_ID");
  EXPECT_EQ(by_key->type, ValueType::UInt32);
  EXPECT_EQ(find_key("PMIX_REQUESTOR")->type, ValueType::Proc);
  EXPECT_EQ(find_key("PMIX_ALLOC_TIME")->type, ValueType::AllocTime);
  EXPECT_EQ(find_key("PMIX_SESSION_APP")->type, ValueType::Apps);
  EXPECT_EQ(find_key("PMIX_JOB_TERM_STATUS")->type, ValueType::Status);
  EXPECT_FALSE(find_key("PMIX_ALLOC_NUM_CPUZ"));
  EXPECT_FALSE(find_key("pmix.custom"));
}

// ---------------------------------------------------------------- InfoList

TEST(InfoList, GetIsTyped) {
  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-1"))
      .add(key::SESSION_ID, std::uint32_t{7})
      .add(key::REQUESTOR, Proc{"ns", 2});
  ASSERT_NE(info.get<std::string>(key::ALLOC_ID), nullptr);
  EXPECT_EQ(*info.get<std::string>(key::ALLOC_ID), "alloc-1");
  EXPECT_EQ(info.get<std::uint64_t>(key::SESSION_ID), nullptr);  // wrong type: nothing, not a cast
  EXPECT_EQ(info.get<std::string>(key::SESSION_ID), nullptr);
  EXPECT_EQ(*info.get<Proc>(key::REQUESTOR), (Proc{"ns", 2}));
  EXPECT_EQ(info.get<std::string>(key::NSPACE), nullptr);
  EXPECT_TRUE(info.has(key::SESSION_ID));
  EXPECT_FALSE(info.has(key::NSPACE));
  EXPECT_EQ(info.size(), 3u);
  EXPECT_FALSE(info.empty());
  EXPECT_TRUE(InfoList{}.empty());
}

TEST(InfoList, GetUintReadsAnyUnsignedIntegral) {
  InfoList info;
  info.add("u64", std::uint64_t{1} << 40)
      .add("u32", std::uint32_t{9})
      .add("i32", std::int32_t{12})
      .add("neg", std::int32_t{-1})
      .add("str", std::string("5"))
      .add("dbl", 5.0);
  EXPECT_EQ(info.get_uint("u64"), std::uint64_t{1} << 40);
  EXPECT_EQ(info.get_uint("u32"), 9u);
  EXPECT_EQ(info.get_uint("i32"), 12u);
  EXPECT_FALSE(info.get_uint("neg"));
  EXPECT_FALSE(info.get_uint("str"));
  EXPECT_FALSE(info.get_uint("dbl"));
  EXPECT_FALSE(info.get_uint("missing"));
}

TEST(InfoList, FlagIsTrueForTrueOrAKeyWithAnyOtherValue) {
  InfoList info;
  info.add("yes", true).add("no", false).add("sig", std::int32_t{9});
  EXPECT_TRUE(info.flag("yes"));
  EXPECT_FALSE(info.flag("no"));
  EXPECT_TRUE(info.flag("sig"));
  EXPECT_FALSE(info.flag("missing"));
}

TEST(InfoList, DuplicatesKeepOrderAndSetReplacesTheFirst) {
  InfoList info;
  info.add(key::JOB_INFO_ARRAY, std::string("a"))
      .add(key::NSPACE, std::string("x"))
      .add(key::JOB_INFO_ARRAY, std::string("b"));
  EXPECT_EQ(info.size(), 3u);
  EXPECT_EQ(*info.get<std::string>(key::JOB_INFO_ARRAY), "a");  // the first one
  info.set(key::JOB_INFO_ARRAY, std::string("c"));
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(info.items[0].key, key::JOB_INFO_ARRAY);
  EXPECT_EQ(std::get<std::string>(info.items[0].value), "c");
  EXPECT_EQ(std::get<std::string>(info.items[2].value), "b");
  info.set(key::SESSION_ID, std::uint32_t{4});  // absent: appended
  ASSERT_EQ(info.size(), 4u);
  EXPECT_EQ(info.items[3].key, key::SESSION_ID);
  info.erase(key::JOB_INFO_ARRAY);  // every one of them
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info.items[0].key, key::NSPACE);
  EXPECT_EQ(info.items[1].key, key::SESSION_ID);
}

TEST(InfoList, EqualityIsOrderSensitive) {
  InfoList a, b;
  a.add("x", true).add("y", false);
  b.add("y", false).add("x", true);
  EXPECT_FALSE(a == b);
  b.items = a.items;
  EXPECT_TRUE(a == b);
}

TEST(InfoList, ReadAllocTimeAcceptsBothForms) {
  InfoList info;
  EXPECT_FALSE(read_alloc_time(info));
  info.set(key::ALLOC_TIME, std::string("1:00:00"));
  EXPECT_EQ(read_alloc_time(info), 3600.0);
  info.set(key::ALLOC_TIME, std::string("2"));
  EXPECT_EQ(read_alloc_time(info), 2.0);
  info.set(key::ALLOC_TIME, std::uint32_t{30});  // 4.2.2: seconds
  EXPECT_EQ(read_alloc_time(info), 30.0);
  info.set(key::ALLOC_TIME, std::string("1:x"));
  EXPECT_THROW(read_alloc_time(info), InputError);
  info.set(key::ALLOC_TIME, true);
  EXPECT_THROW(read_alloc_time(info), InputError);
  InfoList t;
  t.add(key::TIMEOUT, std::int32_t{5});
  EXPECT_EQ(read_alloc_time(t, key::TIMEOUT), 5.0);
}

TEST(InfoList, ToJsonIsAnOrderedArrayOfPairs) {
  InfoList inner;
  inner.add(key::NSPACE, std::string("job-1.1")).add(key::JOB_TERM_STATUS, Status::ErrJobNonZeroTerm);
  InfoList info;
  info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4})
      .add(key::ALLOC_ID, std::string("a\"b"))
      .add(key::SESSION_INSTANTIATE, true)
      .add(key::REQUESTOR, Proc{"ns", 3})
      .add(key::ALLOC_MEM_SIZE, 1.5)
      .add(key::ALLOC_REQ_DIRECTIVE, Directive::Extend)
      .add(key::JOB_INFO_ARRAY, inner)
      .add(key::JOB_INFO_ARRAY, inner);
  EXPECT_EQ(
      to_json(info),
      "[[\"pmix.alloc.ncpus\",4],[\"pmix.alloc.id\",\"a\\\"b\"],[\"pmix.ssn.inst\",true],"
      "[\"pmix.requestor\",\"ns.3\"],[\"pmix.alloc.msize\",1.5],[\"pmix.alloc.reqdir\",\"PMIX_ALLOC_EXTEND\"],"
      "[\"pmix.job.arr\",[[\"pmix.nspace\",\"job-1.1\"],[\"pmix.job.term.status\",\"PMIX_ERR_JOB_NON_ZERO_TERM\"]]],"
      "[\"pmix.job.arr\",[[\"pmix.nspace\",\"job-1.1\"],[\"pmix.job.term.status\",\"PMIX_ERR_JOB_NON_ZERO_TERM\"]]]]");
  EXPECT_EQ(to_json(InfoList{}), "[]");
  InfoList apps;
  apps.add(key::SESSION_APP, std::vector<App>{App{"sleep", {"5"}, {}, 2}, App{"a.out", {}, {"OMP_NUM_THREADS=4"}, 1}});
  // An app's environment is shown only when it has one.
  EXPECT_EQ(to_json(apps),
            "[[\"pmix.ssn.app\",[{\"cmd\":\"sleep\",\"argv\":[\"5\"],\"maxprocs\":2},"
            "{\"cmd\":\"a.out\",\"argv\":[],\"env\":[\"OMP_NUM_THREADS=4\"],\"maxprocs\":1}]]]");
}

TEST(Messages, KindsNamesIdsAndCorr) {
  const Message req = AllocRequest{42, Directive::New, {}, {}, "a#1"};
  EXPECT_EQ(kind_of(req), MessageKind::AllocRequest);
  EXPECT_EQ(message_name(kind_of(req)), "alloc_request");
  EXPECT_EQ(message_id(req), 42u);
  ASSERT_NE(message_corr(req), nullptr);
  EXPECT_EQ(*message_corr(req), "a#1");
  const Message ready = DaemonReady{3};
  EXPECT_EQ(message_name(kind_of(ready)), "daemon_ready");
  EXPECT_EQ(message_id(ready), 0u);
  EXPECT_EQ(message_corr(ready), nullptr);
  EXPECT_EQ(message_name(MessageKind::PeerLost), "peer_lost");
  EXPECT_EQ(message_name(kind_of(Message(SessionCtrlRequest{}))), "session_ctrl");
}

TEST(Messages, TheSendEventCarriesTheMessagesContent) {
  InfoList info;
  info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  const Message m = AllocRequest{5, Directive::New, info, Proc{"t", 0}, "t#1"};
  log::EventBuilder b(log::EventKind::Send);
  fill(send_event("controller", m, 321), b);
  std::string fields;
  log::render_fields(fields, b.view(0, "x"));
  EXPECT_EQ(fields,
            ",\"to\":\"controller\",\"msg\":\"alloc_request\",\"corr\":\"t#1\",\"id\":5,"
            "\"directive\":\"PMIX_ALLOC_NEW\",\"info\":[[\"pmix.alloc.ncpus\",4]],\"bytes\":321");
}

}  // namespace
}  // namespace pmixflow
