// The flow's messages as PMIx carries them between the controller and the scheduler: every
// carried kind comes back field for field (its info untouched, keys that look like the header's
// included), ordinary PMIx info is left alone, and a header of ours that is broken is refused.
#include "pmixflow/emul/carrier.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

// An info list with what a real one holds and what could be mistaken for the carrier's header:
// keys of the carrier's own namespace, a nested list, a Proc.
InfoList tricky_info() {
  InfoList nested;
  nested.add("pmix.nspace", std::string("job-3")).add("pmixflow.id", std::uint64_t{1}).add("pmix.rank", 0u);
  InfoList info;
  info.add("pmix.alloc.nnodes", std::uint64_t{2})
      .add("pmixflow.msg", std::string("alloc_response"))
      .add("pmixflow.id", std::uint64_t{424242})
      .add("pmixflow.corr", std::string("not the corr"))
      .add("pmixflow.status", Status::ErrNotFound)
      .add("pmix.job.info", nested)
      .add("pmix.job.info", nested)
      .add("pmix.requestor", Proc{"carol", 2})
      .add("pmix.alloc.time", 3600.5);
  return info;
}

template <class T>
T through_carrier(const T& m) {
  const InfoList carried_items = to_carrier(Message(m));
  if (carried_items.empty()) {
    ADD_FAILURE() << "nothing carried";
    return T{};
  }
  EXPECT_EQ(carried_items.items[0].key, kCarrierKey);
  const std::optional<Message> back = from_carrier(carried_items);
  EXPECT_TRUE(back.has_value());
  if (!back) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*back)) << "came back as kind " << back->index();
  return std::holds_alternative<T>(*back) ? std::get<T>(*back) : T{};
}

TEST(Carrier, AllocRequestRoundTrips) {
  AllocRequest m{
      .id = 11, .directive = Directive::Extend, .info = tricky_info(), .caller = {"alice", 4}, .corr = "a#1"};
  const auto back = through_carrier(m);
  EXPECT_EQ(back.id, 11u);
  EXPECT_EQ(back.directive, Directive::Extend);
  EXPECT_EQ(back.info, m.info);
  EXPECT_EQ(back.caller, (Proc{"alice", 4}));
  EXPECT_EQ(back.corr, "a#1");
}

TEST(Carrier, AllocRequestKeepsItsInfoAsRealPmixItemsAfterTheHeader) {
  const AllocRequest m{.id = 1, .directive = Directive::New, .info = tricky_info(), .caller = {"x", 0}, .corr = "c"};
  const InfoList items = to_carrier(Message(m));
  ASSERT_GE(items.size(), m.info.size());
  // The message's own items come last, unchanged and in order: the scheduler reads them as PMIx.
  for (std::size_t i = 0; i < m.info.size(); ++i)
    EXPECT_EQ(items.items[items.size() - m.info.size() + i], m.info.items[i]) << "item " << i;
}

TEST(Carrier, AllocResponseRoundTrips) {
  AllocResponse m{.id = 12, .status = static_cast<Status>(-10999), .info = tricky_info(), .corr = "b#2"};
  const auto back = through_carrier(m);
  EXPECT_EQ(back.id, 12u);
  EXPECT_EQ(back.status, static_cast<Status>(-10999));
  EXPECT_EQ(back.info, m.info);
  EXPECT_EQ(back.corr, "b#2");
}

TEST(Carrier, SessionCtrlRequestRoundTrips) {
  SessionCtrlRequest m{.id = 13, .session_id = 77, .directives = tricky_info(), .caller = {"bob", 1}, .corr = "c#3"};
  const auto back = through_carrier(m);
  EXPECT_EQ(back.id, 13u);
  EXPECT_EQ(back.session_id, 77u);
  EXPECT_EQ(back.directives, m.directives);
  EXPECT_EQ(back.caller, (Proc{"bob", 1}));
  EXPECT_EQ(back.corr, "c#3");
}

TEST(Carrier, SessionCtrlResponseRoundTrips) {
  SessionCtrlResponse m{.id = 14, .status = Status::ErrBadParam, .info = tricky_info(), .corr = "d#4"};
  const auto back = through_carrier(m);
  EXPECT_EQ(back.id, 14u);
  EXPECT_EQ(back.status, Status::ErrBadParam);
  EXPECT_EQ(back.info, m.info);
  EXPECT_EQ(back.corr, "d#4");
}

