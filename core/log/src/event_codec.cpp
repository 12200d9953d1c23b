#include "pmixflow/log/event_codec.hpp"

#include <cstdint>
#include <utility>
#include <variant>

#include "pmixflow/vocab/bytes.hpp"

namespace pmixflow::log {

EventCodecError::EventCodecError(const std::string& what, std::size_t offset)
    : std::runtime_error("event: " + what + " (at byte " + std::to_string(offset) + ")"), offset_(offset) {}

namespace {

using Reader = ByteReader<EventCodecError>;

static_assert(kMaxFields <= 255, "the value count is one byte");

// A value's tag is the index of its type among FieldValue's alternatives.
template <class T>
constexpr std::uint8_t tag_of() {
  return static_cast<std::uint8_t>(FieldValue(std::in_place_type<T>).index());
}
constexpr std::uint8_t kTagCount = std::variant_size_v<FieldValue>;
constexpr std::uint8_t kAbsentTag = tag_of<std::monostate>();

// The tag a present value of a field of this type carries.
constexpr std::uint8_t tag_for(FieldType type) {
  switch (type) {
    case FieldType::String: return tag_of<std::string_view>();
    case FieldType::UInt: return tag_of<std::uint64_t>();
    case FieldType::Int: return tag_of<std::int64_t>();
    case FieldType::Number: return tag_of<double>();
    case FieldType::Bool: return tag_of<bool>();
    case FieldType::Status: return tag_of<Status>();
    case FieldType::Info:
    case FieldType::Apps:
    case FieldType::Json: return tag_of<JsonText>();
  }
  return kTagCount;
}

std::string tag_name(std::uint8_t tag) {
  static constexpr std::string_view kNames[] = {"absent",   "a string", "a uint",   "an int",
                                                "a number", "a bool",   "a status", "JSON text"};
  static_assert(std::size(kNames) == kTagCount, "a name for every alternative of FieldValue");
  return tag < kTagCount ? std::string(kNames[tag]) : "of unknown type " + std::to_string(tag);
}

// The checks both ends make, so that what the encoder writes the decoder accepts.
const EventSpec& known_kind(std::uint8_t kind, std::size_t at) {
  if (kind >= kKindCount) throw EventCodecError("unknown event kind " + std::to_string(kind), at);
  return spec(static_cast<EventKind>(kind));
}

void check_count(const EventSpec& s, std::size_t values, std::size_t at) {
  if (values != s.fields.size())
    throw EventCodecError("'" + std::string(s.name) + "' has " + std::to_string(s.fields.size()) +
                              " fields, the event gives " + std::to_string(values) + " values",
                          at);
}

void check_type(const EventSpec& s, std::size_t i, std::uint8_t tag, std::size_t at) {
  const FieldSpec& f = spec(s.fields[i].field);
  if (tag == kAbsentTag || tag == tag_for(f.type)) return;
  throw EventCodecError("field '" + std::string(f.key) + "' of '" + std::string(s.name) + "' takes " +
                            std::string(field_type_name(f.type)) + " values, this one is " + tag_name(tag),
                        at);
}

void put(ByteWriter&, std::monostate) {}
void put(ByteWriter& out, std::string_view v) { out.str(v); }
void put(ByteWriter& out, std::uint64_t v) { out.u64(v); }
void put(ByteWriter& out, std::int64_t v) { out.i64(v); }
void put(ByteWriter& out, double v) { out.f64(v); }
void put(ByteWriter& out, bool v) { out.boolean(v); }
void put(ByteWriter& out, Status v) { out.i32(static_cast<std::int32_t>(v)); }
void put(ByteWriter& out, JsonText v) { out.str(v.text); }

template <class T>
FieldValue as(T v) {
  return FieldValue(std::in_place_type<T>, v);
}

// A value whose tag check_type has passed.
FieldValue get_value(Reader& in, std::uint8_t tag) {
  switch (tag) {
    case tag_of<std::string_view>(): return as<std::string_view>(in.str());
    case tag_of<std::uint64_t>(): return as<std::uint64_t>(in.u64());
    case tag_of<std::int64_t>(): return as<std::int64_t>(in.i64());
    case tag_of<double>(): return as<double>(in.f64());
    case tag_of<bool>(): return as<bool>(in.boolean());
    case tag_of<Status>(): return as<Status>(static_cast<Status>(in.i32()));
    case tag_of<JsonText>(): return as<JsonText>(JsonText{in.str()});
    default: return std::monostate{};
  }
}

// `v` views bytes of `from`: the same bytes of `to`, a copy of `from`.
std::string_view rebase(std::string_view v, const std::vector<char>& from, const std::vector<char>& to) {
  if (v.empty()) return {};
  return {to.data() + (v.data() - from.data()), v.size()};
}

}  // namespace

std::string encode_event(const EventView& e) {
  ByteWriter out;
  const EventSpec& s = known_kind(static_cast<std::uint8_t>(e.kind), 0);
  out.u8(static_cast<std::uint8_t>(e.kind));
  out.f64(e.t);
  out.str(e.who);
  check_count(s, e.values.size(), out.size());
  out.u8(static_cast<std::uint8_t>(e.values.size()));
  for (std::size_t i = 0; i < e.values.size(); ++i) {
    const auto tag = static_cast<std::uint8_t>(e.values[i].index());
    check_type(s, i, tag, out.size());
    out.u8(tag);
    std::visit([&](const auto& v) { put(out, v); }, e.values[i]);
  }
  return out.take();
}

DecodedEvent decode_event(std::string_view bytes) {
  DecodedEvent e;
  e.bytes_.assign(bytes.begin(), bytes.end());
  Reader in(std::string_view(e.bytes_.data(), e.bytes_.size()));
  const EventSpec& s = known_kind(in.u8(), 0);
  e.kind_ = s.kind;
  e.t_ = in.f64();
  e.who_ = in.str();
  const std::size_t count_at = in.offset();
  const std::uint8_t n = in.u8();
  check_count(s, n, count_at);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = in.offset();
    const std::uint8_t tag = in.u8();
    if (tag >= kTagCount) in.fail_at(at, "unknown value type " + std::to_string(tag));
    check_type(s, i, tag, at);
    e.values_[i] = get_value(in, tag);
  }
  e.count_ = n;
  in.expect_end();
  return e;
}

