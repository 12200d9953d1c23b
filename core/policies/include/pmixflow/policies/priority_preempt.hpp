#pragma once

#include <vector>

#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

// Priority first, then EASY backfilling, then preemption. The queue is taken by priority
// (higher first; the scheduler derives it from the request's PMIX_ALLOC_QUEUE), then submit
// time, then arrival. The first request starts when it fits; others backfill around its
// reservation as in EASY. When it cannot start and terminating running allocations of lower
// priority that were granted PMIX_ALLOC_PREEMPTIBLE would make room now, those are taken back:
// the lowest priority first, among equals the most recently started (the least work lost).
// Their requests are requeued by the scheduler and run again from the start.
class PriorityPreemptPolicy final : public Policy {
 public:
  std::string_view name() const override { return "priority-preempt"; }
  std::optional<std::uint64_t> next(const SchedulingView& view) override;
  std::vector<std::uint64_t> preempt(const SchedulingView& view) override;

 private:
  std::span<const QueuedRequest> by_priority(const SchedulingView& view);
  std::vector<QueuedRequest> ordered_;
};

}  // namespace pmixflow
