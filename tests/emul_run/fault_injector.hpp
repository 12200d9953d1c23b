// The emulation fault harness's hand (fault_harness_test.cpp): signals sent from outside to the
// processes of a running emulation - a random party (controller, scheduler, a daemon, a
// requestor), a random signal (SIGKILL or SIGTERM a quarter of the time each, else SIGSTOP then
// SIGCONT after a pause of up to 2 s), at random moments of its run - each recorded with when it
// was sent on the run's own clock, so that what the emulation did about it can be judged from
// its log afterwards (fault_verdict.hpp).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "emul_run.hpp"

namespace pmixflow::test {

enum class Blow { Kill, Term, StopCont };

// One signal sent (or tried: the party may have gone between finding it and signalling it).
struct Action {
  Blow blow = Blow::Kill;
  std::string party;
  int signal = 0;          // SIGKILL, SIGTERM or SIGSTOP
  bool delivered = false;  // kill(2) found the process
  bool alone = true;       // the only process of that name: no predecessor or successor beside it
  // When it was sent, in wall seconds since the run's clock started: between these two (the
  // later one widened by how well the harness knows when the clock started).
  double from_s = 0;
  double to_s = 0;
  double paused_s = 0;  // SIGSTOP to SIGCONT, wall seconds
  std::string text() const;
};

// The processes of a run that are parties (pmixflow-party --as NAME), by name.
std::map<std::string, std::vector<pid_t>> parties_of(const EmulRun& run);

class FaultInjector {
 public:
  FaultInjector(EmulRun& run, std::uint64_t seed) : run_(run), rng_(seed ^ 0x9e3779b97f4a7c15ULL) {}

  // Waits for the run's clock to start, then sends `blows` (1 to 3, from the seed) at moments
  // within `window_s` wall seconds of it; stops early when the run has ended. False when the
  // clock never started (the run ended or `limit` passed first).
  bool strike(double window_s, std::chrono::seconds limit);

  const std::vector<Action>& actions() const { return actions_; }

 private:
  using Clock = std::chrono::steady_clock;
  bool wait_for_clock(std::chrono::seconds limit);
  void blow();
  double since_start() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  double between(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  bool running() { return !run_.wait(std::chrono::seconds(0)).has_value(); }

  EmulRun& run_;
  std::mt19937_64 rng_;
  Clock::time_point started_;
  double slack_s_ = 0;
  std::vector<Action> actions_;
};

}  // namespace pmixflow::test
