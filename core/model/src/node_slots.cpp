#include "pmixflow/model/node_slots.hpp"

#include <algorithm>

#include "pmixflow/vocab/hostlist.hpp"

namespace pmixflow {

namespace {

// The nodes a list names, in its order, with the slots it gives them; nothing when one is not
// on the machine.
std::optional<std::vector<std::pair<NodeId, std::optional<std::uint32_t>>>> resolve(std::string_view list,
                                                                                    const Cluster& cluster) {
  std::vector<std::pair<NodeId, std::optional<std::uint32_t>>> out;
  for (const auto& h : parse_host_list(list, HostUse::NodeList, "PMIX_ALLOC_NODE_LIST").hosts) {
    const auto n = cluster.find(h.name);
    if (!n) return std::nullopt;
    out.emplace_back(*n, h.slots);
  }
  return out;
}

}  // namespace

std::optional<SlotList> parse_node_slots(std::string_view list, const Cluster& cluster) {
  const auto named = resolve(list, cluster);
  if (!named) return std::nullopt;
  SlotList out;
  for (const auto& [n, slots] : *named) {
    if (!cluster.node(n).schedulable) return std::nullopt;
    out.emplace_back(n, slots.value_or(cluster.node(n).slots));
  }
  return out;
}

std::optional<std::vector<NodeId>> parse_node_names(std::string_view list, const Cluster& cluster) {
  const auto named = resolve(list, cluster);
  if (!named) return std::nullopt;
  std::vector<NodeId> out;
  for (const auto& entry : *named)
    if (std::find(out.begin(), out.end(), entry.first) == out.end()) out.push_back(entry.first);
  return out;
}

std::vector<NodeId> merge_slots(SlotList& into, const SlotList& more) {
  std::vector<NodeId> added;
  for (const auto& [n, k] : more) {
    auto same = std::find_if(into.begin(), into.end(), [&n = n](const auto& e) { return e.first == n; });
    if (same != into.end()) {
      same->second += k;
    } else {
      into.emplace_back(n, k);
      added.push_back(n);
    }
  }
  return added;
}

std::string format_node_slots(const SlotList& slots, const Cluster& cluster) {
  std::vector<HostEntry> hosts;
  hosts.reserve(slots.size());
  for (const auto& [n, k] : slots) hosts.push_back(HostEntry{cluster.node(n).name, k});
  return format_host_list(hosts);
}

}  // namespace pmixflow
