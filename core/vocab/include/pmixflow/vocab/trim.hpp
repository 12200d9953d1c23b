// White space around a field, as every reader of text input takes it off: the C locale's
// spaces (space, tab, CR, LF, VT, FF), never the locale's.
#pragma once

#include <string_view>

namespace pmixflow {

inline constexpr std::string_view kWhiteSpace = " \t\r\n\f\v";

constexpr std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(kWhiteSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kWhiteSpace) - first + 1);
}

}  // namespace pmixflow
