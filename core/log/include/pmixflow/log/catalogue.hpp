// The event catalogue: every kind of event the log holds, every field, their types and what
// they mean, from fields.def and events.def. The log is the contract between the
// environments, the viewer, the reports and users' scripts; this is its schema.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace pmixflow::log {

inline constexpr std::string_view kFormat = "pmixflow-events";
// 2: the catalogue (one meaning per key), the closing line, the scheduler's accounting events.
// 3: a recv whose content is its send's is written short (`from` and `id`; InFlight).
inline constexpr int kVersion = 3;
// The oldest version the reader still reads.
inline constexpr int kOldestVersion = 2;

enum class FieldType : std::uint8_t { String, UInt, Int, Number, Bool, Status, Info, Apps, Json };
std::string_view field_type_name(FieldType type);  // "string", "uint", ...

enum class Field : std::uint8_t {
#define PMIXFLOW_LOG_FIELD(name, type, meaning) name,
#include "pmixflow/log/fields.def"
#undef PMIXFLOW_LOG_FIELD
};

enum class EventKind : std::uint8_t {
#define PMIXFLOW_LOG_EVENT(Name, kind, writer, meaning) Name,
#define PMIXFLOW_LOG_REQ(f)
#define PMIXFLOW_LOG_OPT(f)
#define PMIXFLOW_LOG_END
#include "pmixflow/log/events.def"
#undef PMIXFLOW_LOG_EVENT
#undef PMIXFLOW_LOG_REQ
#undef PMIXFLOW_LOG_OPT
#undef PMIXFLOW_LOG_END
};

namespace detail {
inline constexpr FieldType kFieldTypes[] = {
#define PMIXFLOW_LOG_FIELD(name, type, meaning) FieldType::type,
#include "pmixflow/log/fields.def"
#undef PMIXFLOW_LOG_FIELD
};
// Fields per kind, in kind order: the largest decides how much room an event needs.
inline constexpr std::size_t kFieldsPerKind[] = {
#define PMIXFLOW_LOG_EVENT(Name, kind, writer, meaning) 0
#define PMIXFLOW_LOG_REQ(f) +1
#define PMIXFLOW_LOG_OPT(f) +1
#define PMIXFLOW_LOG_END ,
#include "pmixflow/log/events.def"
#undef PMIXFLOW_LOG_EVENT
#undef PMIXFLOW_LOG_REQ
#undef PMIXFLOW_LOG_OPT
#undef PMIXFLOW_LOG_END
};
constexpr std::size_t max_fields() {
  std::size_t m = 0;
  for (std::size_t n : kFieldsPerKind) m = n > m ? n : m;
  return m;
}
}  // namespace detail

inline constexpr std::size_t kFieldCount = std::size(detail::kFieldTypes);
inline constexpr std::size_t kKindCount = std::size(detail::kFieldsPerKind);
inline constexpr std::size_t kMaxFields = detail::max_fields();

constexpr FieldType type_of(Field f) { return detail::kFieldTypes[static_cast<std::size_t>(f)]; }

struct FieldSpec {
  std::string_view key;  // the JSON key
  FieldType type;
  std::string_view meaning;
};

struct FieldUse {
  Field field;
  bool required;
};

struct EventSpec {
  EventKind kind;
  std::string_view name;    // "alloc.grant", the value of "ev"
  std::string_view writer;  // which party writes it, for people
  std::string_view meaning;
  std::span<const FieldUse> fields;  // in the order they are written
};

const FieldSpec& spec(Field f);
const EventSpec& spec(EventKind k);
std::span<const FieldSpec> all_fields();  // in fields.def order
std::span<const EventSpec> all_kinds();   // in events.def order
std::optional<EventKind> find_kind(std::string_view name);
std::optional<Field> find_field(std::string_view key);
// Where `f` sits among the fields of `k`, or nothing when the kind has no such field.
std::optional<std::size_t> position(EventKind k, Field f);

}  // namespace pmixflow::log
