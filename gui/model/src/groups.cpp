#include "groups.hpp"

#include <string_view>
#include <unordered_map>

namespace pmixflow::view {

namespace {

// "rack2-n07" -> "rack2-n"; a name with no number is its own prefix.
std::string_view prefix_of(std::string_view name) {
  auto end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  return end == 0 ? name : name.substr(0, end);
}

}  // namespace

std::vector<Group> group_nodes(std::vector<NodeRecord>& nodes) {
  std::vector<Group> groups;
  std::unordered_map<std::string_view, std::uint32_t> by_prefix;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    const auto prefix = prefix_of(nodes[i].name);
    auto [it, fresh] = by_prefix.try_emplace(prefix, static_cast<std::uint32_t>(groups.size()));
    if (fresh) groups.push_back(Group{std::string(prefix), {}});
    groups[it->second].nodes.push_back(i);
    nodes[i].group = it->second;
  }
  return groups;
}

}  // namespace pmixflow::view
