#include "pmixflow/model/cluster.hpp"

#include <algorithm>
#include <stdexcept>

namespace pmixflow {

Cluster::Cluster(std::vector<Node> nodes) : nodes_(std::move(nodes)) {
  by_name_.reserve(nodes_.size());
  for (NodeId i = 0; i < nodes_.size(); ++i) {
    if (!by_name_.emplace(nodes_[i].name, i).second)
      throw std::invalid_argument("duplicate node name '" + nodes_[i].name + "'");
    if (nodes_[i].schedulable) schedulable_.push_back(i);
  }
}

std::optional<NodeId> Cluster::schedulable_at(std::size_t k) const {
  if (k >= schedulable_.size()) return std::nullopt;
  return schedulable_[k];
}

std::optional<NodeId> Cluster::find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Cluster::schedulable_names() const {
  std::vector<std::string> out;
  out.reserve(schedulable_.size());
  for (const NodeId n : schedulable_) out.push_back(nodes_[n].name);
  return out;
}

std::uint64_t Cluster::schedulable_slots() const {
  std::uint64_t total = 0;
  for (const auto& n : nodes_)
    if (n.schedulable) total += n.slots;
  return total;
}

std::string generated_node_name(std::uint32_t i) { return (i < 10 ? "n0" : "n") + std::to_string(i); }

}  // namespace pmixflow
