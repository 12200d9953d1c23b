#include "pmixflow/trace/node_failures.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

namespace pmixflow {
namespace {

// Told apart from every other stream drawn from the run's seed (the replay's entry points, the
// processes' jitter), which seed their generators with the seed alone.
constexpr std::uint32_t kFailureStream = 0x6e6f6465;  // "node"

// An exponential draw of mean `mean`, by inversion, written out rather than taken from
// std::exponential_distribution, whose algorithm each standard library chooses: the same seed
// gives the same failures with any compiler. u is in (0, 1], so the log is finite.
double exponential(std::mt19937_64& random, double mean) {
  const double u = static_cast<double>((random() >> 11) + 1) * 0x1.0p-53;
  return -mean * std::log(u);
}

std::mt19937_64 node_stream(std::uint64_t seed, NodeId node) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), kFailureStream,
                    static_cast<std::uint32_t>(node)};
  return std::mt19937_64(seq);
}

}  // namespace

FailureSpan failure_span(const SwfTrace& trace, double time_origin) {
  double last_submit = 0, longest = 0;
  for (const auto& job : trace.jobs) {
    last_submit = std::max(last_submit, job.submit);
    longest = std::max({longest, job.estimate, job.runtime});
  }
  return FailureSpan{time_origin, time_origin + last_submit + longest};
}

std::vector<FaultAt> draw_node_failures(const NodeFailureModel& model, std::uint64_t seed,
                                        const std::vector<NodeId>& nodes, FailureSpan span) {
  std::vector<FaultAt> out;
  for (const NodeId node : nodes) {
    std::mt19937_64 random = node_stream(seed, node);
    double t = span.from;
    while (true) {
      t += exponential(random, model.mtbf);
      if (t > span.until) break;
      out.push_back(FaultAt{t, std::nullopt, Fault::NodeDies, node, 0});
      if (!model.mttr) break;  // it never comes back: nothing more can happen to it
      t += exponential(random, *model.mttr);
      out.push_back(FaultAt{t, std::nullopt, Fault::NodeReturns, node, 0});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FaultAt& a, const FaultAt& b) { return std::tie(a.at, a.node) < std::tie(b.at, b.node); });
  return out;
}

}  // namespace pmixflow
