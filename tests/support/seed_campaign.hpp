// A seeded campaign inside one test, as the whole-run fuzzer (tests/sim/fault_property_test.cpp)
// and the emulation fault harness (tests/emul_run/fault_harness_test.cpp) run theirs: the
// seeds and their count from the environment, each seed's run judged, a finding printed so that
// it can be replayed, and the closing line scripts/lib/campaign.sh reads.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace pmixflow::test {

struct SeedCampaign {
  std::string prefix;     // what each line the scripts read starts with ("fuzz-runs")
  const char* first_env;  // the variable holding the first seed (default 1)
  const char* count_env;  // the variable holding how many seeds
  std::uint64_t count;    // how many when it is unset: the test command's short pass
  std::string replay;     // the command that replays one seed, after its variables
};

inline std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Runs `one(seed)` (true when the seed held) for every seed of the campaign.
template <class RunSeed>
void run_campaign(const SeedCampaign& c, RunSeed one) {
  const std::uint64_t first = env_number(c.first_env, 1);
  const std::uint64_t seeds = env_number(c.count_env, c.count);
  std::size_t failed = 0;
  for (std::uint64_t seed = first; seed < first + seeds; ++seed) failed += !one(seed);
  std::cout << c.prefix << ": " << seeds << " seeds from " << first << ", " << failed << " failed" << std::endl;
}

// A seed that did not hold: its replay, its scenario, and `detail` (what was done, what broke,
// the scenario's text), as one failure of the test.
inline void report_finding(const SeedCampaign& c, std::uint64_t seed, int exit_code,
                           const std::filesystem::path& scenario, const std::string& detail) {
  ADD_FAILURE() << c.prefix << ": FINDING seed " << seed << " (exit " << exit_code << ")\n"
                << c.prefix << ":   replay: " << c.first_env << "=" << seed << " " << c.count_env << "=1 " << c.replay
                << "\n"
                << c.prefix << ":   scenario: " << scenario.string() << "\n"
                << detail;
}

}  // namespace pmixflow::test
