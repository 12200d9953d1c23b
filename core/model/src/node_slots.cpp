#include "pmixflow/model/node_slots.hpp"

#include "pmixflow/vocab/hostlist.hpp"

namespace pmixflow {

std::optional<SlotList> parse_node_slots(std::string_view list, const Cluster& cluster) {
  SlotList out;
  for (const auto& h : parse_host_list(list, HostUse::NodeList, "PMIX_ALLOC_NODE_LIST").hosts) {
    const auto n = cluster.find(h.name);
    if (!n || !cluster.node(*n).schedulable) return std::nullopt;
    out.emplace_back(*n, h.slots.value_or(cluster.node(*n).slots));
  }
  return out;
}

std::string format_node_slots(const SlotList& slots, const Cluster& cluster) {
  std::vector<HostEntry> hosts;
  hosts.reserve(slots.size());
  for (const auto& [n, k] : slots) hosts.push_back(HostEntry{cluster.node(n).name, k});
  return format_host_list(hosts);
}

}  // namespace pmixflow
