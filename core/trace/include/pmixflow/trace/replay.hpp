// A production trace as the flow replays it: every job a PMIx_Allocation_request (NEW, with
// PMIX_ALLOC_NUM_CPUS and PMIX_ALLOC_TIME) carrying its app, submitted at its time by its
// user, through a daemon or straight to the scheduler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmixflow/roles/call_source.hpp"
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

// One replayed job, every draw made, about as small as its trace line: the call it makes is
// built only when it is due (replay_call), so that a trace of a million jobs is not held as a
// million calls with their info and apps.
struct ReplayJob {
  double at = 0;  // when it is submitted, on the run's clock
  double runtime = 0;
  double estimate = 0;
  double recorded_wait = -1;  // SWF field 3; < 0: unknown
  std::int64_t job = -1;      // its SWF job number: the call is "job<N>"
  std::int64_t user = -1;
  std::int64_t queue = -1;
  std::uint64_t procs = 0;
  std::size_t line = 0;
  std::int64_t via_node = -1;  // submitted through the daemon of compute node +nK; -1: straight to the scheduler
  Address via;                 // that entry point on the machine, once deployed (deploy())
  bool preemptible = false;
  bool ticks = false;  // the trace keeps whole seconds: the job ends on one (AppBehaviour::tick_s)
};

// The scenario a replay runs, without its calls: its name, its DVM (every node gets a daemon
// at start-up, as a production machine's DVM spans it, so that any daemon can relay), policy
// and time origin.
Scenario replay_scenario(const SwfTrace& trace, const ReplayOptions& options);

// The trace's jobs in file order, drawn from options.seed, on a machine of `compute_nodes`.
std::vector<ReplayJob> replay_jobs(const SwfTrace& trace, std::uint32_t compute_nodes, const ReplayOptions& options);

std::string replay_requestor(const ReplayJob& job);  // "user<N>", "user-unknown"
std::string replay_via(const ReplayJob& job);        // "daemon:+n<K>", "scheduler"
AllocRequest replay_request(const ReplayJob& job);   // corr "job<N>"
// The call as its requestor places it (job.via resolved).
PlannedCall replay_call(const ReplayJob& job);

}  // namespace pmixflow
