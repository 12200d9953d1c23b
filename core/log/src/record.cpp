#include "pmixflow/log/record.hpp"

namespace pmixflow::log {

const FieldValue& EventView::operator[](Field f) const {
  static const FieldValue kNone;
  const auto p = position(kind, f);
  return p && *p < values.size() ? values[*p] : kNone;
}

namespace {
template <class T>
std::optional<T> as(const FieldValue& v) {
  if (const T* x = std::get_if<T>(&v)) return *x;
  return std::nullopt;
}
}  // namespace

std::optional<std::string_view> EventView::str(Field f) const { return as<std::string_view>((*this)[f]); }
std::optional<std::uint64_t> EventView::uint(Field f) const { return as<std::uint64_t>((*this)[f]); }
std::optional<std::int64_t> EventView::sint(Field f) const { return as<std::int64_t>((*this)[f]); }
std::optional<double> EventView::num(Field f) const { return as<double>((*this)[f]); }
std::optional<bool> EventView::flag(Field f) const { return as<bool>((*this)[f]); }
std::optional<Status> EventView::status(Field f) const { return as<Status>((*this)[f]); }
std::optional<std::string_view> EventView::json(Field f) const {
  if (const auto* j = std::get_if<JsonText>(&(*this)[f])) return j->text;
  return std::nullopt;
}

namespace {
// Strings that rendered an event's Info and Apps values, kept for the next events: an info
// list outgrows a string's inline room, and a fresh string would grow on the heap every time.
constexpr std::size_t kKeptScratch = 16;
std::vector<std::string>& kept_scratch() {
  thread_local std::vector<std::string> kept;
  return kept;
}
}  // namespace

EventBuilder::~EventBuilder() {
  auto& kept = kept_scratch();
  for (std::size_t i = 0; i < used_ && kept.size() < kKeptScratch; ++i) kept.push_back(std::move(rendered_[i]));
}

std::string& EventBuilder::scratch() {
  std::string& s = rendered_.at(used_++);
  if (auto& kept = kept_scratch(); !kept.empty()) {
    s = std::move(kept.back());
    kept.pop_back();
  }
  s.clear();
  return s;
}

void EventBuilder::put(InfoArg v) {
  std::string& s = scratch();
  if (v.list)
    info_json_into(s, *v.list);
  else
    s = "[]";
  next() = JsonText{s};
}

void EventBuilder::put(AppsArg v) {
  std::string& s = scratch();
  if (v.apps)
    apps_json_into(s, *v.apps);
  else
    s = "[]";
  next() = JsonText{s};
}

}  // namespace pmixflow::log
