#include "pmixflow/proto/wire.hpp"

#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace pmixflow {

WireError::WireError(const std::string& what, std::size_t offset)
    : std::runtime_error("wire: " + what + " (at byte " + std::to_string(offset) + ")"), offset_(offset) {}

namespace {

// The smallest encodings, so that a count can be checked against what is left before a list
// is grown to it.
constexpr std::size_t kMinString = 4;                    // an empty string
constexpr std::size_t kMinItem = kMinString + 1;         // a key and a value's tag
constexpr std::size_t kMinApp = kMinString + 4 + 4 + 4;  // cmd, argv, env, maxprocs

// Counts how deep the InfoList being read or written sits, for as long as it is.
class Nesting {
 public:
  explicit Nesting(int& depth) : depth_(depth) { ++depth_; }
  ~Nesting() { --depth_; }
  Nesting(const Nesting&) = delete;
  Nesting& operator=(const Nesting&) = delete;

 private:
  int& depth_;
};

std::string too_deep() { return "info lists nested more than " + std::to_string(kMaxInfoDepth) + " deep"; }

// The values of the enums the wire carries. Both ends check them, so that what a writer sends
// a reader takes, and a reader never holds an enum no switch over it expects.
bool known(Directive d) {
  switch (d) {
    case Directive::New:
    case Directive::Extend:
    case Directive::Release:
    case Directive::Reaquire:
    case Directive::ReqCancel:
    case Directive::Activate:
    case Directive::External: return true;
  }
  return false;
}
bool known(PartyKind k) {
  switch (k) {
    case PartyKind::Requestor:
    case PartyKind::Daemon:
    case PartyKind::Controller:
    case PartyKind::Scheduler: return true;
  }
  return false;
}
bool known(MessageKind k) { return static_cast<std::size_t>(k) < std::variant_size_v<Message>; }

template <class E>
std::string unknown(std::string_view what, E e) {
  return "unknown " + std::string(what) + " " + std::to_string(static_cast<int>(e));
}

template <class E>
void put_enum(WireWriter& w, E e, std::string_view what) {
  if (!known(e)) throw WireError(unknown(what, e), w.size());
  w.u8(static_cast<std::uint8_t>(e));
}

template <class E>
E get_enum(WireReader& r, std::string_view what) {
  const std::size_t at = r.offset();
  const auto e = static_cast<E>(r.u8());
  if (!known(e)) r.fail_at(at, unknown(what, e));
  return e;
}

// One overload per type a Value or a message field holds, so that the generic code below
// writes and reads each by its type.
void put(WireWriter& w, bool v) { w.boolean(v); }
void put(WireWriter& w, std::int32_t v) { w.i32(v); }
void put(WireWriter& w, std::uint32_t v) { w.u32(v); }
void put(WireWriter& w, std::uint64_t v) { w.u64(v); }
void put(WireWriter& w, double v) { w.f64(v); }
void put(WireWriter& w, const std::string& v) { w.str(v); }
void put(WireWriter& w, Status v) { w.status(v); }
void put(WireWriter& w, Directive v) { w.directive(v); }
void put(WireWriter& w, MessageKind v) { w.message_kind(v); }
void put(WireWriter& w, const Proc& v) { w.proc(v); }
void put(WireWriter& w, const InfoList& v) { w.info(v); }
void put(WireWriter& w, const std::vector<App>& v) { w.apps(v); }
void put(WireWriter& w, const Address& v) { w.address(v); }

void get(WireReader& r, bool& v) { v = r.boolean(); }
void get(WireReader& r, std::int32_t& v) { v = r.i32(); }
void get(WireReader& r, std::uint32_t& v) { v = r.u32(); }
void get(WireReader& r, std::uint64_t& v) { v = r.u64(); }
void get(WireReader& r, double& v) { v = r.f64(); }
void get(WireReader& r, std::string& v) { v = r.string(); }
void get(WireReader& r, Status& v) { v = r.status(); }
void get(WireReader& r, Directive& v) { v = r.directive(); }
void get(WireReader& r, MessageKind& v) { v = r.message_kind(); }
void get(WireReader& r, Proc& v) { v = r.proc(); }
void get(WireReader& r, InfoList& v) { v = r.info(); }
void get(WireReader& r, std::vector<App>& v) { v = r.apps(); }
void get(WireReader& r, Address& v) { v = r.address(); }

// How many fields each message has. The structured bindings of tie_fields compile only when
// the count is the struct's, so a field added to a message cannot silently stay off the wire;
// a message missing here does not compile either.
template <class M>
using Is = std::type_identity<M>;
constexpr std::size_t arity(Is<AllocRequest>) { return 5; }
constexpr std::size_t arity(Is<AllocResponse>) { return 4; }
constexpr std::size_t arity(Is<SessionCtrlRequest>) { return 5; }
constexpr std::size_t arity(Is<SessionCtrlResponse>) { return 4; }
constexpr std::size_t arity(Is<ConnectRequest>) { return 3; }
constexpr std::size_t arity(Is<ConnectResponse>) { return 2; }
constexpr std::size_t arity(Is<Notification>) { return 3; }
constexpr std::size_t arity(Is<DaemonReady>) { return 1; }
constexpr std::size_t arity(Is<DaemonStartFailed>) { return 1; }
constexpr std::size_t arity(Is<LaunchProcs>) { return 6; }
constexpr std::size_t arity(Is<ProcsStarted>) { return 3; }
constexpr std::size_t arity(Is<ProcsEnded>) { return 4; }
constexpr std::size_t arity(Is<KillProcs>) { return 2; }
constexpr std::size_t arity(Is<DaemonShutdown>) { return 0; }
constexpr std::size_t arity(Is<Unreachable>) { return 4; }
constexpr std::size_t arity(Is<PeerLost>) { return 1; }
constexpr std::size_t arity(Is<SpawnRequest>) { return 5; }
constexpr std::size_t arity(Is<SpawnResponse>) { return 5; }
constexpr std::size_t arity(Is<SignalProcs>) { return 2; }

// References to every field of a message (const or not), in declaration order.
template <class M>
auto tie_fields(M& m) {
  using T = std::remove_const_t<M>;
  constexpr std::size_t n = arity(Is<T>{});
  if constexpr (n == 0) {
    static_assert(std::is_empty_v<T>, "a message with fields must give their count to arity()");
    return std::tie();
  } else if constexpr (n == 1) {
    auto& [a] = m;
    return std::tie(a);
  } else if constexpr (n == 2) {
    auto& [a, b] = m;
    return std::tie(a, b);
  } else if constexpr (n == 3) {
    auto& [a, b, c] = m;
    return std::tie(a, b, c);
  } else if constexpr (n == 4) {
    auto& [a, b, c, d] = m;
    return std::tie(a, b, c, d);
  } else if constexpr (n == 5) {
    auto& [a, b, c, d, e] = m;
    return std::tie(a, b, c, d, e);
  } else {
    static_assert(n == 6, "tie_fields needs a case for this many fields");
    auto& [a, b, c, d, e, f] = m;
    return std::tie(a, b, c, d, e, f);
  }
}

template <class T, class V>
inline constexpr bool kAlternativeOf = false;
template <class T, class... Ts>
inline constexpr bool kAlternativeOf<T, std::variant<Ts...>> = (std::is_same_v<T, Ts> || ...);
template <class T>
concept MessageType = kAlternativeOf<T, Message>;

template <MessageType M>
void put(WireWriter& w, const M& m) {
  std::apply([&](const auto&... field) { (put(w, field), ...); }, tie_fields(m));
}

template <MessageType M>
void get(WireReader& r, M& m) {
  // A fold over the comma operator: the fields are read in order.
  std::apply([&](auto&... field) { (get(r, field), ...); }, tie_fields(m));
}

// Reads alternative `index` of V (a checked one) in place, by its type.
template <class V, std::size_t... I>
V get_alternative(WireReader& r, std::size_t index, std::index_sequence<I...>) {
  V out;
  (void)((index == I && (get(r, out.template emplace<I>()), true)) || ...);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- writing

void WireWriter::proc(const Proc& p) {
  str(p.nspace);
  u32(p.rank);
}

void WireWriter::app(const App& a) {
  str(a.cmd);
  count(a.argv.size());
  for (const auto& arg : a.argv) str(arg);
  count(a.env.size());
  for (const auto& var : a.env) str(var);
  u32(a.maxprocs);
}

void WireWriter::apps(std::span<const App> apps) {
  count(apps.size());
  for (const auto& a : apps) app(a);
}

void WireWriter::value(const Value& v) {
  u8(static_cast<std::uint8_t>(v.index()));
  std::visit([&](const auto& x) { put(*this, x); }, v);
}

void WireWriter::info(const InfoList& list) {
  // Refused here as the reader would refuse it, so that the sender hears of it, not the peer.
  if (depth_ >= kMaxInfoDepth) throw WireError(too_deep(), size());
  const Nesting nesting(depth_);
  count(list.items.size());
  for (const auto& item : list.items) {
    str(item.key);
    value(item.value);
  }
}

void WireWriter::directive(Directive d) { put_enum(*this, d, "directive"); }
void WireWriter::message_kind(MessageKind k) { put_enum(*this, k, "message kind"); }
void WireWriter::party_kind(PartyKind k) { put_enum(*this, k, "party kind"); }

void WireWriter::address(const Address& a) {
  party_kind(a.kind);
  u32(a.index);
}

// ---------------------------------------------------------------- reading

Proc WireReader::proc() {
  Proc p;
  p.nspace = string();
  p.rank = u32();
  return p;
}

App WireReader::app() {
  App a;
  a.cmd = string();
  for (std::uint32_t n = count(kMinString, "argv strings"); n > 0; --n) a.argv.push_back(string());
  for (std::uint32_t n = count(kMinString, "env strings"); n > 0; --n) a.env.push_back(string());
  a.maxprocs = u32();
  return a;
}

std::vector<App> WireReader::apps() {
  std::vector<App> out;
  const std::uint32_t n = count(kMinApp, "apps");
  out.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) out.push_back(app());
  return out;
}

Value WireReader::value() {
  const std::size_t at = offset();
  const std::uint8_t index = u8();
  if (index >= std::variant_size_v<Value>) fail_at(at, "unknown value type " + std::to_string(index));
  return get_alternative<Value>(*this, index, std::make_index_sequence<std::variant_size_v<Value>>{});
}

InfoList WireReader::info() {
  if (depth_ >= kMaxInfoDepth) fail(too_deep());
  const Nesting nesting(depth_);
  InfoList list;
  const std::uint32_t n = count(kMinItem, "info items");
  list.items.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string key = string();
    list.items.push_back(InfoItem{std::move(key), value()});
  }
  return list;
}

Address WireReader::address() {
  Address a;
  a.kind = party_kind();
  a.index = u32();
  return a;
}

Directive WireReader::directive() { return get_enum<Directive>(*this, "directive"); }
MessageKind WireReader::message_kind() { return get_enum<MessageKind>(*this, "message kind"); }
PartyKind WireReader::party_kind() { return get_enum<PartyKind>(*this, "party kind"); }

// ---------------------------------------------------------------- messages

void put_message(WireWriter& out, const Message& m) {
  out.message_kind(kind_of(m));
  std::visit([&](const auto& x) { put(out, x); }, m);
}

Message get_message(WireReader& in) {
  const MessageKind k = in.message_kind();
  return get_alternative<Message>(in, static_cast<std::size_t>(k),
                                  std::make_index_sequence<std::variant_size_v<Message>>{});
}

std::string encode_message(const Message& m) {
  WireWriter out;
  put_message(out, m);
  return out.take();
}

Message decode_message(std::string_view bytes) {
  WireReader in(bytes);
  Message m = get_message(in);
  in.expect_end();
  return m;
}

}  // namespace pmixflow
