// The DVM's hosts at start-up: the nodes whose daemons the controller starts before any
// request, as prte's --host / --hostfile name them. A scenario gives them in controller.dvm,
// a replay starts every node's daemon; the command line's --host or --hostfile, when given,
// overrides either (docs/hostlists.md).
#pragma once

#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/trace/run.hpp"
#include "pmixflow/trace/scenario.hpp"

namespace pmixflow {

// The nodes with a daemon at start, in the order named, each once. A slot count (`n01:8`, a
// hostfile's `slots=8`) must be the node's own: pmixflow takes slots from the machine, and a
// count that disagrees is refused rather than ignored. `+e` is refused: it picks the empty nodes
// of a running DVM. Throws InputError naming the option (--host), the hostfile and its line,
// or the scenario's controller.dvm; an unknown node is named with the nearest node of the
// machine and the machine's nodes.
std::vector<NodeId> initial_dvm(const Scenario& sc, const RunInputs& in, const Cluster& cluster);

}  // namespace pmixflow
