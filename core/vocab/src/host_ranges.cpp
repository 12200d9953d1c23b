#include "pmixflow/vocab/host_ranges.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
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

// The digits Slurm writes for `n` in a range whose first bound has `width` digits.
std::string padded(unsigned long long n, std::size_t width) {
  std::string s = std::to_string(n);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

// A name that ends in a number a range can hold.
bool numbered(std::string_view name) { return parse_whole<unsigned long long>(split(name).digits).has_value(); }

// The names from `from` on that continue the run it starts: the same prefix, the next number,
// written as a range whose first bound is `from`'s would write it. So n99 continues into n100
// (as n[01-100] reads back), but n9 does not into n010 (n[9-10] would read back n10).
std::size_t run_end(const std::vector<std::string>& names, std::size_t from) {
  const Split first = split(names[from]);
  const auto start = parse_whole<unsigned long long>(first.digits);
  std::size_t j = from + 1;
  if (!start) return j;
  for (; j < names.size(); ++j) {
    const auto step = j - from;
    if (*start > ULLONG_MAX - step) break;
    const Split next = split(names[j]);
    if (next.prefix != first.prefix || next.digits != padded(*start + step, first.digits.size())) break;
  }
  return j;
}

}  // namespace

std::string compress_host_names(const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (name.find_first_of(",[]") != std::string::npos)
      throw std::invalid_argument("host name '" + name + "' cannot be written in a host range");
  // Runs next to each other that share a prefix go in one bracket, as Slurm writes them:
  // n01,n02,n100 is n[01-02,100].
  std::string out;
  for (std::size_t i = 0; i < names.size();) {
    const Split first = split(names[i]);
    std::vector<std::string> ranges;
    std::size_t j = i;
    do {
      const std::size_t end = run_end(names, j);
      const std::string from(split(names[j]).digits);
      ranges.push_back(end - j == 1 ? from : from + "-" + std::string(split(names[end - 1]).digits));
      j = end;
    } while (numbered(names[i]) && j < names.size() && numbered(names[j]) && split(names[j]).prefix == first.prefix);
    if (!out.empty()) out += ',';
    if (j - i == 1) {
      out += names[i];
    } else {
      out += std::string(first.prefix) + '[';
      for (std::size_t r = 0; r < ranges.size(); ++r) out += (r == 0 ? "" : ",") + ranges[r];
      out += ']';
    }
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
