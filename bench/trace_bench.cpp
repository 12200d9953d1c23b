// A production trace replayed with one policy through the whole flow, against two floors
// measured in the same run: the cheapest plain s4u exchange of as many messages (the least any
// design that carries every hop through SimGrid can cost), and the same policy deciding the
// same trace in a bare event loop with no flow at all. The flow and the SimGrid floor are each
// timed as a whole process (fork to exit: reading, platform, run, outputs) and as their
// simulation loop alone.
// Then the same replay writing its event log at each level, plain and compressed: the CPU the
// log costs and its bytes per event.
//   bench_trace [TRACE.swf.gz] [POLICY] [--no-logs]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floor.hpp"
#include "measure.hpp"
#include "pmixflow/policies/policy.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/trace/bare_replay.hpp"
#include "pmixflow/trace/swf.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct BareLoop {
  double wall_s = 0;  // reading the trace and deciding it
  pmixflow::Metrics metrics;
};

// The bare loop runs in this process: reading the trace and deciding it, as a tool doing
// only that would.
BareLoop bare_loop(const std::string& trace_path, const std::string& policy_name) {
  const auto start = Clock::now();
  const auto trace = pmixflow::read_swf(trace_path);
  const auto procs = static_cast<std::uint64_t>(trace.max_procs.value_or(0));
  auto policy = pmixflow::make_policy(policy_name);
  BareLoop b;
  b.metrics = pmixflow::compute_metrics(pmixflow::bare_replay(trace, *policy, procs), procs);
  b.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return b;
}

// The same replay writing its log at each level: what the log costs in CPU and in bytes.
void print_log_costs(const std::string& trace_path, const std::string& policy_name, const std::filesystem::path& dir,
                     const pmixflow::bench::ProcessCost& without) {
  const struct {
    const char* name;
    std::vector<std::string> options;
    const char* file;
  } levels[] = {{"all", {"--events", "all"}, "events.jsonl"},
                {"state", {"--events", "state"}, "events.jsonl"},
                {"all, gzip", {"--events", "all", "--gzip-events"}, "events.jsonl.gz"},
                {"state, gzip", {"--events", "state", "--gzip-events"}, "events.jsonl.gz"}};
  std::printf("%-22s %10s %10s %12s %10s\n", "the log", "cpu s", "x no log", "MB", "bytes/ev");
  std::printf("%-22s %10.2f %10.2f %12s %10s\n", "none (--no-events)", without.cpu_s, 1.0, "-", "-");
  for (const auto& level : levels) {
    std::vector<std::string> cmd = {PMIXFLOW_BIN, "sim",      "--quiet",
                                    "--trace",    trace_path, "--policy",
                                    policy_name,  "--out",    (dir / "logged").string()};
    cmd.insert(cmd.end(), level.options.begin(), level.options.end());
    const auto cost = pmixflow::bench::run_process(cmd, "", (dir / "logged.err").string());
    if (cost.exit_status != 0) continue;
    const auto summary = nlohmann::json::parse(std::ifstream(dir / "logged" / "summary.json"));
    const double bytes = static_cast<double>(std::filesystem::file_size(dir / "logged" / level.file));
    const double events = summary["events"].get<double>();
    std::printf("%-22s %10.2f %10.2f %12.1f %10.1f\n", level.name, cost.cpu_s, cost.cpu_s / without.cpu_s, bytes / 1e6,
                bytes / events);
    std::filesystem::remove_all(dir / "logged");
  }
}

void print_metrics(const char* what, double wait, double slowdown, double utilisation) {
  std::printf("%-11s mean wait %.1f s, bounded slowdown %.2f, utilisation %.3f\n", what, wait, slowdown, utilisation);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string trace_path = argc > 1 ? argv[1] : PMIXFLOW_SHARED_DIR "/data/traces/KTH-SP2-1996-2.1-cln.swf.gz";
  const std::string policy_name = argc > 2 ? argv[2] : "easy";
  const bool with_logs = !(argc > 3 && std::string(argv[3]) == "--no-logs");
  if (!std::filesystem::exists(trace_path)) {
    std::cerr << "bench: " << trace_path << " not found (the shared data set is not beside this clone)\n";
    return 2;
  }
  const auto dir = std::filesystem::temp_directory_path() / ("pmixflow-bench-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const BareLoop bare = bare_loop(trace_path, policy_name);
  const auto flow = pmixflow::bench::run_process({PMIXFLOW_BIN, "sim", "--quiet", "--no-events", "--trace", trace_path,
                                                  "--policy", policy_name, "--out", (dir / "flow").string()},
                                                 "", (dir / "flow.err").string());
  if (flow.exit_status != 0) {
    std::cerr << "bench: the replay failed (exit " << flow.exit_status << "), see " << (dir / "flow.err") << "\n";
    return 1;
  }
  const auto summary = nlohmann::json::parse(std::ifstream(dir / "flow" / "summary.json"));
  const double loop = summary["wall_s"], messages = summary["messages"], jobs = summary["jobs"];
  const auto floor = pmixflow::bench::pingpong_floor(static_cast<std::uint64_t>(messages), dir);
  if (!floor.ok()) return 1;

  std::printf("trace %s, policy %s, %.0f jobs, %.0f messages\n", trace_path.c_str(), policy_name.c_str(), jobs,
              messages);
  std::printf("%-22s %10s %10s %9s\n", "", "process s", "loop s", "peak MB");
  std::printf("%-22s %10.2f %10.2f %9.0f\n", "flow (pmixflow sim)", flow.wall_s, loop, flow.peak_rss_mb);
  std::printf("%-22s %10.2f %10.2f %9.0f\n", "floor (s4u ping-pong)", floor.process.wall_s, floor.loop_s,
              floor.process.peak_rss_mb);
  std::printf("%-22s %10.2f %10s\n", "bare policy loop", bare.wall_s, "-");
  std::printf("ratios: flow / ping-pong: process %.2f, loop %.2f; flow process / bare loop %.0f\n",
              flow.wall_s / floor.process.wall_s, loop / floor.loop_s, flow.wall_s / bare.wall_s);
  print_metrics("flow:", summary["mean_wait_s"], summary["mean_bounded_slowdown"], summary["utilization"]);
  print_metrics("bare loop:", bare.metrics.mean_wait_s, bare.metrics.mean_bounded_slowdown, bare.metrics.utilization);
  if (with_logs) print_log_costs(trace_path, policy_name, dir, flow);
  std::filesystem::remove_all(dir);
  return 0;
}
