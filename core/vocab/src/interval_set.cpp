#include "pmixflow/vocab/interval_set.hpp"

#include <algorithm>
#include <charconv>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

std::string interval_set(std::vector<std::uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

namespace {

std::uint32_t id_of(std::string_view text, std::string_view set) {
  std::uint32_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw InputError("", 0, "", "not an interval set of resource ids: \"" + std::string(set) + "\"");
  return v;
}

}  // namespace

std::uint64_t interval_set_size(std::string_view set) {
  std::uint64_t n = 0;
  std::size_t pos = 0;
  while (pos < set.size()) {
    const std::size_t end = std::min(set.find(' ', pos), set.size());
    const std::string_view part = set.substr(pos, end - pos);
    const std::size_t dash = part.find('-');
    const std::uint32_t first = id_of(part.substr(0, dash), set);
    const std::uint32_t last = dash == std::string_view::npos ? first : id_of(part.substr(dash + 1), set);
    if (last < first) throw InputError("", 0, "", "not an interval set of resource ids: \"" + std::string(set) + "\"");
    n += std::uint64_t{last} - first + 1;
    pos = end + 1;
  }
  return n;
}

}  // namespace pmixflow
