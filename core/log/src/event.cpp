#include "pmixflow/log/event.hpp"

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {

void Event::key(std::string_view k) {
  fields_ += ',';
  json_quote_into(fields_, k);
  fields_ += ':';
}

Event& Event::str(std::string_view k, std::string_view value) {
  key(k);
  json_quote_into(fields_, value);
  return *this;
}

Event& Event::num(std::string_view k, double value) {
  key(k);
  json_number_into(fields_, value);
  return *this;
}

Event& Event::uint(std::string_view k, std::uint64_t value) {
  key(k);
  fields_ += std::to_string(value);
  return *this;
}

Event& Event::sint(std::string_view k, std::int64_t value) {
  key(k);
  fields_ += std::to_string(value);
  return *this;
}

Event& Event::flag(std::string_view k, bool value) {
  key(k);
  fields_ += value ? "true" : "false";
  return *this;
}

Event& Event::status(std::string_view k, Status s) { return str(k, status_name(s)); }

Event& Event::info(std::string_view k, const InfoList& info) { return raw(k, to_json(info)); }

Event& Event::raw(std::string_view k, std::string_view json) {
  key(k);
  fields_ += json;
  return *this;
}

}  // namespace pmixflow
