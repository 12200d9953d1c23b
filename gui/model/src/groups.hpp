// Internal: how the machine pane groups nodes. The log names nodes as the platform does, and a
// platform names a cluster's (or a cabinet's) nodes alike but for a number; nodes are grouped by
// their name without its last number, in the machine's order.
#pragma once

#include <vector>

#include "pmixflow/view/records.hpp"

namespace pmixflow::view {

// Sets each node's group.
std::vector<Group> group_nodes(std::vector<NodeRecord>& nodes);

}  // namespace pmixflow::view
