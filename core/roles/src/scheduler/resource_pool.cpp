#include "pmixflow/roles/scheduler/resource_pool.hpp"

#include <algorithm>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

SlotList slot_counts(const SlotRuns& runs) {
  SlotList out;
  for (const auto& r : runs) {
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == r.node; });
    if (same != out.end())
      same->second += r.count;
    else
      out.emplace_back(r.node, r.count);
  }
  return out;
}

ResourcePool::ResourcePool(const Cluster& cluster, bool exclusive_nodes)
    : cluster_(cluster),
      exclusive_nodes_(exclusive_nodes),
      free_slots_(cluster.size(), 0),
      used_(cluster.size()),
      first_id_(cluster.size(), 0),
      down_(cluster.size(), false) {
  // Resource ids: the compute nodes' slots, node by node in the machine's order.
  std::uint32_t next_id = 0;
  for (NodeId n = 0; n < cluster_.size(); ++n) {
    if (!cluster_.node(n).schedulable) continue;
    free_slots_[n] = cluster_.node(n).slots;
    used_[n].assign(cluster_.node(n).slots, false);
    first_id_[n] = next_id;
    next_id += cluster_.node(n).slots;
  }
  total_ = free_total_ = whole_free_slots_ = cluster_.schedulable_slots();
  for (const auto& n : cluster_.nodes()) nodes_ += n.schedulable ? 1 : 0;
  whole_free_nodes_ = nodes_;
}

std::optional<Need> ResourcePool::need_of(const InfoList& info) const {
  Need need;
  if (const auto* list = info.get<std::string>(key::ALLOC_NODE_LIST)) {
    std::optional<SlotList> nodes;
    try {
      nodes = parse_node_slots(*list, cluster_);
    } catch (const InputError&) {
      return std::nullopt;
    }
    if (!nodes || nodes->empty()) return std::nullopt;
    for (const auto& [n, k] : *nodes) {
      if (!cluster_.node(n).schedulable) return std::nullopt;
      if (std::find(need.named.begin(), need.named.end(), n) != need.named.end()) continue;
      need.named.push_back(n);
      need.cpus += cluster_.node(n).slots;
    }
    need.nodes = static_cast<std::uint32_t>(need.named.size());
  } else if (auto n = info.get_uint(key::ALLOC_NUM_NODES)) {
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
  if (!need.named.empty())
    return std::all_of(need.named.begin(), need.named.end(),
                       [this](NodeId n) { return !down_[n] && free_slots_[n] == cluster_.node(n).slots; });
  if (need.nodes > 0) return whole_free_nodes_ >= need.nodes;
  if (exclusive_nodes_) return whole_free_slots_ >= need.cpus;
  return need.cpus <= free_total_;
}

bool ResourcePool::could_hold(const Need& need) const {
  for (NodeId n : need.named)
    if (down_[n]) return false;
  return need.cpus <= total_ && need.nodes <= nodes_;
}

void ResourcePool::use(NodeId n, std::uint32_t slots) {
  if (free_slots_[n] == cluster_.node(n).slots) {
    --whole_free_nodes_;
    whole_free_slots_ -= free_slots_[n];
  }
  free_slots_[n] -= slots;
  free_total_ -= slots;
}

void ResourcePool::take_on(NodeId n, std::uint32_t slots, SlotRuns& out) {
  use(n, slots);
  auto& used = used_[n];
  for (std::uint32_t i = 0; i < used.size() && slots > 0; ++i) {
    if (used[i]) continue;
    used[i] = true;
    --slots;
    if (!out.empty() && out.back().node == n && out.back().first + out.back().count == i)
      ++out.back().count;
    else
      out.push_back(SlotRun{n, i, 1});
  }
}

SlotRuns ResourcePool::take(const Need& need) {
  SlotRuns out;
  for (NodeId n : need.named) take_on(n, free_slots_[n], out);
  if (!need.named.empty()) return out;
  const bool whole_nodes = need.nodes > 0 || exclusive_nodes_;
  std::uint64_t left = whole_nodes && need.nodes > 0 ? need.nodes : need.cpus;
  for (NodeId n = 0; n < cluster_.size() && left > 0; ++n) {
    if (!cluster_.node(n).schedulable || free_slots_[n] == 0) continue;
    if (whole_nodes) {
      if (free_slots_[n] != cluster_.node(n).slots) continue;
      const std::uint32_t slots = free_slots_[n];
      take_on(n, slots, out);
      left -= need.nodes > 0 ? 1 : std::min<std::uint64_t>(left, slots);
    } else {
      const auto slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, free_slots_[n]));
      take_on(n, slots, out);
      left -= slots;
    }
  }
  return out;
}

void ResourcePool::give_back(const SlotRuns& slots) {
  for (const auto& r : slots) {
    // A node that is down keeps track of its slots in use, for when it comes back.
    for (std::uint32_t i = r.first; i < r.first + r.count; ++i) used_[r.node][i] = false;
    if (down_[r.node]) continue;
    free_slots_[r.node] += r.count;
    free_total_ += r.count;
    if (free_slots_[r.node] == cluster_.node(r.node).slots) {
      ++whole_free_nodes_;
      whole_free_slots_ += free_slots_[r.node];
    }
  }
}

void ResourcePool::claim(const SlotRuns& slots) {
  for (const auto& r : slots) {
    std::uint32_t fresh = 0;
    for (std::uint32_t i = r.first; i < r.first + r.count; ++i)
      if (!used_[r.node][i]) {
        used_[r.node][i] = true;
        ++fresh;
      }
    if (!down_[r.node]) use(r.node, fresh);
  }
}

bool ResourcePool::node_up(NodeId n) {
  if (!down_[n]) return false;
  down_[n] = false;
  const auto& used = used_[n];
  free_slots_[n] = static_cast<std::uint32_t>(std::count(used.begin(), used.end(), false));
  free_total_ += free_slots_[n];
  if (!cluster_.node(n).schedulable) return true;
  total_ += cluster_.node(n).slots;
  ++nodes_;
  if (free_slots_[n] == cluster_.node(n).slots) {
    ++whole_free_nodes_;
    whole_free_slots_ += free_slots_[n];
  }
  return true;
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

std::string ResourcePool::node_list(const SlotRuns& slots) const {
  return format_node_slots(slot_counts(slots), cluster_);
}

std::string ResourcePool::resources(const SlotRuns& slots) const {
  // Each run is a range of consecutive ids already: sorted and joined, never expanded.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // first, last
  for (const auto& r : slots)
    if (r.count > 0) ranges.emplace_back(first_id_[r.node] + r.first, first_id_[r.node] + r.first + r.count - 1);
  std::sort(ranges.begin(), ranges.end());
  std::string out;
  for (std::size_t i = 0; i < ranges.size();) {
    auto [first, last] = ranges[i];
    for (++i; i < ranges.size() && ranges[i].first <= last + 1; ++i) last = std::max(last, ranges[i].second);
    if (!out.empty()) out += ' ';
    out += std::to_string(first);
    if (last > first) out += "-" + std::to_string(last);
  }
  return out;
}

}  // namespace pmixflow
