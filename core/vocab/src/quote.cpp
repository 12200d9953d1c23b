#include "pmixflow/vocab/quote.hpp"

#include <cstdio>

#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow {

std::string cut_value(std::string_view value) {
  std::string out;
  std::size_t chars = 0, i = 0;
  while (i < value.size() && chars < kQuotedChars) {
    const auto c = static_cast<unsigned char>(value[i]);
    const std::size_t n = utf8_sequence(value, i);
    if (n == 0 || c < 0x20 || c == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(c));
      out += escaped;
      ++i;
    } else {
      out.append(value.substr(i, n));
      i += n;
    }
    ++chars;
  }
  if (i < value.size()) out += "…(" + std::to_string(value.size()) + " bytes)";
  return out;
}

std::string quote_value(std::string_view value) { return "'" + cut_value(value) + "'"; }

}  // namespace pmixflow
