// How far a long run is, on a terminal: a bar, the message rate and the time left, drawn by
// an actor of its own on the simulated clock; nothing anywhere else.
#pragma once

#include <chrono>

#include "pmixflow/sim/world.hpp"

namespace simgrid::s4u {
class Host;
}

namespace pmixflow::sim {

class Progress {
 public:
  // Shows progress towards simulated time `horizon` when stderr is a terminal and not `quiet`.
  Progress(World& world, simgrid::s4u::Host* host, double horizon, bool quiet);
  ~Progress();  // clears the bar
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // Wall-clock seconds since it was made.
  double wall() const;

 private:
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

}  // namespace pmixflow::sim
