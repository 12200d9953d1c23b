#include "pmixflow/vocab/utf8.hpp"

#include <cstdio>

namespace pmixflow {

std::size_t first_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    // Runs of ASCII, the common case, one byte at a time without the full check.
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string utf8_from_bytes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i++]);
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

std::string hex_byte(char c) {
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return byte;
}

std::string invalid_utf8_text(std::string_view s) {
  const std::size_t at = first_invalid_utf8(s);
  if (at == std::string_view::npos) return "valid UTF-8";
  return "not valid UTF-8 (byte " + hex_byte(s[at]) + " at offset " + std::to_string(at) + ")";
}

}  // namespace pmixflow