TEST(Carrier, ConnectRequestRoundTrips) {
  ConnectRequest m{.id = 15, .caller = {"scheduler", 0}, .info = tricky_info()};
  const auto back = through_carrier(m);
  EXPECT_EQ(back.id, 15u);
  EXPECT_EQ(back.caller, (Proc{"scheduler", 0}));
  EXPECT_EQ(back.info, m.info);
}

TEST(Carrier, ConnectResponseRoundTrips) {
  const auto back = through_carrier(ConnectResponse{.id = 16, .status = Status::ErrNoPermissions});
  EXPECT_EQ(back.id, 16u);
  EXPECT_EQ(back.status, Status::ErrNoPermissions);
}

TEST(Carrier, NotificationRoundTrips) {
  Notification m{.code = Status::EventJobEnd, .info = tricky_info(), .corr = "e#5"};
  const auto back = through_carrier(m);
  EXPECT_EQ(back.code, Status::EventJobEnd);
  EXPECT_EQ(back.info, m.info);
  EXPECT_EQ(back.corr, "e#5");
}

TEST(Carrier, EmptyInfoAndEmptyCorrRoundTrip) {
  const auto back = through_carrier(Notification{.code = Status::DvmIsReady, .info = {}, .corr = ""});
  EXPECT_EQ(back.code, Status::DvmIsReady);
  EXPECT_TRUE(back.info.empty());
  EXPECT_EQ(back.corr, "");
}

TEST(Carrier, TakesTheSevenFlowMessagesOnly) {
  EXPECT_TRUE(carried(Message(AllocRequest{})));
  EXPECT_TRUE(carried(Message(AllocResponse{})));
  EXPECT_TRUE(carried(Message(SessionCtrlRequest{})));
  EXPECT_TRUE(carried(Message(SessionCtrlResponse{})));
  EXPECT_TRUE(carried(Message(ConnectRequest{})));
  EXPECT_TRUE(carried(Message(ConnectResponse{})));
  EXPECT_TRUE(carried(Message(Notification{})));
  EXPECT_FALSE(carried(Message(DaemonReady{})));
  EXPECT_FALSE(carried(Message(LaunchProcs{})));
  EXPECT_FALSE(carried(Message(SpawnRequest{})));
  EXPECT_FALSE(carried(Message(PeerLost{})));
}

TEST(Carrier, OrdinaryInfoIsNotACarriedMessage) {
  EXPECT_FALSE(from_carrier(InfoList{}).has_value());
  EXPECT_FALSE(from_carrier(tricky_info()).has_value());  // has pmixflow.msg, but not first
  InfoList plain;
  plain.add("pmix.evname", std::string("job end")).add("pmix.nspace", std::string("job-1"));
  EXPECT_FALSE(from_carrier(plain).has_value());
}

// The carried form of a message, to break.
InfoList carried_request() {
  return to_carrier(Message(
      AllocRequest{.id = 5, .directive = Directive::New, .info = tricky_info(), .caller = {"a", 0}, .corr = "c"}));
}

TEST(Carrier, HeaderCountingMoreItemsThanThereAreIsRefused) {
  InfoList items = carried_request();
  items.items[1].value = static_cast<std::uint32_t>(items.size());
  EXPECT_THROW(from_carrier(items), std::invalid_argument);
}

TEST(Carrier, HeaderOfTheWrongTypesIsRefused) {
  InfoList name_not_text = carried_request();
  name_not_text.items[0].value = std::uint32_t{1};
  EXPECT_THROW(from_carrier(name_not_text), std::invalid_argument);
  InfoList count_not_u32 = carried_request();
  count_not_u32.items[1].value = std::uint64_t{3};
  EXPECT_THROW(from_carrier(count_not_u32), std::invalid_argument);
  InfoList count_misnamed = carried_request();
  count_misnamed.items[1].key = "pmix.nspace";
  EXPECT_THROW(from_carrier(count_misnamed), std::invalid_argument);
}

TEST(Carrier, HeaderMissingAFieldOfItsMessageIsRefused) {
  InfoList items = carried_request();
  // Drop the id (the first header item after the count) and say the header is one shorter.
  items.items.erase(items.items.begin() + 2);
  const std::uint32_t count = std::get<std::uint32_t>(items.items[1].value);
  items.items[1].value = count - 1;
  try {
    from_carrier(items);
    ADD_FAILURE() << "decoded a request with no id";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pmixflow.id"), std::string::npos) << e.what();
  }
}

