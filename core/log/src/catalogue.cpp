#include "pmixflow/log/catalogue.hpp"

#include <array>
#include <unordered_map>

namespace pmixflow::log {
namespace {

constexpr FieldSpec kFields[] = {
#define PMIXFLOW_LOG_FIELD(name, type, meaning) {#name, FieldType::type, meaning},
#include "pmixflow/log/fields.def"
#undef PMIXFLOW_LOG_FIELD
};

// Each kind's fields, with one end marker per kind so that a kind without fields is no
// empty array.
#define PMIXFLOW_LOG_EVENT(Name, kind, writer, meaning) constexpr FieldUse k##Name##Fields[] = {
#define PMIXFLOW_LOG_REQ(f) {Field::f, true},
#define PMIXFLOW_LOG_OPT(f) {Field::f, false},
#define PMIXFLOW_LOG_END \
  { Field::corr, false } \
  }                      \
  ;
#include "pmixflow/log/events.def"
#undef PMIXFLOW_LOG_EVENT
#undef PMIXFLOW_LOG_REQ
#undef PMIXFLOW_LOG_OPT
#undef PMIXFLOW_LOG_END

constexpr EventSpec kKinds[] = {
#define PMIXFLOW_LOG_EVENT(Name, kind, writer, meaning) \
  {EventKind::Name, kind, writer, meaning, std::span<const FieldUse>(k##Name##Fields, std::size(k##Name##Fields) - 1)},
#define PMIXFLOW_LOG_REQ(f)
#define PMIXFLOW_LOG_OPT(f)
#define PMIXFLOW_LOG_END
#include "pmixflow/log/events.def"
#undef PMIXFLOW_LOG_EVENT
#undef PMIXFLOW_LOG_REQ
#undef PMIXFLOW_LOG_OPT
#undef PMIXFLOW_LOG_END
};

static_assert(std::size(kFields) == kFieldCount);
static_assert(std::size(kKinds) == kKindCount);
static_assert(kFieldCount < 255, "positions are kept in bytes");

constexpr bool kinds_in_order() {
  for (std::size_t i = 0; i < kKindCount; ++i)
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  return true;
}
static_assert(kinds_in_order());

constexpr bool no_field_twice() {
  for (const auto& k : kKinds)
    for (std::size_t i = 0; i < k.fields.size(); ++i)
      for (std::size_t j = i + 1; j < k.fields.size(); ++j)
        if (k.fields[i].field == k.fields[j].field) return false;
  return true;
}
static_assert(no_field_twice(), "a kind lists a field twice");

constexpr bool no_name_twice() {
  for (std::size_t i = 0; i < kKindCount; ++i)
    for (std::size_t j = i + 1; j < kKindCount; ++j)
      if (kKinds[i].name == kKinds[j].name) return false;
  return true;
}
static_assert(no_name_twice(), "two kinds have the same name");

// The writer appends keys and kind names as they are, unquoted by json_quote_into.
constexpr bool plain(std::string_view s) {
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return false;
  return !s.empty();
}
constexpr bool all_plain() {
  for (const auto& f : kFields)
    if (!plain(f.key)) return false;
  for (const auto& k : kKinds)
    if (!plain(k.name)) return false;
  return true;
}
static_assert(all_plain(), "a key or a kind name needs JSON escaping (lower case, digits, '_' and '.' only)");

constexpr std::uint8_t kAbsent = 255;
// positions[kind][field]: where the field sits in the kind's list, kAbsent when not there.
constexpr auto kPositions = [] {
  std::array<std::array<std::uint8_t, kFieldCount>, kKindCount> p{};
  for (auto& row : p) row.fill(kAbsent);
  for (std::size_t k = 0; k < kKindCount; ++k)
    for (std::size_t i = 0; i < kKinds[k].fields.size(); ++i)
      p[k][static_cast<std::size_t>(kKinds[k].fields[i].field)] = static_cast<std::uint8_t>(i);
  return p;
}();

}  // namespace

std::string_view field_type_name(FieldType type) {
  switch (type) {
    case FieldType::String: return "string";
    case FieldType::UInt: return "uint";
    case FieldType::Int: return "int";
    case FieldType::Number: return "number";
    case FieldType::Bool: return "bool";
    case FieldType::Status: return "status";
    case FieldType::Info: return "info";
    case FieldType::Apps: return "apps";
    case FieldType::Json: return "json";
  }
  return "?";
}

const FieldSpec& spec(Field f) { return kFields[static_cast<std::size_t>(f)]; }
const EventSpec& spec(EventKind k) { return kKinds[static_cast<std::size_t>(k)]; }
std::span<const FieldSpec> all_fields() { return kFields; }
std::span<const EventSpec> all_kinds() { return kKinds; }

std::optional<EventKind> find_kind(std::string_view name) {
  static const auto by_name = [] {
    std::unordered_map<std::string_view, EventKind> m;
    for (const auto& k : kKinds) m.emplace(k.name, k.kind);
    return m;
  }();
  const auto it = by_name.find(name);
  if (it == by_name.end()) return std::nullopt;
  return it->second;
}

std::optional<Field> find_field(std::string_view key) {
  static const auto by_key = [] {
    std::unordered_map<std::string_view, Field> m;
    for (std::size_t i = 0; i < kFieldCount; ++i) m.emplace(kFields[i].key, static_cast<Field>(i));
    return m;
  }();
  const auto it = by_key.find(key);
  if (it == by_key.end()) return std::nullopt;
  return it->second;
}

std::optional<std::size_t> position(EventKind k, Field f) {
  const std::uint8_t p = kPositions[static_cast<std::size_t>(k)][static_cast<std::size_t>(f)];
  if (p == kAbsent) return std::nullopt;
  return p;
}

}  // namespace pmixflow::log
