#include "groups.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

namespace pmixflow::view {

namespace {

// The name with its last number taken out: "rack2-n07" -> "rack2-n*", "node-12.site.org" ->
// "node-*.site.org" (SimGrid's cluster names: prefix, number, suffix). A name with no number is
// its own group.
std::string group_key(std::string_view name) {
  auto end = name.size();
  while (end > 0 && !(name[end - 1] >= '0' && name[end - 1] <= '9')) --end;
  if (end == 0) return std::string(name);
  auto start = end;
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  return std::string(name.substr(0, start)) + '*' + std::string(name.substr(end));
}

}  // namespace

std::vector<Group> group_nodes(std::vector<NodeRecord>& nodes) {
  std::vector<Group> groups;
  std::unordered_map<std::string, std::uint32_t> by_key;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    auto [it, fresh] = by_key.try_emplace(group_key(nodes[i].name), static_cast<std::uint32_t>(groups.size()));
    if (fresh) groups.push_back(Group{it->first, {}});
    groups[it->second].nodes.push_back(i);
    nodes[i].group = it->second;
  }
  return groups;
}

}  // namespace pmixflow::view