TEST(Carrier, UnknownOrUncarriedKindIsRefused) {
  InfoList unknown = carried_request();
  unknown.items[0].value = std::string("no_such_message");
  EXPECT_THROW(from_carrier(unknown), std::invalid_argument);
  EXPECT_THROW(from_carrier(to_carrier(Message(DaemonReady{4}))), std::invalid_argument);
}

TEST(Carrier, HeaderCutToItsFirstItemIsRefused) {
  // carrier.hpp says from_carrier returns nullopt only when the first item is not
  // kCarrierKey and throws for a header of ours that is malformed; a list holding nothing but
  // the carrier key (size < 2) is returned as nullopt instead (carrier.cpp, from_carrier's
  // first line).
  InfoList lone;
  lone.add(kCarrierKey, std::string("alloc_request"));
  EXPECT_THROW(from_carrier(lone), std::invalid_argument);
}

TEST(Carrier, AddCorrAddsANonEmptyCorrelationOnly) {
  InfoList info;
  info.add("pmix.alloc.nnodes", std::uint64_t{1});
  add_corr(info, "");
  EXPECT_EQ(info.size(), 1u);
  add_corr(info, "alice#9");
  ASSERT_EQ(info.size(), 2u);
  ASSERT_NE(info.get<std::string>(kCorrKey), nullptr);
  EXPECT_EQ(*info.get<std::string>(kCorrKey), "alice#9");
}

TEST(Carrier, TakeCorrReturnsItAndLeavesTheRest) {
  InfoList info;
  info.add("pmix.alloc.nnodes", std::uint64_t{1});
  const InfoList before = info;
  add_corr(info, "alice#9");
  EXPECT_EQ(take_corr(info), "alice#9");
  EXPECT_EQ(info, before);
  EXPECT_EQ(take_corr(info), "");  // none left: empty, and nothing else touched
  EXPECT_EQ(info, before);
}

TEST(Carrier, AnEnvelopeComesOffAsItWentOnAndLeavesTheMessageWhole) {
  InfoList carried_items = to_carrier(Message(AllocResponse{7, Status::Success, tricky_info(), "alice#1"}));
  const InfoList before = carried_items;
  add_envelope(carried_items, {Proc{"requestor-alice", 0}, Proc{"prte", 0}, 42});
  const auto e = take_envelope(carried_items);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->to, (Proc{"requestor-alice", 0}));
  EXPECT_EQ(e->from, (Proc{"prte", 0}));
  EXPECT_EQ(e->seq, 42u);
  EXPECT_EQ(carried_items, before);
  ASSERT_TRUE(from_carrier(carried_items).has_value());
}

TEST(Carrier, APushWithoutAWholeEnvelopeHasNone) {
  InfoList info = tricky_info();
  EXPECT_FALSE(take_envelope(info).has_value());
  info.add("pmixflow.to", Proc{"scheduler", 0}).add("pmixflow.seq", std::uint64_t{1});  // no sender
  EXPECT_FALSE(take_envelope(info).has_value());
  EXPECT_EQ(info, tricky_info());  // what there was of one is gone all the same
}

TEST(Carrier, EachPushIsTakenOnceWhateverOrderItsCopiesArriveIn) {
  Arrivals a;
  EXPECT_TRUE(a.first(1));
  EXPECT_FALSE(a.first(1));  // a relayed copy, after the push itself
  EXPECT_TRUE(a.first(4));   // 2 and 3 are still on their way
  EXPECT_TRUE(a.first(3));
  EXPECT_FALSE(a.first(3));
  EXPECT_FALSE(a.first(4));
  EXPECT_TRUE(a.first(2));
  EXPECT_FALSE(a.first(2));
  EXPECT_TRUE(a.first(5));
}

TEST(Carrier, ArrivalsRememberOnlyARecentWindowOfGaps) {
  Arrivals a;
  EXPECT_TRUE(a.first(1'000'000));  // a huge gap costs no more than the window
  EXPECT_TRUE(a.first(999'999));    // inside the window: still awaited
  EXPECT_FALSE(a.first(2));         // far behind: taken as arrived long ago
}

}  // namespace
}  // namespace pmixflow::emul
