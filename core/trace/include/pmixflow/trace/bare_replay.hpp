// A trace decided by a policy with no flow at all: submissions and ends in time order, one
// decision pass per instant. It is the yardstick of the flow's fidelity (the same policy
// through every message must come out the same) and the floor the trace benchmark measures.
#pragma once

#include <cstdint>
#include <vector>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/trace/swf.hpp"

namespace pmixflow {

// Every job of `trace` on `procs` interchangeable processors; at equal times ends come before
// submissions. Job outcomes in trace order, times relative to the first submission.
JobOutcomes bare_replay(const SwfTrace& trace, Policy& policy, std::uint64_t procs);

}  // namespace pmixflow
