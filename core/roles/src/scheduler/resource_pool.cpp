#include "pmixflow/roles/scheduler/resource_pool.hpp"

#include <algorithm>

namespace pmixflow {

ResourcePool::ResourcePool(const Cluster& cluster, bool exclusive_nodes)
    : cluster_(cluster),
      exclusive_nodes_(exclusive_nodes),
      free_slots_(cluster.size(), 0),
      down_(cluster.size(), false) {
  for (NodeId n = 0; n < cluster_.size(); ++n)
    if (cluster_.node(n).schedulable) free_slots_[n] = cluster_.node(n).slots;
  total_ = free_total_ = whole_free_slots_ = cluster_.schedulable_slots();
  for (const auto& n : cluster_.nodes()) nodes_ += n.schedulable ? 1 : 0;
  whole_free_nodes_ = nodes_;
}

std::optional<Need> ResourcePool::need_of(const InfoList& info) const {
  Need need;
  if (auto n = info.get_uint(key::ALLOC_NUM_NODES)) {
    need.nodes = static_cast<std::uint32_t>(*n);
    for (NodeId id = 0; id < cluster_.size() && need.cpus == 0; ++id)
      if (cluster_.node(id).schedulable) need.cpus = std::uint64_t{cluster_.node(id).slots} * need.nodes;
  } else if (auto c = info.get_uint(key::ALLOC_NUM_CPUS)) {
    need.cpus = *c;
  }
  if (need.cpus == 0 && need.nodes == 0) return std::nullopt;
  return need;
}

bool ResourcePool::fits(const Need& need) const {
  if (need.nodes > 0) return whole_free_nodes_ >= need.nodes;
  if (exclusive_nodes_) return whole_free_slots_ >= need.cpus;
  return need.cpus <= free_total_;
}

void ResourcePool::use(NodeId n, std::uint32_t slots) {
  if (free_slots_[n] == cluster_.node(n).slots) {
    --whole_free_nodes_;
    whole_free_slots_ -= free_slots_[n];
  }
  free_slots_[n] -= slots;
  free_total_ -= slots;
}

SlotList ResourcePool::take(const Need& need) {
  SlotList out;
  const bool whole_nodes = need.nodes > 0 || exclusive_nodes_;
  std::uint64_t left = whole_nodes && need.nodes > 0 ? need.nodes : need.cpus;
  for (NodeId n = 0; n < cluster_.size() && left > 0; ++n) {
    if (!cluster_.node(n).schedulable || free_slots_[n] == 0) continue;
    if (whole_nodes) {
      if (free_slots_[n] != cluster_.node(n).slots) continue;
      const std::uint32_t slots = free_slots_[n];
      out.emplace_back(n, slots);
      use(n, slots);
      left -= need.nodes > 0 ? 1 : std::min<std::uint64_t>(left, slots);
    } else {
      const auto slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, free_slots_[n]));
      out.emplace_back(n, slots);
      use(n, slots);
      left -= slots;
    }
  }
  return out;
}

void ResourcePool::give_back(const SlotList& slots) {
  for (const auto& [n, k] : slots) {
    if (down_[n]) continue;
    free_slots_[n] += k;
    free_total_ += k;
    if (free_slots_[n] == cluster_.node(n).slots) {
      ++whole_free_nodes_;
      whole_free_slots_ += free_slots_[n];
    }
  }
}

bool ResourcePool::node_down(NodeId n) {
  if (down_[n]) return false;
  down_[n] = true;
  if (free_slots_[n] == cluster_.node(n).slots && cluster_.node(n).schedulable) {
    --whole_free_nodes_;
    whole_free_slots_ -= free_slots_[n];
  }
  free_total_ -= free_slots_[n];
  if (cluster_.node(n).schedulable) {
    total_ -= cluster_.node(n).slots;
    --nodes_;
  }
  free_slots_[n] = 0;
  return true;
}

std::string ResourcePool::node_list(const SlotList& slots) const { return format_node_slots(slots, cluster_); }

}  // namespace pmixflow
