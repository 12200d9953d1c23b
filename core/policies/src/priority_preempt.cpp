#include "pmixflow/policies/priority_preempt.hpp"

#include <algorithm>

#include "pmixflow/policies/backfill.hpp"

namespace pmixflow {

std::span<const QueuedRequest> PriorityPreemptPolicy::by_priority(const SchedulingView& view) {
  const auto queue = view.queue();
  ordered_.assign(queue.begin(), queue.end());
  // Stable: the scheduler's queue is already in submit order, which breaks ties.
  std::stable_sort(ordered_.begin(), ordered_.end(),
                   [](const auto& a, const auto& b) { return a.priority > b.priority; });
  return ordered_;
}

std::optional<std::uint64_t> PriorityPreemptPolicy::next(const SchedulingView& view) {
  return easy_pick(view, by_priority(view));
}

std::vector<std::uint64_t> PriorityPreemptPolicy::preempt(const SchedulingView& view) {
  const auto ordered = by_priority(view);
  if (ordered.empty()) return {};
  const QueuedRequest& head = ordered.front();
  if (view.fits_now(head)) return {};
  std::uint64_t available = view.free_cpus();
  std::vector<RunningAllocation> candidates;
  for (const auto& r : view.running()) {
    if (r.ending)
      available += r.cpus;  // already on its way out: wait for it, take nothing more
    else if (r.preemptible && r.priority < head.priority)
      candidates.push_back(r);
  }
  if (available >= head.cpus) return {};
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.start_time != b.start_time) return a.start_time > b.start_time;
    return a.key > b.key;
  });
  std::vector<std::uint64_t> victims;
  for (const auto& r : candidates) {
    victims.push_back(r.key);
    available += r.cpus;
    if (available >= head.cpus) return victims;
  }
  return {};  // even all of them would not make room: preempting would only lose work
}

}  // namespace pmixflow
