// What an app's processes do, as a scenario or a trace describes it where no real program
// says it: how long they run, how they exit, whether they can start at all. The description
// travels in the app's environment (pmix_app_t's env), as PMIx carries any app's, so it
// reaches whichever daemon runs the app - in the simulator or, across PMIx, in the emulator.
//
// `sleep N` describes itself: it runs N seconds. Anything else runs PMIXFLOW_RUNTIME seconds.
// With PMIXFLOW_TICK, the processes end on the run clock's ticks: at the last whole multiple
// of the tick at or before their start plus their run time. A trace's clock ticks in whole
// seconds, and the flow's milliseconds of latency would otherwise add up along every chain of
// jobs each started by the end of the one before, moving ends that the trace puts in the same
// second apart (see docs/flow.md, "Scheduling passes").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

inline constexpr std::string_view kRuntimeVar = "PMIXFLOW_RUNTIME";     // seconds, a decimal number
inline constexpr std::string_view kExitCodeVar = "PMIXFLOW_EXIT_CODE";  // an integer; 0 unless given
// "1": the executable cannot start; "n02,n05": it cannot start on those nodes (a launch that
// fails on some nodes only).
inline constexpr std::string_view kFailLaunchVar = "PMIXFLOW_FAIL_LAUNCH";
inline constexpr std::string_view kTickVar = "PMIXFLOW_TICK";               // seconds, a decimal number > 0
inline constexpr std::string_view kExitSignalVar = "PMIXFLOW_EXIT_SIGNAL";  // a signal that ends a process

struct AppBehaviour {
  double runtime_s = 0;
  int exit_code = 0;
  bool fail_launch = false;
  double tick_s = 0;    // 0: the processes end when their run time is up
  int exit_signal = 0;  // the processes end killed by this signal instead of exiting (0: they exit)
  // With fail_launch: the nodes where the executable cannot start (empty: everywhere).
  std::vector<std::string> fail_launch_on{};
};

// Whether `signal` (Linux numbering, as proto's kSig* constants) ends a process by its default
// action: 1..64 but for those that are ignored (SIGCHLD, SIGURG, SIGWINCH), continue (SIGCONT)
// or stop (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) by default. Only these can describe how an app
// dies in both environments: a real process raising any other would not die of it.
constexpr bool ends_a_process(int signal) {
  constexpr int kNotEnding[] = {17, 18, 19, 20, 21, 22, 23, 28};
  if (signal < 1 || signal > 64) return false;
  for (int s : kNotEnding)
    if (s == signal) return false;
  return true;
}

// "n02,n05" or "n[02,05]" as names (Slurm ranges expanded), empty ones left out.
std::vector<std::string> split_names(std::string_view list);

// Whether the app's executable cannot start on `node` (a node name).
bool launch_fails_on(const AppBehaviour& b, std::string_view node);

// When processes that start at `start` and behave as `b` end by themselves.
double end_time(const AppBehaviour& b, double start);

// Read from the app: `sleep N`'s argument first, then the environment. Values that do not
// parse count as absent (a scenario is checked when it is read; see describe()).
AppBehaviour app_behaviour(const App& app);

// Writes `behaviour` into the app's environment, replacing any description already there;
// the run time unless `sleep N` says it, the rest only where it differs from the defaults.
void describe(App& app, const AppBehaviour& behaviour);

// The value of NAME in the app's environment ("NAME=value"), the last one given winning.
const std::string* env_value(const App& app, std::string_view name);

}  // namespace pmixflow
