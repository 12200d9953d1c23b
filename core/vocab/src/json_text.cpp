#include "pmixflow/vocab/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow {
namespace {

void unicode_escape(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  out += buf;
}

// Plain ASCII, which needs no escape: copied in runs, a character at a time only otherwise
// (almost every string the log quotes is one such run, appended at once).
bool plain(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
}

// How many of `s`'s first characters are plain, eight at a time: a line's strings are short
// and almost all plain, and a character at a time the scan cost as much as the copy.
std::size_t plain_prefix(std::string_view s) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const auto zero_byte = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    // A byte below 0x20, from 0x80, a quote or a backslash sets its high bit here.
    const std::uint64_t special =
        ((x - kOnes * 0x20) & ~x) | x | zero_byte(x ^ (kOnes * '"')) | zero_byte(x ^ (kOnes * '\\'));
    if (special & kHigh) break;
  }
  while (i < s.size() && plain(s[i])) ++i;
  return i;
}

void escape_into(std::string& out, std::string_view s, std::size_t& i) {
  const char c = s[i];
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        unicode_escape(out, static_cast<unsigned char>(c));
      } else if (const std::size_t n = utf8_sequence(s, i); n > 0) {
        out.append(s.substr(i, n));
        i += n - 1;
      } else {
        // Not UTF-8, which a strict JSON reader refuses: the last line of defence behind the
        // inputs' own checks, the byte is taken as the Latin-1 character of its value.
        unicode_escape(out, static_cast<unsigned char>(c));
      }
  }
}

}  // namespace

void json_quote_into(std::string& out, std::string_view s) {
  std::size_t i = plain_prefix(s);
  if (i == s.size()) {
    // The common case, a plain string: grown once, copied once.
    const std::size_t at = out.size();
    out.resize(at + s.size() + 2);
    char* p = out.data() + at;
    p[0] = '"';
    s.copy(p + 1, s.size());
    p[s.size() + 1] = '"';
    return;
  }
  out += '"';
  out.append(s.data(), i);
  while (i < s.size()) {
    std::size_t run = i;
    while (run < s.size() && plain(s[run])) ++run;
    out.append(s.data() + i, run - i);
    if (run == s.size()) break;
    i = run;
    escape_into(out, s, i);
    ++i;
  }
  out += '"';
}

std::string json_quote(std::string_view s) {
  std::string out;
  json_quote_into(out, s);
  return out;
}

void json_number_into(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

std::string json_number(double v) {
  std::string out;
  json_number_into(out, v);
  return out;
}

}  // namespace pmixflow
