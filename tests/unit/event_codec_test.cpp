// Log events in binary, as the emulator's parties hand them to the process writing the log:
// what a role built comes back value for value, the decoded event owns what it views wherever
// it is moved or copied, and an event the catalogue would not accept is refused at either end.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "fake_env.hpp"  // PrintTo for Status
#include "pmixflow/log/event_codec.hpp"
#include "pmixflow/log/events.hpp"

namespace pmixflow {
namespace {

using log::DecodedEvent;
using log::EventCodecError;
using log::EventView;
using log::Field;
using log::FieldValue;
using log::JsonText;

constexpr Status kUnnamedStatus = static_cast<Status>(-9999);

void expect_same(const EventView& a, const EventView& b) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.t), std::bit_cast<std::uint64_t>(b.t));
  EXPECT_EQ(a.who, b.who);
  EXPECT_EQ(a.kind, b.kind);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i)
    EXPECT_EQ(a.values[i], b.values[i]) << log::spec(a.kind).name << " value " << i;
}

// Builds `e` as a role does, encodes it, decodes it and compares the two views.
template <class E>
void expect_round_trip(const E& e, double t, std::string_view who) {
  log::EventBuilder built(E::event_kind);
  fill(e, built);
  const EventView view = built.view(t, who);
  const std::string bytes = log::encode_event(view);
  const DecodedEvent decoded = log::decode_event(bytes);
  expect_same(decoded.view(), view);
  EXPECT_EQ(log::encode_event(decoded.view()), bytes) << log::spec(view.kind).name;
}

InfoList sample_info() {
  InfoList inner;
  inner.add(key::NSPACE, std::string("job-1")).add(key::JOB_TERM_STATUS, kUnnamedStatus);
  InfoList info;
  info.add(key::ALLOC_NUM_CPUS, std::uint32_t{8}).add(key::JOB_INFO_ARRAY, inner).add(key::JOB_INFO_ARRAY, inner);
  return info;
}

TEST(EventCodec, BuiltEventsRoundTrip) {
  const InfoList info = sample_info();
  const std::vector<App> apps{App{"/bin/sim", {"-n", "3"}, {"PMIXFLOW_RUNTIME=5"}, 2}};
  expect_round_trip(ev::Send{.to = "daemon:n01",
                             .msg = "spawn",
                             .corr = std::string("alice#1"),
                             .id = std::uint64_t{std::numeric_limits<std::uint64_t>::max()},
                             .status = kUnnamedStatus,
                             .apps = log::AppsArg(apps),
                             .info = log::InfoArg(info),
                             .bytes = 4096},
                    0.1 + 0.2, "controller");
  expect_round_trip(ev::SessionInstantiate{.corr = "bob#1",
                                           .session = 3,
                                           .alloc = "alloc-3",
                                           .node_list = "n[01-02]:8",
                                           .by = "scheduler",
                                           .time_limit = 3600.5,
                                           .with_apps = true,
                                           .owner = "bob.0",
                                           .sep = false,
                                           .parent = 1},
                    12.75, "controller");
  expect_round_trip(ev::JobSignal{.nspace = "job-4", .session = 4, .signal = std::int64_t{-kSigStop}}, 1e9,
                    "controller");
  expect_round_trip(ev::Answer{.corr = "carol#2",
                               .what = "PMIX_ALLOC_NEW",
                               .status = kUnnamedStatus,
                               .info = log::InfoArg(info),
                               .latency = -0.0},
                    3, "requestor:carol");
  expect_round_trip(ev::AllocQueued{.corr = "dave#1",
                                    .requestor = "dave.0",
                                    .cpus = 64,
                                    .num_nodes = 8,
                                    .time_limit = 0,
                                    .priority = std::int64_t{-3},
                                    .preemptible = true},
                    4, "scheduler");
  expect_round_trip(
      ev::LogEnd{.end = "quiescent", .events = 42, .stats = std::string_view(R"({"wall_s":0.25,"sim_time_s":9})")}, 5,
      "run");
  expect_round_trip(ev::PartyUp{}, 0, "daemon:n07");
  expect_round_trip(ev::PartyUp{}, 0, "");
}

TEST(EventCodec, AbsentFieldsStayAbsent) {
  log::EventBuilder built(log::EventKind::Send);
  fill(ev::Send{.to = "scheduler", .msg = "daemon_shutdown", .bytes = 16}, built);
  const DecodedEvent decoded = log::decode_event(log::encode_event(built.view(1, "controller")));
  const EventView v = decoded.view();
  EXPECT_EQ(v.str(Field::to), "scheduler");
  EXPECT_EQ(v.uint(Field::bytes), 16u);
  EXPECT_FALSE(v.has(Field::corr));
  EXPECT_FALSE(v.has(Field::info));
  EXPECT_FALSE(v.has(Field::status));
  EXPECT_EQ(v.values.size(), log::spec(log::EventKind::Send).fields.size());
}

TEST(EventCodec, AnyFieldMayBeAbsentEvenARequiredOne) {
  // The catalogue's "required" is the writer's promise, not the codec's: an event is carried
  // as it was made, and the log's own checks judge it.
  std::array<FieldValue, 3> values{};  // job.signal: nspace, session, signal
  const EventView view{2, "controller", log::EventKind::JobSignal, values};
  const DecodedEvent decoded = log::decode_event(log::encode_event(view));
  expect_same(decoded.view(), view);
}