DecodedEvent::DecodedEvent(const DecodedEvent& o)
    : bytes_(o.bytes_),
      t_(o.t_),
      who_(rebase(o.who_, o.bytes_, bytes_)),
      kind_(o.kind_),
      values_(o.values_),
      count_(o.count_) {
  for (std::size_t i = 0; i < count_; ++i) {
    if (auto* s = std::get_if<std::string_view>(&values_[i])) *s = rebase(*s, o.bytes_, bytes_);
    if (auto* j = std::get_if<JsonText>(&values_[i])) j->text = rebase(j->text, o.bytes_, bytes_);
  }
}

DecodedEvent& DecodedEvent::operator=(const DecodedEvent& o) {
  if (this != &o) *this = DecodedEvent(o);
  return *this;
}

// A vector's move hands its buffer over, so the views copied with it stay valid; the source is
// left empty rather than with views into bytes it no longer owns.
DecodedEvent::DecodedEvent(DecodedEvent&& o) noexcept
    : bytes_(std::move(o.bytes_)),
      t_(o.t_),
      who_(std::exchange(o.who_, {})),
      kind_(o.kind_),
      values_(o.values_),
      count_(std::exchange(o.count_, 0)) {
  o.bytes_.clear();
}

DecodedEvent& DecodedEvent::operator=(DecodedEvent&& o) noexcept {
  if (this == &o) return *this;
  bytes_ = std::move(o.bytes_);
  o.bytes_.clear();
  t_ = o.t_;
  who_ = std::exchange(o.who_, {});
  kind_ = o.kind_;
  values_ = o.values_;
  count_ = std::exchange(o.count_, 0);
  return *this;
}

}  // namespace pmixflow::log
