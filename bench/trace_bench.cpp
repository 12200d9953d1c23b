// A production trace replayed with one policy through the whole flow, against two floors
// measured in the same run: SimGrid moving the same number of messages between two actors
// (the least any design that carries every hop through SimGrid can cost), and the same
// policy deciding the same trace in a bare event loop with no flow at all.
//   bench_trace [TRACE.swf.gz] [POLICY]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/trace/bare_replay.hpp"
#include "pmixflow/trace/swf.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double pingpong_rate(std::uint64_t messages, const std::filesystem::path& dir) {
  const std::string out = (dir / "pingpong.txt").string();
  if (std::system((std::string(PINGPONG_BIN) + " " + std::to_string(messages) + " > " + out).c_str()) != 0) return 0;
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  return std::stod(line.substr(line.find("rate=") + 5));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string trace_path = argc > 1 ? argv[1] : PMIXFLOW_SHARED_DIR "/data/traces/KTH-SP2-1996-2.1-cln.swf.gz";
  const std::string policy_name = argc > 2 ? argv[2] : "easy";
  if (!std::filesystem::exists(trace_path)) {
    std::cerr << "bench: " << trace_path << " not found (the shared data set is not beside this clone)\n";
    return 2;
  }
  const auto trace = pmixflow::read_swf(trace_path);
  const std::uint64_t procs = static_cast<std::uint64_t>(trace.max_procs.value_or(0));
  const auto dir = std::filesystem::temp_directory_path() / ("pmixflow-bench-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  const auto loop_start = Clock::now();
  auto policy = pmixflow::make_policy(policy_name);
  const auto loop_metrics = pmixflow::compute_metrics(pmixflow::bare_replay(trace, *policy, procs), procs);
  const double loop_wall = std::chrono::duration<double>(Clock::now() - loop_start).count();

  const std::string cmd = std::string(PMIXFLOW_BIN) + " sim --quiet --no-events --trace " + trace_path + " --policy " +
                          policy_name + " --out " + (dir / "flow").string();
  if (std::system(cmd.c_str()) != 0) {
    std::cerr << "bench: the replay failed: " << cmd << "\n";
    return 1;
  }
  const auto summary = nlohmann::json::parse(std::ifstream(dir / "flow" / "summary.json"));
  const double wall = summary["wall_s"], messages = summary["messages"], jobs = summary["jobs"];
  const double pp = pingpong_rate(static_cast<std::uint64_t>(messages), dir);
  std::filesystem::remove_all(dir);

  std::printf("trace %s, policy %s, %.0f jobs on %llu processors\n", trace_path.c_str(), policy_name.c_str(), jobs,
              static_cast<unsigned long long>(procs));
  std::printf("full flow:  wall %.2f s, %.0f jobs/s, %.0f messages, %.0f flow messages/s\n", wall, jobs / wall,
              messages, messages / wall);
  std::printf("floors:     SimGrid ping-pong of as many messages %.0f messages/s; bare %s loop %.3f s\n", pp,
              policy_name.c_str(), loop_wall);
  std::printf("ratios:     ping-pong rate / flow rate = %.2f (target: within 2); flow wall / bare loop wall = %.0f\n",
              pp / (messages / wall), wall / loop_wall);
  std::printf("metrics:    flow mean wait %.1f s, bounded slowdown %.2f, utilisation %.3f\n",
              summary["mean_wait_s"].get<double>(), summary["mean_bounded_slowdown"].get<double>(),
              summary["utilization"].get<double>());
  std::printf("            loop mean wait %.1f s, bounded slowdown %.2f, utilisation %.3f\n", loop_metrics.mean_wait_s,
              loop_metrics.mean_bounded_slowdown, loop_metrics.utilization);
  return 0;
}
