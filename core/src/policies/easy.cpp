#include "pmixflow/policies/easy.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace pmixflow {

std::optional<std::uint64_t> EasyPolicy::next(const SchedulingView& view) {
  const auto queue = view.queue();
  if (queue.empty()) return std::nullopt;
  const QueuedRequest& head = queue.front();
  if (view.fits_now(head)) return head.key;

  // The head's reservation: walk the running jobs by their expected ends until it fits.
  std::vector<RunningAllocation> running(view.running().begin(), view.running().end());
  std::sort(running.begin(), running.end(), [](const auto& a, const auto& b) {
    return a.expected_end != b.expected_end ? a.expected_end < b.expected_end : a.key < b.key;
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
  for (std::size_t i = 1; i < queue.size(); ++i) {
    const QueuedRequest& job = queue[i];
    if (!view.fits_now(job)) continue;
    // A job without an estimate could run forever: it may only use the extra processors.
    const bool ends_in_time = job.estimate > 0 && now + job.estimate <= shadow;
    if (ends_in_time || job.cpus <= extra) return job.key;
  }
  return std::nullopt;
}

}  // namespace pmixflow
