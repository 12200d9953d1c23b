// A synthetic workload as the scale benchmark replays it: Poisson arrivals, sizes and
// runtimes log-uniform, every draw from one seed, written as an SWF trace so that it goes
// through the same reader, and the same flow, as a production trace.
#pragma once

#include <cstdint>
#include <filesystem>

namespace pmixflow::bench {

struct WorkloadShape {
  std::uint64_t jobs = 10000;
  std::uint64_t nodes = 1000;
  std::uint64_t slots_per_node = 8;
  // Offered load: the arrival rate is set so that jobs ask, on average, for this share of the
  // machine. Below 1 the queue stays short however long the trace, as on a machine in steady
  // state; the benchmark then measures the flow, not an ever-growing backlog.
  double load = 0.85;
  double min_runtime_s = 60;
  double max_runtime_s = 86400;
  // Largest job, as a share of the machine's slots (at least one slot).
  double max_size_share = 0.05;
  std::uint64_t seed = 1;
};

// Writes the trace to `path`; returns the mean inter-arrival time it drew from.
double write_workload(const WorkloadShape& shape, const std::filesystem::path& path);

}  // namespace pmixflow::bench
