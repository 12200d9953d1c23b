// The requests waiting for the policy, in queue order: submit order, a requeued request back
// in its original place. The policy reads them as one contiguous span of QueuedRequest (its
// interface, policy.hpp); what else the scheduler keeps of a request is found by its key.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/scheduler/resource_pool.hpp"
#include "pmixflow/vocab/info.hpp"
#include "pmixflow/vocab/principal.hpp"

namespace pmixflow {

// A queued request beyond what the policy sees.
struct Pending {
  Origin origin;
  Principal requestor;
  std::string req_id;  // PMIX_ALLOC_REQ_ID
  Need need;
  double time_limit = 0;
  InfoList apps_and_job;                     // PMIX_SESSION_APP / PMIX_SESSION_JOB, into the instantiation
  std::optional<std::uint32_t> inheritance;  // PMIX_ALLOC_INHERITANCE, passed on to the RM
  InfoList passed_on;                        // PMIX_ALLOC_CHILD_SEP, PMIX_SESSION_SEP: the RM's business
  bool answered = false;                     // requeued after preemption: the requestor already has its answer
};

struct QueueEntry {
  QueuedRequest view;
  Pending pending;
};

class RequestQueue {
 public:
  std::span<const QueuedRequest> view() const { return views_; }
  bool empty() const { return views_.empty(); }
  const Pending* pending(std::uint64_t key) const;

  void enqueue(QueueEntry entry);
  // The request with this key, out of the queue.
  std::optional<QueueEntry> take(std::uint64_t key);
  using Pick = std::function<bool(const QueuedRequest&, const Pending&)>;
  // The first request, in queue order, that `pick` picks, out of the queue.
  std::optional<QueueEntry> take_first(const Pick& pick);
  // Every request `pick` picks, in queue order, out of the queue.
  std::vector<QueueEntry> take_all(const Pick& pick);

 private:
  QueueEntry remove_at(std::size_t i);
  std::vector<QueuedRequest> views_;
  std::unordered_map<std::uint64_t, Pending> pending_;  // by key
};

}  // namespace pmixflow
