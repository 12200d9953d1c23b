// The allocations the scheduler has granted and not yet seen completed: their nodes, their
// owner, and how the policy sees them running.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/roles/scheduler/request_queue.hpp"
#include "pmixflow/roles/scheduler/resource_pool.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

struct Live {
  std::string alloc_id;
  std::uint32_t session_id = 0;
  Principal owner;
  std::string corr;        // the request it was granted for
  SlotRuns slots;          // the slots it holds
  RunningAllocation view;  // view.ending: its session is being terminated to make room
  double granted_at = 0;   // when it was granted (view.start_time is the instant decided about)
  bool instantiated = false;
  std::optional<QueueEntry> requeue;  // a preemptible grant: the request as it was queued
  // Its preempting TERMINATE was carried out (answered PMIX_SUCCESS). The COMPLETE cannot say
  // so: PRRTE reports a killed job and a finished one alike, PMIX_EVENT_JOB_END.
  bool killed_to_make_room = false;
};

class LiveAllocations {
 public:
  Live& add(Live live);
  void erase(const std::string& alloc_id) { live_.erase(alloc_id); }
  Live* find(const std::string& alloc_id);
  // By PMIX_ALLOC_ID when the info names one, else by PMIX_SESSION_ID.
  Live* find(const InfoList& info);
  Live* by_session(std::uint32_t session);
  Live* by_key(std::uint64_t key);
  // The allocation granted for the request `corr` names.
  Live* by_corr(const std::string& corr);
  // The instantiated allocations `nspace` owns.
  std::vector<Live*> owned_by(const Principal& caller);  // what the caller may manage
  // How the policy sees them, all.
  void running(std::vector<RunningAllocation>& out) const;
  // Every one, in alloc id order (what a scheduler keeps across its restart).
  std::vector<Live> all() const;

 private:
  std::map<std::string, Live> live_;  // by alloc id: every pass over them goes in this order
};

}  // namespace pmixflow
