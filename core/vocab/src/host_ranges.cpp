#include "pmixflow/vocab/host_ranges.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow {
namespace {

struct Split {
  std::string_view prefix;
  std::string_view digits;  // empty: the name does not end in a number
};

Split split(std::string_view name) {
  std::size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  return {name.substr(0, i), name.substr(i)};
}

}  // namespace

std::string compress_host_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size();) {
    if (names[i].find_first_of(",[]") != std::string::npos)
      throw std::invalid_argument("host name '" + names[i] + "' cannot be written in a host range");
    const Split first = split(names[i]);
    const auto start = parse_whole<unsigned long long>(first.digits);
    std::size_t j = i + 1;
    if (start) {
      while (j < names.size()) {
        const Split next = split(names[j]);
        const auto n = parse_whole<unsigned long long>(next.digits);
        if (next.prefix != first.prefix || next.digits.size() != first.digits.size() || !n || *n != *start + (j - i))
          break;
        ++j;
      }
    }
    if (!out.empty()) out += ',';
    if (j - i == 1)
      out += names[i];
    else
      out += std::string(first.prefix) + "[" + std::string(first.digits) + "-" +
             std::string(split(names[j - 1]).digits) + "]";
    i = j;
  }
  return out;
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      const auto na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
      const auto ta = na.substr(std::min(na.find_first_not_of('0'), na.size()));
      const auto tb = nb.substr(std::min(nb.find_first_not_of('0'), nb.size()));
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
      i = i2;
      j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace pmixflow
