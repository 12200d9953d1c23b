// Integers read from text that people and files write.
#pragma once

#include <charconv>
#include <concepts>
#include <optional>
#include <string_view>
#include <system_error>

namespace pmixflow {

// The integer that is the whole of `text`, or nothing: std::from_chars alone stops at trailing
// junk ("4x" reads as 4) and leaves an empty text unreported. No '+', no spaces; a '-' only for
// signed types; a value out of Int's range is nothing too.
template <std::integral Int>
std::optional<Int> parse_whole(std::string_view text) {
  Int value{};
  const char* const last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  if (text.empty() || ec != std::errc() || end != last) return std::nullopt;
  return value;
}

}  // namespace pmixflow
