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

#include "pmixflow/outcomes.hpp"
#include "pmixflow/policy.hpp"
#include "pmixflow/swf.hpp"

namespace {

using Clock = std::chrono::steady_clock;

class LoopView final : public pmixflow::SchedulingView {
 public:
  double time = 0;
  std::uint64_t total = 0, free = 0;
  std::vector<pmixflow::QueuedRequest> waiting;
  std::vector<pmixflow::RunningAllocation> active;
  double now() const override { return time; }
  std::uint64_t total_cpus() const override { return total; }
  std::uint64_t free_cpus() const override { return free; }
  bool fits_now(const pmixflow::QueuedRequest& r) const override { return r.cpus <= free; }
  std::span<const pmixflow::QueuedRequest> queue() const override { return waiting; }
  std::span<const pmixflow::RunningAllocation> running() const override { return active; }
};

// The policy alone: submissions and ends in time order (ends first at equal times), one
// decision pass after each instant.
pmixflow::Metrics bare_loop(const pmixflow::SwfTrace& trace, pmixflow::Policy& policy, std::uint64_t procs) {
  LoopView view;
  view.total = view.free = procs;
  struct End {
    double at;
    std::uint64_t key;
    bool operator>(const End& o) const { return at != o.at ? at > o.at : key > o.key; }
  };
  std::priority_queue<End, std::vector<End>, std::greater<>> ends;
  std::vector<pmixflow::JobOutcome> outcomes(trace.jobs.size());
  std::size_t next = 0;
  while (next < trace.jobs.size() || !ends.empty()) {
    const double t = std::min(next < trace.jobs.size() ? trace.jobs[next].submit : 1e300, ends.empty() ? 1e300 : ends.top().at);
    view.time = t;
    while (!ends.empty() && ends.top().at == t) {
      const auto key = ends.top().key;
      ends.pop();
      for (auto it = view.active.begin(); it != view.active.end(); ++it)
        if (it->key == key) {
          view.free += it->cpus;
          view.active.erase(it);
          break;
        }
    }
    while (next < trace.jobs.size() && trace.jobs[next].submit == t) {
      const auto& job = trace.jobs[next];
      view.waiting.push_back({next, t, job.procs, 0, job.estimate, 0, false});
      outcomes[next].submitted = t;
      outcomes[next].procs = job.procs;
      ++next;
    }
    while (auto key = policy.next(view)) {
      auto it = std::find_if(view.waiting.begin(), view.waiting.end(), [&](const auto& q) { return q.key == *key; });
      const auto& job = trace.jobs[*key];
      view.free -= job.procs;
      view.active.push_back({*key, job.procs, t, t + job.estimate, 0, false});
      outcomes[*key].started = t;
      outcomes[*key].finished = t + job.runtime;
      ends.push({t + job.runtime, *key});
      view.waiting.erase(it);
    }
  }
  return pmixflow::compute_metrics(outcomes, procs);
}

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
  const auto loop_metrics = bare_loop(trace, *policy, procs);
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
  std::printf("full flow:  wall %.2f s, %.0f jobs/s, %.0f messages, %.0f flow messages/s\n", wall, jobs / wall, messages,
              messages / wall);
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
