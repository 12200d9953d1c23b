// One event as producers build it and consumers read it, whether it comes from a role in this
// process or from a line of a log file: its kind, time, party, and the values of its fields
// in the catalogue's order. Values are views: they live as long as the record handed over.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow::log {

// An Info, Apps or Json field: the JSON text of the array or object.
struct JsonText {
  std::string_view text;
  bool operator==(const JsonText&) const = default;
};

// std::monostate: the kind has the field but this event does not carry it.
using FieldValue =
    std::variant<std::monostate, std::string_view, std::uint64_t, std::int64_t, double, bool, Status, JsonText>;

struct EventView {
  double t = 0;
  std::string_view who;
  EventKind kind = EventKind::LogEnd;
  std::span<const FieldValue> values;  // one per field of the kind, in catalogue order
  // A send's or recv's message as the environment numbers it (0: not numbered). A recv given
  // the number of a send carries exactly what that send did, which spares a writer rendering
  // it to find out (LineSink); an environment gives a recv that changed on its way none.
  std::uint64_t message = 0;

  // The field's value; monostate when absent or not a field of this kind.
  const FieldValue& operator[](Field f) const;
  bool has(Field f) const { return !std::holds_alternative<std::monostate>((*this)[f]); }
  std::optional<std::string_view> str(Field f) const;
  std::optional<std::uint64_t> uint(Field f) const;
  std::optional<std::int64_t> sint(Field f) const;
  std::optional<double> num(Field f) const;
  std::optional<bool> flag(Field f) const;
  std::optional<Status> status(Field f) const;
  std::optional<std::string_view> json(Field f) const;  // Info, Apps and Json fields
};

// What a role hands over for a String field. An event is a value a role may fill over
// several statements before logging it, so a view of a temporary would dangle by then: a
// temporary string is kept (moved in, no copy), anything else is viewed.
class StrArg {
 public:
  StrArg() = default;
  StrArg(std::string_view t) : view_(t) {}                        // NOLINT(google-explicit-constructor)
  StrArg(const char* t) : view_(t) {}                             // NOLINT(google-explicit-constructor)
  StrArg(const std::string& t) : view_(t) {}                      // NOLINT(google-explicit-constructor)
  StrArg(std::string&& t) : owned_(std::move(t)), owns_(true) {}  // NOLINT(google-explicit-constructor)
  std::string_view text() const { return owns_ ? std::string_view(owned_) : view_; }

 private:
  std::string owned_;
  std::string_view view_;
  bool owns_ = false;
};

// What a role hands over for an Info, Apps or Json field; rendered only when the event is
// recorded. They point at the caller's values, which outlive the call that logs them.
struct InfoArg {
  const InfoList* list = nullptr;
  InfoArg() = default;
  InfoArg(const InfoList& l) : list(&l) {}  // NOLINT(google-explicit-constructor): built in place
};
struct AppsArg {
  const std::vector<App>* apps = nullptr;
  AppsArg() = default;
  AppsArg(const std::vector<App>& a) : apps(&a) {}  // NOLINT(google-explicit-constructor)
};
struct JsonArg {
  std::string_view text = "null";
  JsonArg() = default;
  JsonArg(std::string_view t) : text(t) {}    // NOLINT(google-explicit-constructor)
  JsonArg(const std::string& t) : text(t) {}  // NOLINT(google-explicit-constructor)
};

namespace detail {
template <FieldType T>
struct Arg;
template <>
struct Arg<FieldType::String> {
  using type = StrArg;
};
template <>
struct Arg<FieldType::UInt> {
  using type = std::uint64_t;
};
template <>
struct Arg<FieldType::Int> {
  using type = std::int64_t;
};
template <>
struct Arg<FieldType::Number> {
  using type = double;
};
template <>
struct Arg<FieldType::Bool> {
  using type = bool;
};
template <>
struct Arg<FieldType::Status> {
  using type = Status;
};
template <>
struct Arg<FieldType::Info> {
  using type = InfoArg;
};
template <>
struct Arg<FieldType::Apps> {
  using type = AppsArg;
};
template <>
struct Arg<FieldType::Json> {
  using type = JsonArg;
};
}  // namespace detail

// The C++ type a role gives a field of the catalogue.
template <Field F>
using FieldArg = typename detail::Arg<type_of(F)>::type;

// Collects the values of one event, in order, rendering Info and Apps fields as it goes.
class EventBuilder {
 public:
  explicit EventBuilder(EventKind kind) : kind_(kind) {}
  ~EventBuilder();
  EventBuilder(const EventBuilder&) = delete;
  EventBuilder& operator=(const EventBuilder&) = delete;

  void put(std::string_view v) { next() = v; }
  void put(const StrArg& v) { next() = v.text(); }
  void put(std::uint64_t v) { next() = v; }
  void put(std::int64_t v) { next() = v; }
  void put(double v) { next() = v; }
  void put(bool v) { next() = v; }
  void put(Status v) { next() = v; }
  void put(InfoArg v);
  void put(AppsArg v);
  void put(JsonArg v) { next() = JsonText{v.text}; }
  template <class T>
  void put(const std::optional<T>& v) {
    if (v)
      put(*v);
    else
      next() = std::monostate{};
  }

  EventKind kind() const { return kind_; }
  EventView view(double t, std::string_view who, std::uint64_t message = 0) const {
    return EventView{t, who, kind_, {values_.data(), count_}, message};
  }

 private:
  FieldValue& next() { return values_[count_++]; }
  std::string& scratch();

  EventKind kind_;
  std::array<FieldValue, kMaxFields> values_{};
  std::size_t count_ = 0;
  // Rendered Info and Apps values; no kind has more than this many.
  std::array<std::string, 4> rendered_;
  std::size_t used_ = 0;
};

}  // namespace pmixflow::log
