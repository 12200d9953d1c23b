#include "pmixflow/policies/backfill.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace pmixflow {

std::optional<std::uint64_t> easy_pick(const SchedulingView& view, std::span<const QueuedRequest> ordered) {
  if (ordered.empty()) return std::nullopt;
  const QueuedRequest& head = ordered.front();
  if (view.fits_now(head)) return head.key;

  // The head's reservation: walk the running jobs by their expected ends until it fits. Of
  // jobs expected to end at the same time the smaller go first, so the extra processors are
  // what is certain once the head fits, not all that the same instant frees: the rule of the
  // reference implementation the acceptance figures come from.
  std::vector<RunningAllocation> running(view.running().begin(), view.running().end());
  std::sort(running.begin(), running.end(), [](const auto& a, const auto& b) {
    if (a.expected_end != b.expected_end) return a.expected_end < b.expected_end;
    return a.cpus != b.cpus ? a.cpus < b.cpus : a.key < b.key;
  });
  std::uint64_t available = view.free_cpus();
  double shadow = std::numeric_limits<double>::infinity();
  std::uint64_t extra = 0;
  for (const auto& r : running) {
    available += r.cpus;
    if (available >= head.cpus) {
      shadow = r.expected_end;
      extra = available - head.cpus;
      break;
    }
  }
  const double now = view.now();
  for (std::size_t i = 1; i < ordered.size(); ++i) {
    const QueuedRequest& job = ordered[i];
    if (!view.fits_now(job)) continue;
    // A job without an estimate could run forever: it may only use the extra processors.
    const bool ends_in_time = job.estimate > 0 && now + job.estimate <= shadow;
    if (ends_in_time || job.cpus <= extra) return job.key;
  }
  return std::nullopt;
}

}  // namespace pmixflow
