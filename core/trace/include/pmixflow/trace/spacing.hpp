// The tightest room a deployed scenario leaves between two things it plans: the least gap
// between two distinct planned instants (calls, replayed submissions, timed faults, parties
// starting and stopping), and the least margin a replayed job's estimate leaves beyond its run
// time. An emulation whose parties act later than that (emul/lateness.hpp) may take two steps in
// another order than the simulator, or end a job at its limit: its outcomes are no longer sure
// to be the simulator's.
#pragma once

#include <optional>
#include <string>

#include "pmixflow/trace/deployment.hpp"

namespace pmixflow {

struct Spacing {
  double seconds = 0;
  std::string what;  // where, said for a person: "two planned instants 1 s apart (at 30 s and 31 s)"
};

// None when the scenario plans fewer than two instants and no job with a margin.
std::optional<Spacing> tightest_spacing(const Deployment& d);

}  // namespace pmixflow
