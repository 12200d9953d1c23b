#include "pmixflow/vocab/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow {
namespace {

void unicode_escape(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  out += buf;
}

}  // namespace

void json_quote_into(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
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
        } else if (static_cast<unsigned char>(c) < 0x80) {
          out += c;
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
