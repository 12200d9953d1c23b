// One line of the event log. Fields are rendered as they are added, in order, so that writing
// a million events stays cheap and the same run always yields the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

class Event {
 public:
  explicit Event(std::string_view kind) : kind_(kind) {}

  Event& str(std::string_view key, std::string_view value);
  Event& num(std::string_view key, double value);
  Event& uint(std::string_view key, std::uint64_t value);
  Event& sint(std::string_view key, std::int64_t value);
  Event& flag(std::string_view key, bool value);
  Event& status(std::string_view key, Status s);
  Event& info(std::string_view key, const InfoList& info);
  Event& raw(std::string_view key, std::string_view json);  // an already-rendered JSON value

  std::string_view kind() const { return kind_; }
  // `,"key":value` pairs, ready to follow the envelope fields.
  const std::string& fields() const { return fields_; }

 private:
  void key(std::string_view k);
  std::string kind_;
  std::string fields_;
};

inline constexpr std::string_view kEventLogFormat = "pmixflow-events";
inline constexpr int kEventLogVersion = 1;

}  // namespace pmixflow
