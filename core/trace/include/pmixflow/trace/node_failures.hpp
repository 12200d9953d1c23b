// Random node failures for a trace replay (--node-mtbf, --node-mttr): every compute node fails
// and is repaired in turn, its time up drawn from an exponential of mean MTBF and its time down
// from one of mean MTTR, as reliability studies model a repairable node (an alternating renewal
// process: failures a Poisson process while the node is up). Without an MTTR a node that fails
// stays down. The draws are the run's --seed, through generators of their own, so that turning
// failures on changes none of the workload's other random choices.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/trace/swf.hpp"

namespace pmixflow {

struct NodeFailureModel {
  double mtbf = 0;             // mean seconds a node is up between a start or repair and its next failure
  std::optional<double> mttr;  // mean seconds a repair takes; none: a failed node never returns
};

// The instants failures may happen in: they keep a run going until the last one (and its
// repair), so the span must end where the workload does. It starts at the trace's first
// submission (`time_origin`: the machine is up by then) and ends at its last submission plus
// its longest requested time: the end of the trace on a machine that would start every job as
// it is submitted. Failures past it would fall on a machine draining a queue the trace never
// described, or on an idle one, and only lengthen the run.
struct FailureSpan {
  double from = 0;
  double until = 0;
};
FailureSpan failure_span(const SwfTrace& trace, double time_origin);

// NodeDies (and, with an MTTR, its NodeReturns) for each of `nodes`, failures within `span`, a
// repair whenever it comes; in time order, ties by node. Each node draws from a generator of
// its own, seeded from `seed` and the node, so that a node fails alike on a larger machine.
std::vector<FaultAt> draw_node_failures(const NodeFailureModel& model, std::uint64_t seed,
                                        const std::vector<NodeId>& nodes, FailureSpan span);

}  // namespace pmixflow
