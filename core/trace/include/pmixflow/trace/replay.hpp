// A production trace as the flow replays it: every job a PMIx_Allocation_request (NEW, with
// PMIX_ALLOC_NUM_CPUS and PMIX_ALLOC_TIME) carrying its app, submitted at its time by its
// user, through a daemon or straight to the scheduler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/trace/swf.hpp"

namespace pmixflow {

struct ReplayOptions {
  double via_daemon = 0.5;  // share of jobs submitted through a daemon; the rest go to the scheduler
  std::uint64_t seed = 0;   // draws which jobs go through a daemon, and which daemon
  std::string policy = "fcfs";
  double warm_up = 1.0;  // seconds before the first job: daemons start, the scheduler attaches
  // Jobs of these SWF queues (field 15) ask for PMIX_ALLOC_PREEMPTIBLE; every job's queue
  // travels as PMIX_ALLOC_QUEUE, which the scheduler turns into a priority.
  std::vector<std::int64_t> preemptible_queues;
  bool all_preemptible = false;
};

// The calls are named "job<N>" after the SWF job number. Every node gets a daemon at start-up
// (a production machine's DVM spans it), so that any daemon can relay.
Scenario scenario_from_trace(const SwfTrace& trace, std::uint32_t compute_nodes, const ReplayOptions& options);

}  // namespace pmixflow
