// Internal to the log reader (public only so that LogReader can hold its scratch space).
// A strict scanner for one line of the log: a flat JSON object whose members are read in
// place. Nested arrays and objects are checked and kept as text; strings are decoded only
// when they hold escapes. Fast enough to read a log of millions of lines.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow::log::detail {

enum class JsonType { String, Number, True, False, Null, Array, Object };

struct Member {
  std::string_view key;
  JsonType type = JsonType::Null;
  std::string_view raw;   // the value's text as written
  std::string_view text;  // a string's decoded value (String only)
};

struct ScanError {
  std::string key;  // the member at fault, when one is
  std::string what;
};

// Reads `line` (one JSON object, nothing after it but spaces) into `members`. Decoded strings
// are kept in `storage`, which must outlive the members.
std::optional<ScanError> scan_object(std::string_view line, std::vector<Member>& members,
                                     std::deque<std::string>& storage);

}  // namespace pmixflow::log::detail
