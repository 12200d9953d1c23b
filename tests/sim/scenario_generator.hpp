// Random valid scenarios from a seed, for the whole-run fuzzer (fault_property_test.cpp,
// scripts/fuzz-runs.sh): several users calling through every entry point with every
// operation (alloc with each directive, session control with each operation, spawn with and
// without an allocation, the scheduler's own session control), requestors that exit and start
// again, and faults at random times or triggered by what happens. The same seed makes the same
// scenario, so a failing seed can be replayed alone.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace pmixflow::test {

class ScenarioGenerator {
 public:
  explicit ScenarioGenerator(std::uint64_t seed) : rng_(seed) {}
  std::string scenario();

 private:
  double time(double from, double to) { return std::uniform_real_distribution<double>(from, to)(rng_); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::string number(int from, int to) { return std::to_string(from + pick(to - from + 1)); }
  std::string node() { return "n0" + number(1, 8); }
  std::string entry();
  std::string alloc_id() { return "alloc-" + number(1, 6); }
  std::string session() { return chance(0.1) ? "\"all\"" : number(1, 6); }
  void line(double at, const std::string& body);

  std::string header();
  void call(const std::string& who);
  std::string alloc_new();
  std::string alloc_change();
  std::string session_directives();
  std::string spawn();
  void scheduler_session_control();
  void fault();
  void timed_fault(double at);
  void requestor_exit(double at);
  std::string trigger();

  bool controller_failed_ = false;
  std::map<std::string, std::vector<double>> calls_at_;  // each requestor's call times
  std::set<std::string> exited_;
  std::vector<double> scheduler_calls_at_;
  std::vector<double> stalls_at_;                    // timed scheduler_stalls
  std::vector<std::pair<double, double>> detached_;  // scheduler_detach .. scheduler_attach
  std::mt19937_64 rng_;
  std::string lines_;
  std::vector<std::string> requestors_{"a", "b", "c", "d"};
};

}  // namespace pmixflow::test
