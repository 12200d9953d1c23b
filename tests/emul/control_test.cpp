// The frames of a party's control line: every kind comes back from the wire field for field,
// and anything encode() would not have written (cut short, trailing bytes, an unknown kind) is
// refused with a WireError rather than misread.
#include "pmixflow/emul/control.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "emul_test_support.hpp"
#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {
namespace {

// Encodes `f`, decodes it, and checks the decoded frame is of the same kind and encodes to the
// same bytes; returns it for the field checks.
template <class T>
T round_trip(const T& f) {
  const std::string bytes = control::encode(control::Frame(f));
  const control::Frame back = control::decode(bytes);
  EXPECT_TRUE(std::holds_alternative<T>(back)) << "decoded as alternative " << back.index();
  EXPECT_EQ(control::encode(back), bytes);
  return std::holds_alternative<T>(back) ? std::get<T>(back) : T{};
}

InfoList sample_info() {
  InfoList inner;
  inner.add("pmix.nspace", std::string("job-7")).add("pmix.job.term.status", static_cast<Status>(-187));
  InfoList info;
  info.add("pmix.alloc.nnodes", std::uint64_t{4})
      .add("pmix.job.info", inner)
      .add("pmix.requestor", Proc{"alice-tool", 3})
      .add("pmixflow.corr", std::string("looks like a header"));
  return info;
}

TEST(ControlFrame, HelloRoundTrips) { EXPECT_EQ(round_trip(control::Hello{-4242}).pid, -4242); }

TEST(ControlFrame, SetupRoundTrips) {
  const std::string spec = R"({"party":{"kind":1,"index":3},"text":"with \u0000 and é"})";
  EXPECT_EQ(round_trip(control::Setup{spec}).spec_json, spec);
}

TEST(ControlFrame, ReadyRoundTrips) {
  const auto back = round_trip(control::Ready{Proc{"prte", 17}, "pmix-server.1234;tcp4://127.0.0.1:40001"});
  EXPECT_EQ(back.proc, (Proc{"prte", 17}));
  EXPECT_EQ(back.uri, "pmix-server.1234;tcp4://127.0.0.1:40001");
}

TEST(ControlFrame, GoRoundTrips) {
  EXPECT_EQ(round_trip(control::Go{std::numeric_limits<std::int64_t>::max() - 5}).epoch_ns,
            std::numeric_limits<std::int64_t>::max() - 5);
  EXPECT_EQ(round_trip(control::Go{-1}).epoch_ns, -1);
}

TEST(ControlFrame, ServersRoundTripsEveryEntryInOrder) {
  const std::vector<ServerEntry> entries{
      ServerEntry{Address::daemon(12), Proc{"prte", 12}, "uri-of-n12"},
      ServerEntry{Address::controller(), Proc{"prte", 0}, "uri-of-the-controller"},
  };
  EXPECT_EQ(round_trip(control::Servers{entries}).entries, entries);
  EXPECT_TRUE(round_trip(control::Servers{}).entries.empty());
}

TEST(ControlFrame, InjectRoundTripsItsSenderAndMessage) {
  AllocRequest req;
  req.id = 99;
  req.directive = Directive::Extend;
  req.info = sample_info();
  req.caller = Proc{"alice-tool", 3};
  req.corr = "alice#2";
  const auto back = round_trip(control::Inject{Address::requestor(5), Message(req)});
  EXPECT_EQ(back.from, Address::requestor(5));
  ASSERT_TRUE(std::holds_alternative<AllocRequest>(back.msg));
  const auto& got = std::get<AllocRequest>(back.msg);
  EXPECT_EQ(got.id, 99u);
  EXPECT_EQ(got.directive, Directive::Extend);
  EXPECT_EQ(got.info, req.info);
  EXPECT_EQ(got.caller, req.caller);
  EXPECT_EQ(got.corr, "alice#2");
}

TEST(ControlFrame, InjectRoundTripsTheLaunchersWord) {
  const auto back = round_trip(control::Inject{Address::daemon(3), Message(DaemonStartFailed{3})});
  EXPECT_EQ(back.from, Address::daemon(3));
  ASSERT_TRUE(std::holds_alternative<DaemonStartFailed>(back.msg));
  EXPECT_EQ(std::get<DaemonStartFailed>(back.msg).node, 3u);
}

TEST(ControlFrame, EventRoundTripsItsBytes) {
  const std::string encoded("\x05\x00\xff binary \x00 event", 18);
  EXPECT_EQ(round_trip(control::Event{encoded}).encoded, encoded);
}

TEST(ControlFrame, StartDaemonRoundTripsItsNode) {
  EXPECT_EQ(round_trip(control::StartDaemon{118}).node, 118u);
  EXPECT_EQ(round_trip(control::StartDaemon{std::numeric_limits<NodeId>::max()}).node,
            std::numeric_limits<NodeId>::max());
}

TEST(ControlFrame, ActivityRoundTripsBothWays) {
  EXPECT_TRUE(round_trip(control::Activity{true}).idle);
  EXPECT_FALSE(round_trip(control::Activity{false}).idle);
}

TEST(ControlFrame, StopRoundTrips) { round_trip(control::Stop{}); }

TEST(ControlFrame, ByeRoundTripsItsStats) {
  const std::string stats = R"({"sent":12,"received":11})";
  EXPECT_EQ(round_trip(control::Bye{stats}).stats_json, stats);
}

TEST(ControlFrame, ProbeStateAndLeaveRoundTripTheirFields) {
  EXPECT_EQ(round_trip(control::Probe{42}).wave, 42u);
  const control::State s = round_trip(control::State{7, true, 120, 118, 2, 12.625});
  EXPECT_EQ(s.wave, 7u);
  EXPECT_TRUE(s.idle);
  EXPECT_EQ(s.sent, 120u);
  EXPECT_EQ(s.handled, 118u);
  EXPECT_EQ(s.calls, 2u);
  EXPECT_EQ(s.clock, 12.625);
  EXPECT_EQ(round_trip(control::Leave{1.999}).at, 1.999);
}

// One frame of every kind, with something in every field.
std::vector<control::Frame> every_kind() {
  AllocResponse resp;
  resp.id = 7;
  resp.status = Status::ErrOutOfResource;
  resp.info = sample_info();
  resp.corr = "bob#1";
  return {control::Hello{77},
          control::Setup{"{}"},
          control::Ready{Proc{"scheduler", 0}, "uri"},
          control::Go{123456789},
          control::Servers{{ServerEntry{Address::daemon(1), Proc{"prte", 1}, "u1"},
                            ServerEntry{Address::daemon(2), Proc{"prte", 2}, "u2"}}},
          control::Inject{Address::scheduler(), Message(resp)},
          control::Event{"abc"},
          control::StartDaemon{4},
          control::Activity{true},
          control::Stop{},
          control::Bye{"{}"},
          control::Probe{3},
          control::State{3, true, 1, 2, 0, 4.5},
          control::Leave{2.5}};
}

TEST(ControlFrame, EveryKindIsCovered) {
  EXPECT_EQ(every_kind().size(), std::variant_size_v<control::Frame>);
  const auto frames = every_kind();
  for (std::size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(frames[i].index(), i);
}

TEST(ControlFrame, EveryFrameCutShortIsRefused) {
  for (const auto& f : every_kind()) {
    const std::string bytes = control::encode(f);
    for (std::size_t n = 0; n < bytes.size(); ++n)
      EXPECT_THROW(control::decode(std::string_view(bytes).substr(0, n)), WireError)
          << "kind " << f.index() << " cut to " << n << " of " << bytes.size() << " bytes";
  }
}

TEST(ControlFrame, TrailingBytesAreRefused) {
  for (const auto& f : every_kind()) {
    const std::string bytes = control::encode(f) + '\0';
    EXPECT_THROW(control::decode(bytes), WireError) << "kind " << f.index();
  }
}

TEST(ControlFrame, UnknownKindIsRefusedNamingIt) {
  for (const int kind : {14, 200, 255}) {
    const std::string bytes(1, static_cast<char>(kind));
    try {
      control::decode(bytes);
      ADD_FAILURE() << "decoded kind " << kind;
    } catch (const WireError& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(kind)), std::string::npos) << e.what();
    }
  }
}

TEST(ControlFrame, ServersCountBeyondTheBytesIsRefused) {
  std::string bytes = control::encode(control::Servers{});
  bytes.replace(1, 4, std::string("\xff\xff\xff\x7f", 4));  // two billion entries in no bytes
  EXPECT_THROW(control::decode(bytes), WireError);
}

TEST(ControlFrame, BadBooleanIsRefused) {
  std::string bytes = control::encode(control::Activity{true});
  bytes[1] = 2;
  EXPECT_THROW(control::decode(bytes), WireError);
}

}  // namespace
}  // namespace pmixflow::emul
