#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace pmixflow::sim {

Progress::Progress(World& world, sg4::Host* host, double horizon, bool quiet)
    : start_(std::chrono::steady_clock::now()), shown_(!quiet && horizon > 0 && ::isatty(STDERR_FILENO)) {
  if (!shown_) return;
  const auto start = start_;
  sg4::Actor::create("pmixflow-progress", host, [horizon, start, &world] {
    sg4::Actor::self()->daemonize();
    constexpr int kSteps = 200;
    for (int step = 1; step <= kSteps; ++step) {
      sg4::this_actor::sleep_until(horizon * step / kSteps);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double done = std::min(1.0, sg4::Engine::get_clock() / horizon);
      const int filled = static_cast<int>(done * 30);
      std::fprintf(stderr, "\r  [%.*s%*s] %3.0f%%  %.0f msg/s  ETA %.0f s  ", filled,
                   "==============================", 30 - filled, "", done * 100,
                   static_cast<double>(world.stats().messages) / std::max(wall, 1e-9),
                   done > 0 ? wall * (1 - done) / done : 0.0);
      std::fflush(stderr);
    }
  });
}

Progress::~Progress() {
  if (shown_) std::fprintf(stderr, "\r%*s\r", 79, "");
}

double Progress::wall() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace pmixflow::sim
