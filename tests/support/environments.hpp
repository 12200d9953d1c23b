// The environments the conformance tests run their scenarios in, each test's name suffixed with
// it. These tests check the flow message by message in the simulator's log; the emulator runs
// every one of their scenarios too, and must come to the same outcomes, in
// tests/emul_run/same_outcome_test.cpp (its timing is the real machine's, not a virtual clock's).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pmixflow::test {

struct Environment {
  std::string name;  // the `pmixflow` sub-command that runs a scenario there, and the test's suffix
};

inline void PrintTo(const Environment& env, std::ostream* os) { *os << env.name; }

inline std::vector<Environment> environments() { return {Environment{"sim"}}; }

// `pmixflow ENV --scenario FILE --out DIR --quiet EXTRA...`
inline std::vector<std::string> scenario_command(const Environment& env, const std::string& scenario,
                                                 const std::filesystem::path& out,
                                                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{env.name, "--scenario", scenario, "--out", out.string(), "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace pmixflow::test

// Runs the TEST_Ps of `Suite` (a TestWithParam<Environment>) once per environment, as
// Environments/Suite.Name/sim and so on. Once per suite, in one of the files holding its tests.
#define PMIXFLOW_INSTANTIATE_ENVIRONMENTS(Suite)                                                       \
  INSTANTIATE_TEST_SUITE_P(Environments, Suite, ::testing::ValuesIn(::pmixflow::test::environments()), \
                           [](const auto& info) { return info.param.name; })

// A suite of scenario tests in one file: `PMIXFLOW_SCENARIO_SUITE(Activate, Base)` declares the
// fixture Activate (derived from Base, itself a TestWithParam<Environment>) and runs its TEST_Ps
// in every environment. A suite whose tests span files declares its fixture in a shared header
// and uses PMIXFLOW_INSTANTIATE_ENVIRONMENTS in one of them.
#define PMIXFLOW_SCENARIO_SUITE(Suite, Base) \
  class Suite : public Base {};              \
  PMIXFLOW_INSTANTIATE_ENVIRONMENTS(Suite)
