// The binary wire codec of the emulator's hops: every message comes back exactly as it was
// sent, and anything an encoder would not have written (cut, padded, corrupted, hostile) is
// refused with a WireError naming the byte, never read past and never trusted for a size.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fake_env.hpp"  // PrintTo for Status and Address
#include "pmixflow/proto/messages.hpp"
#include "pmixflow/proto/wire.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {
namespace {

// Every field of a message, for comparison. The bindings compile only when they name every
// field, so a field added to a message must be added to these samples too.
auto fields(const AllocRequest& m) {
  const auto& [a, b, c, d, e] = m;
  return std::tie(a, b, c, d, e);
}
auto fields(const AllocResponse& m) {
  const auto& [a, b, c, d] = m;
  return std::tie(a, b, c, d);
}
auto fields(const SessionCtrlRequest& m) {
  const auto& [a, b, c, d, e] = m;
  return std::tie(a, b, c, d, e);
}
auto fields(const SessionCtrlResponse& m) {
  const auto& [a, b, c, d] = m;
  return std::tie(a, b, c, d);
}
auto fields(const ConnectRequest& m) {
  const auto& [a, b, c] = m;
  return std::tie(a, b, c);
}
auto fields(const ConnectResponse& m) {
  const auto& [a, b] = m;
  return std::tie(a, b);
}
auto fields(const Notification& m) {
  const auto& [a, b, c] = m;
  return std::tie(a, b, c);
}
auto fields(const DaemonReady& m) {
  const auto& [a] = m;
  return std::tie(a);
}
auto fields(const DaemonStartFailed& m) {
  const auto& [a] = m;
  return std::tie(a);
}
auto fields(const LaunchProcs& m) {
  const auto& [a, b, c, d, e, f] = m;
  return std::tie(a, b, c, d, e, f);
}
auto fields(const ProcsStarted& m) {
  const auto& [a, b, c] = m;
  return std::tie(a, b, c);
}
auto fields(const ProcsEnded& m) {
  const auto& [a, b, c, d] = m;
  return std::tie(a, b, c, d);
}
auto fields(const KillProcs& m) {
  const auto& [a, b] = m;
  return std::tie(a, b);
}
auto fields(const DaemonShutdown&) { return std::tuple<>(); }
auto fields(const Unreachable& m) {
  const auto& [a, b, c, d] = m;
  return std::tie(a, b, c, d);
}
auto fields(const PeerLost& m) {
  const auto& [a] = m;
  return std::tie(a);
}
auto fields(const SpawnRequest& m) {
  const auto& [a, b, c, d, e] = m;
  return std::tie(a, b, c, d, e);
}
auto fields(const SpawnResponse& m) {
  const auto& [a, b, c, d, e] = m;
  return std::tie(a, b, c, d, e);
}
auto fields(const SignalProcs& m) {
  const auto& [a, b] = m;
  return std::tie(a, b);
}

bool same(const Message& a, const Message& b) {
  if (a.index() != b.index()) return false;
  return std::visit([&](const auto& x) { return fields(x) == fields(std::get<std::decay_t<decltype(x)>>(b)); }, a);
}

// Which fields of `m` still hold their default value (a sample that leaves one there could
// hide a codec that drops it).
template <class M>
std::vector<std::size_t> default_fields(const M& m) {
  const M blank{};
  std::vector<std::size_t> out;
  const auto a = fields(m), b = fields(blank);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((std::get<I>(a) == std::get<I>(b) ? out.push_back(I) : void()), ...);
  }
  (std::make_index_sequence<std::tuple_size_v<decltype(a)>>{});
  return out;
}

constexpr Status kUnnamedStatus = static_cast<Status>(-9999);  // Status is an open set

std::vector<App> sample_apps() {
  return {App{"/bin/sim", {"--steps", "10", ""}, {"PMIXFLOW_RUNTIME=30", "OMP_NUM_THREADS=2"}, 4},
          App{"hostname", {}, {}, 0}};
}

