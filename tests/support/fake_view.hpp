// A hand-made SchedulingView for policy tests: the queue, what runs, and a clock, set by hand.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <vector>

#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

constexpr double kForever = std::numeric_limits<double>::infinity();

// Free processors are the total less what runs. `blocked` requests do not fit now whatever the
// count says (a node layout the count cannot see); a whole-node request fits when
// `whole_free_nodes` are free.
class FakeView final : public SchedulingView {
 public:
  double time = 0;
  std::uint64_t total = 0;
  std::vector<QueuedRequest> waiting;
  std::vector<RunningAllocation> active;
  std::set<std::uint64_t> blocked;
  std::uint32_t whole_free_nodes = std::numeric_limits<std::uint32_t>::max();

  double now() const override { return time; }
  std::uint64_t total_cpus() const override { return total; }
  std::uint64_t free_cpus() const override {
    std::uint64_t used = 0;
    for (const auto& r : active) used += r.cpus;
    return total - used;
  }
  bool fits_now(const QueuedRequest& r) const override {
    if (blocked.count(r.key) != 0) return false;
    if (r.nodes > 0 && r.nodes > whole_free_nodes) return false;
    return r.cpus <= free_cpus();
  }
  std::span<const QueuedRequest> queue() const override { return waiting; }
  std::span<const RunningAllocation> running() const override { return active; }

  void queue_job(std::uint64_t key, std::uint64_t cpus, double estimate, int priority = 0) {
    waiting.push_back(QueuedRequest{key, time, cpus, 0, estimate, priority, false});
  }
  void run(std::uint64_t key, std::uint64_t cpus, double start, double expected_end, int priority = 0,
           bool preemptible = false) {
    active.push_back(RunningAllocation{key, cpus, start, expected_end, priority, preemptible, false});
  }
  // What the scheduler does with the answer: the request leaves the queue and runs.
  void start(std::uint64_t key) {
    auto it = std::find_if(waiting.begin(), waiting.end(), [&](const auto& q) { return q.key == key; });
    ASSERT_NE(it, waiting.end());
    ASSERT_TRUE(fits_now(*it));
    run(key, it->cpus, time, it->estimate > 0 ? time + it->estimate : kForever, it->priority, it->preemptible);
    waiting.erase(it);
  }
  void end(std::uint64_t key) {
    std::erase_if(active, [&](const auto& r) { return r.key == key; });
  }
};

}  // namespace pmixflow