TEST(EventCodec, DecodedEventOwnsWhatItViewsWhereverItGoes) {
  const std::vector<App> apps{App{"hostname", {}, {}, 1}};
  const ev::Send send{.to = "n1", .msg = "spawn", .corr = std::string("e#1"), .apps = log::AppsArg(apps), .bytes = 1};
  log::EventBuilder built(log::EventKind::Send);
  fill(send, built);
  const EventView original = built.view(7, "d");  // short strings: kept inline by a std::string
  std::vector<DecodedEvent> events;
  {
    std::string bytes = log::encode_event(original);
    events.push_back(log::decode_event(bytes));
    bytes.assign(bytes.size(), 'x');  // the input is gone: the event holds its own bytes
  }
  for (int i = 0; i < 100; ++i) events.push_back(events.front());  // copies, and moves as the vector grows
  for (const DecodedEvent& e : events) expect_same(e.view(), original);

  DecodedEvent moved = std::move(events.back());
  events.pop_back();
  expect_same(moved.view(), original);
  DecodedEvent assigned;
  assigned = moved;
  moved = DecodedEvent();
  expect_same(assigned.view(), original);
  EXPECT_TRUE(moved.view().values.empty());
  DecodedEvent& alias = assigned;
  assigned = alias;
  expect_same(assigned.view(), original);
}

// ---------------------------------------------------------------- refusals

// job.signal as bytes, and where its pieces sit: kind, t, who, count, then per value its tag.
struct SignalBytes {
  static constexpr std::string_view kWho = "controller";
  static constexpr std::string_view kNspace = "job-4";
  std::string bytes;
  std::size_t count_at = 1 + 8 + 4 + kWho.size();
  std::size_t signal_tag_at = count_at + 1 + (1 + 4 + kNspace.size()) + (1 + 8);

  SignalBytes() {
    log::EventBuilder built(log::EventKind::JobSignal);
    fill(ev::JobSignal{.nspace = kNspace, .session = 4, .signal = std::int64_t{kSigTerm}}, built);
    bytes = log::encode_event(built.view(1, kWho));
  }
  std::string with(std::size_t at, std::uint8_t b) const {
    std::string out = bytes;
    out.at(at) = static_cast<char>(b);
    return out;
  }
};

std::string refusal(const std::string& bytes) {
  try {
    log::decode_event(bytes);
  } catch (const EventCodecError& e) {
    return e.what();
  }
  return "decoded";
}

TEST(EventCodec, UnknownKindIsRefused) {
  const SignalBytes s;
  EXPECT_EQ(refusal(s.with(0, log::kKindCount)),
            "event: unknown event kind " + std::to_string(log::kKindCount) + " (at byte 0)");
  EXPECT_EQ(refusal(s.with(0, 255)), "event: unknown event kind 255 (at byte 0)");
  const std::array<FieldValue, 0> none{};
  EXPECT_THROW(log::encode_event(EventView{0, "x", static_cast<log::EventKind>(log::kKindCount), none}),
               EventCodecError);
}

TEST(EventCodec, WrongValueCountIsRefused) {
  const SignalBytes s;
  EXPECT_EQ(refusal(s.with(s.count_at, 2)),
            "event: 'job.signal' has 3 fields, the event gives 2 values (at byte " + std::to_string(s.count_at) + ")");
  EXPECT_NE(refusal(s.with(s.count_at, 4)).find("has 3 fields, the event gives 4 values"), std::string::npos);
  const std::array<FieldValue, 2> two{};
  EXPECT_THROW(log::encode_event(EventView{0, "x", log::EventKind::JobSignal, two}), EventCodecError);
}

TEST(EventCodec, WrongValueTypeIsRefused) {
  const SignalBytes s;
  // The signal's i64 read as a u64: same size, wrong type.
  const auto uint_tag = static_cast<std::uint8_t>(FieldValue(std::uint64_t{}).index());
  EXPECT_EQ(refusal(s.with(s.signal_tag_at, uint_tag)),
            "event: field 'signal' of 'job.signal' takes int values, this one is a uint (at byte " +
                std::to_string(s.signal_tag_at) + ")");
  EXPECT_EQ(refusal(s.with(s.signal_tag_at, 8)),
            "event: unknown value type 8 (at byte " + std::to_string(s.signal_tag_at) + ")");

  std::array<FieldValue, 3> values{std::string_view("job-4"), std::uint64_t{4}, std::uint64_t{15}};
  EXPECT_THROW(log::encode_event(EventView{0, "x", log::EventKind::JobSignal, values}), EventCodecError);
  values[2] = JsonText{"15"};
  EXPECT_THROW(log::encode_event(EventView{0, "x", log::EventKind::JobSignal, values}), EventCodecError);
  values[2] = std::int64_t{15};
  EXPECT_NO_THROW(log::encode_event(EventView{0, "x", log::EventKind::JobSignal, values}));
}

TEST(EventCodec, TruncationAtEveryOffsetIsRefused) {
  const SignalBytes s;
  for (std::size_t n = 0; n < s.bytes.size(); ++n) {
    const std::vector<char> cut(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(log::decode_event(std::string_view(cut.data(), cut.size())), EventCodecError) << n;
  }
}

TEST(EventCodec, TrailingBytesAndHugeLengthsAreRefused) {
  const SignalBytes s;
  EXPECT_EQ(refusal(s.bytes + "!"), "event: 1 trailing bytes (at byte " + std::to_string(s.bytes.size()) + ")");
  std::string huge = s.bytes;
  huge.replace(9, 4, "\xff\xff\xff\xff");  // who claims 4 GiB
  EXPECT_NE(refusal(huge).find("needs 4294967295 bytes"), std::string::npos) << refusal(huge);
}

}  // namespace
}  // namespace pmixflow