InfoList nested(int depth) {
  InfoList list;
  list.add("level", static_cast<std::uint32_t>(depth));
  if (depth > 1) list.add("inner", nested(depth - 1));
  return list;
}

// Every alternative of Value, duplicates and lists inside lists included.
InfoList sample_info() {
  InfoList job;
  job.add(key::NSPACE, std::string("job-7")).add(key::JOB_TERM_STATUS, kUnnamedStatus).add("deeper", nested(3));
  InfoList info;
  info.add(key::ALLOC_PREEMPTIBLE, true)
      .add("pmix.test.i32", std::int32_t{-42})
      .add(key::ALLOC_NUM_CPUS, std::uint32_t{4000000000u})
      .add(key::ALLOC_TIME, std::uint64_t{1} << 60)
      .add("pmix.test.dbl", -2.5e-300)
      .add(key::ALLOC_NODE_LIST, std::string("n[01-04]:8"))
      .add(key::JOB_TERM_STATUS, Status::ErrJobKilledByCmd)
      .add(key::ALLOC_REQ_DIRECTIVE, Directive::External)
      .add(key::REQUESTOR, Proc{"app-3", 17})
      .add(key::JOB_INFO_ARRAY, job)
      .add(key::JOB_INFO_ARRAY, InfoList{})  // the same key again, and an empty list
      .add(key::SESSION_APP, sample_apps())
      .add("", std::string());
  return info;
}

// One of every message, each field away from its default.
std::vector<Message> every_message() {
  const InfoList info = sample_info();
  const Proc caller{"requestor-nspace", 5};
  return {
      AllocRequest{7, Directive::Extend, info, caller, "alice#1"},
      AllocResponse{8, kUnnamedStatus, info, "alice#2"},
      SessionCtrlRequest{9, kAllSessions, info, caller, "bob#1"},
      SessionCtrlResponse{10, Status::ErrNotFound, info, "bob#2"},
      ConnectRequest{11, caller, info},
      ConnectResponse{12, Status::ErrNoPermissions},
      Notification{Status::DvmIsReady, info, "carol#1"},
      DaemonReady{3},
      DaemonStartFailed{4000},
      LaunchProcs{"job-1", 2, sample_apps(), 6, 12, "dave#1"},
      ProcsStarted{"job-2", 5, Status::ErrJobFailedToLaunch},
      ProcsEnded{"job-3", 6, Status::ErrJobNonZeroTerm, -3},
      KillProcs{"job-4", Status::ErrJobCanceled},
      DaemonShutdown{},
      Unreachable{Address::daemon(9), MessageKind::SpawnResponse, std::numeric_limits<std::uint64_t>::max(), "erin#3"},
      PeerLost{Address::requestor(77)},
      SpawnRequest{13, sample_apps(), info, caller, "frank#1"},
      SpawnResponse{14, Status::Error, "job-5", info, "frank#2"},
      SignalProcs{"job-6", kSigStop},
  };
}

TEST(WireMessage, EverySampleSetsEveryFieldAndEveryKindOnce) {
  const auto all = every_message();
  ASSERT_EQ(all.size(), std::variant_size_v<Message>);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].index(), i);
    std::visit([&](const auto& m) { EXPECT_EQ(default_fields(m), std::vector<std::size_t>{}) << i; }, all[i]);
  }
}

TEST(WireMessage, EveryKindRoundTripsExactly) {
  for (const Message& m : every_message()) {
    const std::string bytes = encode_message(m);
    EXPECT_EQ(static_cast<std::uint8_t>(bytes.at(0)), static_cast<std::uint8_t>(kind_of(m)));
    const Message back = decode_message(bytes);
    EXPECT_TRUE(same(m, back)) << message_name(kind_of(m));
    EXPECT_EQ(encode_message(back), bytes) << message_name(kind_of(m));
  }
}

