// The machine as the flow sees it: named nodes with a slot count each. Node 0 is the head
// node, where the controller runs; it is always in the DVM and never scheduled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pmixflow/vocab/string_hash.hpp"

namespace pmixflow {

using NodeId = std::uint32_t;

struct Node {
  std::string name;
  std::uint32_t slots = 1;
  bool schedulable = true;  // false for the head node and other service nodes
};

class Cluster {
 public:
  Cluster() = default;
  explicit Cluster(std::vector<Node> nodes);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(NodeId id) const { return nodes_.at(id); }
  std::size_t size() const { return nodes_.size(); }
  std::optional<NodeId> find(std::string_view name) const;
  // Names of the schedulable nodes, in node order: what "the allocation" holds.
  std::vector<std::string> schedulable_names() const;
  // The k-th schedulable node (from zero, in node order: `+nK` of a host list), if there is one.
  std::optional<NodeId> schedulable_at(std::size_t k) const;
  std::size_t schedulable_count() const { return schedulable_.size(); }
  std::uint64_t schedulable_slots() const;
  static constexpr NodeId kHead = 0;

 private:
  std::vector<Node> nodes_;
  std::unordered_map<std::string, NodeId, StringHash, std::equal_to<>> by_name_;
  std::vector<NodeId> schedulable_;
};

// The name of the i-th (from 1) generated compute node: its number, in at least two digits
// (n01 .. n99, n100, n1024), whatever the machine's size, so that a scenario naming n01 means
// the same node on 8 nodes as on 1,024 (docs/hostlists.md). Sort them with natural_less.
std::string generated_node_name(std::uint32_t i);

}  // namespace pmixflow
