// UTF-8 as inputs must hold it: every string that reaches the event log or a JSON output is
// checked here at the border (refused, naming its field), and the log writer takes any byte
// that still is not UTF-8 as the Latin-1 character of that value, so that a strict JSON
// reader accepts every line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pmixflow {

// The length (1 to 4) of the well-formed UTF-8 sequence that starts at s[i], or 0 when none
// does there (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = byte(0);
  if (c < 0x80) return 1;
  const auto tail = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    const unsigned b = byte(k);
    return i + k < s.size() && b >= lo && b <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return tail(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return tail(1, lo, hi) && tail(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return tail(1, lo, hi) && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

// Where the first byte that is not UTF-8 is; npos when the whole text is UTF-8.
std::size_t first_invalid_utf8(std::string_view s);
inline bool is_utf8(std::string_view s) { return first_invalid_utf8(s) == std::string_view::npos; }

// The text as UTF-8, each byte that is not UTF-8 taken as the Latin-1 character of its value
// (0xFF becomes U+00FF): nothing is lost, and two different inputs stay different.
std::string utf8_from_bytes(std::string_view s);

// "0xFF": a byte as a refusal names it.
std::string hex_byte(char c);

// "byte 0xFF at offset 3": where and what, for a refusal.
std::string invalid_utf8_text(std::string_view s);

}  // namespace pmixflow
