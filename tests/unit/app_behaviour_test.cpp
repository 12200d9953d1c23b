// What an app's processes do, read from the app as PMIx carries it: `sleep N`, or the
// description a scenario wrote into the app's environment.
#include "pmixflow/model/app_behaviour.hpp"

#include <gtest/gtest.h>

namespace pmixflow {
namespace {

App app(std::string cmd, std::vector<std::string> argv, std::vector<std::string> env = {}) {
  return App{std::move(cmd), std::move(argv), std::move(env), 1};
}

TEST(AppBehaviour, SleepSaysHowLongItRuns) {
  EXPECT_EQ(app_behaviour(app("sleep", {"10"})).runtime_s, 10.0);
  EXPECT_EQ(app_behaviour(app("sleep", {"0.5"})).runtime_s, 0.5);
  // `sleep N` wins over a description that says otherwise: it is what the process does.
  EXPECT_EQ(app_behaviour(app("sleep", {"10"}, {"PMIXFLOW_RUNTIME=99"})).runtime_s, 10.0);
  EXPECT_EQ(app_behaviour(app("sleep", {"x"}, {"PMIXFLOW_RUNTIME=7"})).runtime_s, 7.0);
}

TEST(AppBehaviour, AnyOtherCommandRunsWhatItsEnvironmentSays) {
  const AppBehaviour b = app_behaviour(app("a.out", {"10"}, {"PMIXFLOW_RUNTIME=99", "PMIXFLOW_EXIT_CODE=3"}));
  EXPECT_EQ(b.runtime_s, 99.0);
  EXPECT_EQ(b.exit_code, 3);
  EXPECT_FALSE(b.fail_launch);
  EXPECT_TRUE(app_behaviour(app("a.out", {}, {"PMIXFLOW_FAIL_LAUNCH=1"})).fail_launch);
  // Nothing said: it runs no time and exits 0. What does not parse counts as not said.
  const AppBehaviour none = app_behaviour(app("a.out", {}, {"PMIXFLOW_RUNTIME=soon", "PMIXFLOW_EXIT_CODE=3x"}));
  EXPECT_EQ(none.runtime_s, 0.0);
  EXPECT_EQ(none.exit_code, 0);
  // Nor does a time that is not finite or past what PMIx carries: such a job would never end.
  for (const char* runtime : {"PMIXFLOW_RUNTIME=inf", "PMIXFLOW_RUNTIME=nan", "PMIXFLOW_RUNTIME=1e300"})
    EXPECT_EQ(app_behaviour(app("a.out", {}, {runtime})).runtime_s, 0.0) << runtime;
  EXPECT_EQ(app_behaviour(app("sleep", {"inf"}, {})).runtime_s, 0.0);
  // The last value given for a name wins, as in a process environment built in order.
  EXPECT_EQ(app_behaviour(app("a.out", {}, {"PMIXFLOW_RUNTIME=1", "PMIXFLOW_RUNTIME=2"})).runtime_s, 2.0);
}

TEST(AppBehaviour, DescribeWritesWhatReadsBackAndKeepsTheUsersVariables) {
  App a = app("a.out", {}, {"OMP_NUM_THREADS=4", "PMIXFLOW_EXIT_CODE=9"});
  describe(a, AppBehaviour{2.25, 0, true});
  EXPECT_EQ(a.env, (std::vector<std::string>{"OMP_NUM_THREADS=4", "PMIXFLOW_RUNTIME=2.25", "PMIXFLOW_FAIL_LAUNCH=1"}));
  const AppBehaviour back = app_behaviour(a);
  EXPECT_EQ(back.runtime_s, 2.25);
  EXPECT_EQ(back.exit_code, 0);
  EXPECT_TRUE(back.fail_launch);
  // A run time with many digits survives the round trip exactly.
  describe(a, AppBehaviour{1.0 / 3.0, -1, false});
  EXPECT_EQ(app_behaviour(a).runtime_s, 1.0 / 3.0);
  EXPECT_EQ(app_behaviour(a).exit_code, -1);
  // `sleep N` needs no run time written.
  App s = app("sleep", {"5"});
  describe(s, AppBehaviour{5, 0, false});
  EXPECT_TRUE(s.env.empty());
}

TEST(AppBehaviour, AnAppMayDieByASignal) {
  const AppBehaviour b = app_behaviour(app("a.out", {}, {"PMIXFLOW_RUNTIME=1", "PMIXFLOW_EXIT_SIGNAL=11"}));
  EXPECT_EQ(b.exit_signal, 11);
  EXPECT_EQ(b.exit_code, 0);
  // What does not parse, or is no signal a process dies of, counts as not said.
  for (const char* bad : {"PMIXFLOW_EXIT_SIGNAL=x", "PMIXFLOW_EXIT_SIGNAL=0", "PMIXFLOW_EXIT_SIGNAL=65",
                          "PMIXFLOW_EXIT_SIGNAL=19", "PMIXFLOW_EXIT_SIGNAL=11x"})
    EXPECT_EQ(app_behaviour(app("a.out", {}, {bad})).exit_signal, 0) << bad;
  // Written only when set, and read back; describe() replaces an earlier one.
  App a = app("a.out", {}, {"PMIXFLOW_EXIT_SIGNAL=6"});
  describe(a, AppBehaviour{.runtime_s = 2, .exit_signal = 9});
  EXPECT_EQ(a.env, (std::vector<std::string>{"PMIXFLOW_RUNTIME=2", "PMIXFLOW_EXIT_SIGNAL=9"}));
  EXPECT_EQ(app_behaviour(a).exit_signal, 9);
  describe(a, AppBehaviour{.runtime_s = 2});
  EXPECT_EQ(a.env, (std::vector<std::string>{"PMIXFLOW_RUNTIME=2"}));
  EXPECT_TRUE(ends_a_process(1) && ends_a_process(9) && ends_a_process(15) && ends_a_process(64));
  EXPECT_FALSE(ends_a_process(0) || ends_a_process(18) || ends_a_process(28) || ends_a_process(65));
}

TEST(AppBehaviour, EnvValueFindsTheWholeName) {
  const App a = app("a.out", {}, {"PMIXFLOW_RUNTIME_X=1", "PMIXFLOW_RUNTIME=4"});
  ASSERT_NE(env_value(a, kRuntimeVar), nullptr);
  EXPECT_EQ(*env_value(a, kRuntimeVar), "PMIXFLOW_RUNTIME=4");
  EXPECT_EQ(env_value(a, "PMIXFLOW"), nullptr);
}

}  // namespace
}  // namespace pmixflow