TEST(WireMessage, MessagesEmbedInALargerFrame) {
  const auto all = every_message();
  WireWriter out;
  out.u32(0xfeedu);
  for (const Message& m : all) put_message(out, m);
  out.str("trailer");
  const std::string frame = out.take();

  WireReader in(frame);
  EXPECT_EQ(in.u32(), 0xfeedu);
  for (const Message& m : all) EXPECT_TRUE(same(get_message(in), m)) << message_name(kind_of(m));
  EXPECT_EQ(in.str(), "trailer");
  EXPECT_TRUE(in.done());
  EXPECT_NO_THROW(in.expect_end());
}

TEST(WireMessage, TruncationAtEveryOffsetIsRefused) {
  for (const Message& m : every_message()) {
    const std::string bytes = encode_message(m);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      // A buffer of exactly n bytes, so that AddressSanitizer sees any read past it.
      const std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      try {
        decode_message(std::string_view(cut.data(), cut.size()));
        ADD_FAILURE() << message_name(kind_of(m)) << " cut to " << n << " of " << bytes.size() << " bytes decoded";
      } catch (const WireError& e) {
        EXPECT_LE(e.offset(), n) << e.what();
      }
    }
  }
}

TEST(WireMessage, TrailingBytesAreRefused) {
  for (const Message& m : every_message()) {
    const std::string bytes = encode_message(m);
    try {
      decode_message(bytes + '\0');
      ADD_FAILURE() << message_name(kind_of(m)) << " with a trailing byte decoded";
    } catch (const WireError& e) {
      EXPECT_EQ(e.offset(), bytes.size());
      EXPECT_NE(std::string(e.what()).find("1 trailing bytes"), std::string::npos) << e.what();
    }
  }
}

