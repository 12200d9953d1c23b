// Nodes with slot counts, as a session holds them and PMIX_ALLOC_NODE_LIST writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmixflow/model/cluster.hpp"

namespace pmixflow {

// Node by node, in order: (node, slots).
using SlotList = std::vector<std::pair<NodeId, std::uint32_t>>;

// `n01:4,n02` as nodes of `cluster` with their slots (all of a node's where none are given).
// Nothing when it names a node the machine does not have or cannot schedule; InputError when
// it is no node list at all.
std::optional<SlotList> parse_node_slots(std::string_view list, const Cluster& cluster);

// The nodes a list names, each once, in the order first named, slot counts ignored, whether
// or not they can be scheduled (a release may name the controller's own). Nothing when it names
// a node the machine does not have; InputError when it is no node list at all.
std::optional<std::vector<NodeId>> parse_node_names(std::string_view list, const Cluster& cluster);

// Adds `more` to `into`, a node already there gaining the slots; returns the nodes that were
// not there (a session withholds those from the pool).
std::vector<NodeId> merge_slots(SlotList& into, const SlotList& more);

// The other way: `n01:4,n02:8`.
std::string format_node_slots(const SlotList& slots, const Cluster& cluster);

}  // namespace pmixflow
