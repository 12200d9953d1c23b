// A generated workload: Poisson arrivals, sizes and runtimes log-uniform, every draw from one
// seed, written as an SWF trace so that it goes through the same reader, and the same flow, as
// a production trace. The scale benchmark replays it; a sweep studies it beside real traces.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace pmixflow {

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

// Writes the trace to `path`; returns the mean inter-arrival time it drew from. The same shape
// writes the same file, byte for byte. Throws std::runtime_error when it cannot write.
double write_workload(const WorkloadShape& shape, const std::filesystem::path& path);

// A shape as a line of text names it: "jobs=200 nodes=8 load=0.9", words KEY=VALUE separated
// by spaces, the keys the fields above (slots_per_node, min_runtime_s, ...); a field not named
// keeps its default. Throws InputError naming `file`, `line` and the key of a bad word: an
// unknown key, a value that is not a number or out of its range (jobs and nodes at least 1,
// load more than 0, 0 < min_runtime_s <= max_runtime_s, max_size_share in (0, 1]).
// `seeded` says whether it named its seed.
WorkloadShape parse_workload_shape(const std::string& text, const std::string& file, std::size_t line,
                                   bool* seeded = nullptr);

}  // namespace pmixflow