TEST(WireMessage, UnknownKindIsRefused) {
  for (const std::uint8_t k : {std::uint8_t{std::variant_size_v<Message>}, std::uint8_t{200}, std::uint8_t{255}}) {
    const std::string bytes = encode_message(DaemonShutdown{});
    std::string bad = bytes;
    bad[0] = static_cast<char>(k);
    try {
      decode_message(bad);
      ADD_FAILURE() << "kind " << int{k} << " decoded";
    } catch (const WireError& e) {
      EXPECT_EQ(e.offset(), 0u);
      EXPECT_NE(std::string(e.what()).find("unknown message kind " + std::to_string(k)), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(decode_message(""), WireError);
}

// Bytes whose byte `at` is replaced by `b`.
std::string patched(std::string bytes, std::size_t at, std::uint8_t b) {
  bytes.at(at) = static_cast<char>(b);
  return bytes;
}

TEST(WireMessage, EnumsOutsideTheirValuesAreRefused) {
  // AllocRequest: kind, u64 id, then the directive at byte 9.
  const std::string request = encode_message(AllocRequest{1, Directive::New, {}, {}, ""});
  for (const std::uint8_t d : {0, 7, 127, 129, 255}) EXPECT_THROW(decode_message(patched(request, 9, d)), WireError);
  for (const std::uint8_t d : {1, 2, 3, 4, 5, 6, 128})
    EXPECT_EQ(std::get<AllocRequest>(decode_message(patched(request, 9, d))).directive, static_cast<Directive>(d));

  // Unreachable: kind, then the address's party kind at byte 1 and the undelivered kind at 6.
  const std::string unreachable = encode_message(Unreachable{Address::scheduler(), MessageKind::AllocRequest, 0, ""});
  EXPECT_THROW(decode_message(patched(unreachable, 1, 4)), WireError);
  EXPECT_THROW(decode_message(patched(unreachable, 6, std::variant_size_v<Message>)), WireError);
  EXPECT_EQ(std::get<Unreachable>(decode_message(patched(unreachable, 1, 1))).to.kind, PartyKind::Daemon);

  // The writer refuses them too: the sender hears of its mistake, not the peer.
  EXPECT_THROW(encode_message(AllocRequest{1, static_cast<Directive>(7), {}, {}, ""}), WireError);
  EXPECT_THROW(encode_message(PeerLost{Address{static_cast<PartyKind>(4), 0}}), WireError);
  EXPECT_THROW(encode_message(Unreachable{{}, static_cast<MessageKind>(99), 0, ""}), WireError);
  InfoList info;
  info.add(key::ALLOC_REQ_DIRECTIVE, static_cast<Directive>(0));
  EXPECT_THROW(encode_message(Notification{Status::Success, info, ""}), WireError);
}

TEST(WireMessage, AnyStatusRoundTrips) {
  for (const std::int32_t s :
       {std::numeric_limits<std::int32_t>::min(), -9999, -1, 0, 1, 12345, std::numeric_limits<std::int32_t>::max()}) {
    const Message back = decode_message(encode_message(KillProcs{"j", static_cast<Status>(s)}));
    EXPECT_EQ(static_cast<std::int32_t>(std::get<KillProcs>(back).reason), s);
  }
}

TEST(WireMessage, CorruptedBytesAreRefusedOrReadBackCanonically) {
  // Whatever a flipped byte makes of a frame, the decoder either refuses it or reads a message
  // that encodes back to exactly those bytes: it never crashes and never accepts two spellings.
  std::mt19937 rng(12345);
  for (const Message& m : every_message()) {
    const std::string bytes = encode_message(m);
    for (int round = 0; round < 200; ++round) {
      std::string bad = bytes;
      const std::size_t at = rng() % bad.size();
      bad[at] = static_cast<char>(rng() & 0xff);
      try {
        EXPECT_EQ(encode_message(decode_message(bad)), bad) << message_name(kind_of(m)) << " byte " << at;
      } catch (const WireError&) {
      }
    }
  }
}

// ---------------------------------------------------------------- hostile sizes and depths

TEST(WireReader, HugeStringLengthIsRefusedBeforeAllocating) {
  // KillProcs whose nspace claims 4 GiB with three bytes behind it: refused without the
  // allocation a trusting reader would make (AddressSanitizer aborts on one that size).
  WireWriter out;
  out.message_kind(MessageKind::KillProcs);
  out.u32(std::numeric_limits<std::uint32_t>::max());
  out.u8('a');
  out.u8('b');
  out.u8('c');
  try {
    decode_message(out.take());
    FAIL() << "a 4 GiB string decoded";
  } catch (const WireError& e) {
    EXPECT_EQ(e.offset(), 5u);
    EXPECT_NE(std::string(e.what()).find("needs 4294967295 bytes, 3 left"), std::string::npos) << e.what();
  }
}

TEST(WireReader, HugeCountsAreRefusedBeforeAllocating) {
  const std::uint32_t huge = std::numeric_limits<std::uint32_t>::max();
  {
    WireWriter out;  // an info list of 4 billion items
    out.u32(huge);
    const std::string bytes = out.take();
    WireReader in(bytes);
    EXPECT_THROW(in.info(), WireError);
  }
  {
    WireWriter out;  // 4 billion apps
    out.u32(huge);
    out.u32(0);
    const std::string bytes = out.take();
    WireReader in(bytes);
    EXPECT_THROW(in.apps(), WireError);
  }
  {
    WireWriter out;  // an app with 4 billion arguments
    out.str("cmd");
    out.u32(huge);
    const std::string bytes = out.take();
    WireReader in(bytes);
    EXPECT_THROW(in.app(), WireError);
  }
}

TEST(WireInfo, ListsNestedThirtyTwoDeepRoundTrip) {
  const InfoList deep = nested(kMaxInfoDepth);
  WireWriter out;
  out.info(deep);
  const std::string bytes = out.take();
  WireReader in(bytes);
  EXPECT_EQ(in.info(), deep);
  EXPECT_NO_THROW(in.expect_end());
}

// An info list nested `depth` deep, written by hand: the writer refuses to write one too deep.
std::string nested_bytes(int depth) {
  ByteWriter out;
  for (int i = 1; i < depth; ++i) {
    out.u32(1);
    out.str("inner");
    out.u8(static_cast<std::uint8_t>(Value(std::in_place_type<InfoList>).index()));
  }
  out.u32(0);
  return out.take();
}

TEST(WireInfo, ListsNestedDeeperThanThirtyTwoAreRefused) {
  {
    const std::string bytes = nested_bytes(kMaxInfoDepth);
    WireReader in(bytes);
    EXPECT_NO_THROW(in.info());
  }
  for (const int depth : {kMaxInfoDepth + 1, 40, 100000}) {
    const std::string bytes = nested_bytes(depth);
    WireReader in(bytes);
    try {
      in.info();
      ADD_FAILURE() << depth << " deep was read";
    } catch (const WireError& e) {
      EXPECT_NE(std::string(e.what()).find("nested more than 32 deep"), std::string::npos) << e.what();
    }
  }
  WireWriter out;
  EXPECT_THROW(out.info(nested(kMaxInfoDepth + 1)), WireError);
  EXPECT_THROW(encode_message(Notification{Status::Success, nested(40), ""}), WireError);
}

TEST(WireInfo, OrderAndDuplicatesAreKept) {
  InfoList list;
  list.add("b", true).add("a", std::uint32_t{1}).add("b", false).add("a", std::uint32_t{2});
  WireWriter out;
  out.info(list);
  const std::string bytes = out.take();
  WireReader in(bytes);
  const InfoList back = in.info();
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back, list);
  EXPECT_EQ(back.items[2].key, "b");
  EXPECT_EQ(back.items[2].value, Value(false));
}

// ---------------------------------------------------------------- values and primitives

TEST(WireValue, EveryAlternativeRoundTrips) {
  for (const InfoItem& item : sample_info().items) {
    WireWriter out;
    out.value(item.value);
    const std::string bytes = out.take();
    WireReader in(bytes);
    EXPECT_EQ(in.value(), item.value) << item.key;
    EXPECT_TRUE(in.done());
  }
}

TEST(WireValue, UnknownTypesAndBadBoolsAreRefused) {
  WireWriter out;
  out.u8(std::variant_size_v<Value>);
  const std::string unknown_bytes = out.take();
  WireReader unknown(unknown_bytes);
  EXPECT_THROW(unknown.value(), WireError);

  WireWriter bools;
  bools.u8(0);  // Value's bool
  bools.u8(2);
  const std::string bad_bool_bytes = bools.take();
  WireReader bad_bool(bad_bool_bytes);
  EXPECT_THROW(bad_bool.value(), WireError);
}

TEST(WireValue, DoublesAreBitExact) {
  const std::uint64_t payload_nan = 0x7ff8'0000'dead'beefull;
  for (const double d :
       {0.0, -0.0, 0.1 + 0.2, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::max(), std::bit_cast<double>(payload_nan)}) {
    WireWriter out;
    out.f64(d);
    const std::string bytes = out.take();
    WireReader in(bytes);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(in.f64()), std::bit_cast<std::uint64_t>(d));
  }
}

TEST(WireValue, IntegersAreLittleEndianWhateverTheHost) {
  WireWriter out;
  out.u32(0x04030201u);
  out.i64(-2);
  const std::string bytes = out.take();
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(bytes.substr(4), std::string(8, '\xff').replace(0, 1, "\xfe"));
  WireReader in(bytes);
  EXPECT_EQ(in.u32(), 0x04030201u);
  EXPECT_EQ(in.i64(), -2);
}

TEST(WireErrors, SayWhatAndWhere) {
  WireReader in(std::string_view("\x05\x00", 2));
  in.u8();
  try {
    in.u32();
    FAIL();
  } catch (const WireError& e) {
    EXPECT_EQ(e.offset(), 1u);
    EXPECT_STREQ(e.what(), "wire: truncated: a u32 needs 4 bytes, 1 left (at byte 1)");
  }
}

}  // namespace
}  // namespace pmixflow
