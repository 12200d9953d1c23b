// The emulation's clock. Every party reads the same steady clock of this machine from the
// same epoch, so their events order across processes; scenario times run `speed` times
// faster than the wall (a 30 s job takes 3 s of wall time at speed 10), and the event log
// is written in scenario seconds, as the simulator's is.
#pragma once

#include <chrono>
#include <cstdint>

namespace pmixflow::emul {

struct RunClock {
  std::chrono::steady_clock::time_point epoch{};
  double speed = 1.0;

  // Scenario seconds since the epoch.
  double now() const { return seconds_since(epoch) * speed; }
  // The wall time a scenario delay takes.
  std::chrono::steady_clock::duration wall(double scenario_seconds) const {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(scenario_seconds > 0 ? scenario_seconds / speed : 0.0));
  }
  std::chrono::steady_clock::time_point wall_at(double scenario_time) const { return epoch + wall(scenario_time); }

  // The epoch as nanoseconds of the steady clock, to hand to another process on this machine.
  std::int64_t epoch_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(epoch.time_since_epoch()).count();
  }
  static RunClock from_epoch_ns(std::int64_t ns, double speed) {
    return RunClock{std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns)), speed};
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
};

}  // namespace pmixflow::emul
