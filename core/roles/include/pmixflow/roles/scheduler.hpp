// The scheduler: owns the allocation decisions for the whole machine. Requests reach it
// relayed by the controller (with PMIX_REQUESTOR) or directly from tools. It never tells
// the RM about an allocation by answering a request: it instantiates a session through
// PMIx_Session_control, and answers the requestor once the RM has the session (FLOW.md §2).
//
// Its parts, as Flux's qmanager splits them: the resource pool, the request queue the policy
// reads, the live allocations, and the calls outstanding at the RM (roles/scheduler/). Its
// files: the protocol (scheduler.cpp), allocation requests (requests.cpp), session control and
// completion (session_ctrl.cpp), the RM's answers (rm_answers.cpp), the policy's passes
// (scheduling.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/policies/policy.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/scheduler/live_allocations.hpp"
#include "pmixflow/roles/scheduler/request_queue.hpp"
#include "pmixflow/roles/scheduler/resource_pool.hpp"
#include "pmixflow/roles/scheduler/rm_calls.hpp"
#include "pmixflow/roles/scheduler/script.hpp"

namespace pmixflow {

// How long a scheduling pass waits after the event that calls for it, gathering whatever else
// arrives meanwhile (Slurm's SchedulerParameters batch_sched_delay / sched_min_interval; Batsim
// decides once per instant, after all of its events). 10 ms: a hundred times the spread of the
// messages one instant of a trace sends the scheduler (tens of microseconds), a hundredth of
// the trace's one-second resolution; 1 ms left conservative backfilling 2.2% off its bare
// loop on a 50,000-job tie-heavy trace (docs/flow.md, "Scheduling passes").
inline constexpr double kDefaultBatchDelay = 0.01;

struct SchedulerConfig {
  bool attach_at_start = true;   // attach to the controller as a tool declaring PMIX_SERVER_SCHEDULER
  bool exclusive_nodes = false;  // allocate whole nodes even for cpu counts
  // Seconds from the first event that calls for a pass to the pass; 0: a pass on every event.
  double batch_delay = kDefaultBatchDelay;
  // Priorities of named queues (PMIX_ALLOC_QUEUE). A queue named by a number has that number
  // as its priority unless listed here; a request without a queue has priority 0; a request
  // naming any other queue is refused with PMIX_ERR_BAD_PARAM.
  std::map<std::string, int> queue_priorities;
  // False: a grant is answered at once and the RM is never told (no session is instantiated),
  // as a scheduler that grants without PMIx_Session_control would.
  bool instantiates = true;
  std::vector<ScriptedCall> script;  // calls a scenario makes it place itself (script.cpp)
  // When each of its lives is planned to start, in order (the scenario's scheduler start and
  // scheduler_attach lines). A process that comes up later than planned (a slow start) makes the
  // calls of its life late, not never; empty: each life's calls are those still to come.
  std::vector<double> planned_starts;
};

// What a scheduler keeps across its own restart, as a real one keeps it in its saved state
// (Slurm's StateSaveLocation): the allocations it granted, the slots they hold, its counters. The
// queue and the calls it had in flight go with the process: their callers were told
// PMIX_ERR_UNREACH when its connections broke. The simulator's scheduler keeps its object across
// a restart; the emulator's, a new process, is handed this (emul/src/scheduler_memory.cpp).
struct SchedulerMemory {
  std::uint64_t next_key = 1;
  std::uint32_t next_session = 1;
  std::vector<Live> live;
};

class Scheduler final : public Role {
 public:
  Scheduler(Env& env, const Cluster& cluster, std::unique_ptr<Policy> policy, SchedulerConfig config = {});
  ~Scheduler() override;

  void start() override;
  void handle(Address from, Message&& msg) override;

  bool rm_connected() const { return rm_connected_; }
  SchedulerMemory memory() const;
  // Before start(): takes back what an earlier life of this scheduler granted.
  void remember(SchedulerMemory memory);

 private:
  class View;

  // One handler per kind of message the scheduler takes; the others do not concern it.
  void on(Address from, AllocRequest&& req);
  void on(Address from, SessionCtrlRequest&& req);
  void on(Address from, SessionCtrlResponse&& resp);
  void on(Address from, ConnectRequest&& req);
  void on(Address from, ConnectResponse&& resp);
  void on(Address from, Unreachable&& notice);
  void on(Address from, PeerLost&& notice);
  void on(Address from, Notification&& event);
  void on(Address from, SpawnRequest&& req);
  template <class M>
  void on(Address, M&&) {}

  // Allocation requests (requests.cpp)
  void on_new(const Origin& origin, const AllocRequest& req, const Principal& requestor);
  void on_extend(const Origin& origin, const AllocRequest& req, const Principal& requestor);
  void on_release(const Origin& origin, const AllocRequest& req, const Principal& requestor);
  void on_cancel(const Origin& origin, const AllocRequest& req, const Principal& requestor);
  std::optional<int> queue_priority(const InfoList& info) const;
  Live* owned(const Origin& origin, const InfoList& info, const Principal& requestor);

  // Session control and completion (session_ctrl.cpp)
  void decide_session_ctrl(const Origin& origin, SessionCtrlRequest&& req);
  void on_complete(Address from, const SessionCtrlRequest& req);
  void requeue(Live& live, double lost_cpu_s);

  // The RM's answers (rm_answers.cpp)
  void instantiated(const Outstanding& out, SessionCtrlResponse&& resp);
  void extended(const Outstanding& out, const SessionCtrlResponse& resp);
  // A call the RM can no longer answer, taken as answered PMIX_ERR_UNREACH.
  void abandoned(const Outstanding& out);

  // The policy's passes (scheduling.cpp)
  void schedule();  // a pass now, or once the batch delay is over
  void pass();
  Need need_of(const QueuedRequest& r) const;  // what the pool must hold for it
  void grant(QueueEntry&& q);
  void preempt(const std::vector<std::uint64_t>& keys);
  // Calls the policy; what it throws comes out as a PolicyError naming it.
  template <class F>
  auto consult(F&& ask) -> decltype(ask());

  // The scenario's own calls (script.cpp)
  void arm_script();
  void place_scripted(std::size_t index);
  bool scripted_answer(std::uint64_t id, Status status, const InfoList& info);
  void abandon_scripted_to_rm();

  // The protocol (scheduler.cpp)
  void rm_attached(std::string_view how);
  void rm_lost();
  // The RM has gone: what waits in the queue can never be granted (only the RM makes sessions).
  void strand_queue();
  void tool_lost(Address tool);
  // Queued requests whose requestor's connection broke leave the queue (its library answered it).
  void withdraw(const RequestQueue::Pick& pick, std::string_view why, bool answer_rm);
  // A grant whose answer nobody took: its session is terminated.
  void hand_back(const std::string& corr);
  void node_down(const std::string& name);
  void node_back(const std::string& name);
  void answer(const Origin& origin, Status status, InfoList info = {});
  void answer_ctrl(const Origin& origin, Status status);

  Env& env_;
  const Cluster& cluster_;
  std::unique_ptr<Policy> policy_;
  SchedulerConfig config_;
  ResourcePool pool_;
  RequestQueue queue_;
  LiveAllocations live_;
  RmCalls rm_;
  std::vector<RunningAllocation> running_view_;  // the policy's view of live_ during a pass
  bool rm_connected_ = false;
  // The RM this scheduler was attached to has gone (not "not there yet"): nothing can be granted
  // until one attaches again, so requests are answered PMIX_ERR_UNREACH instead of waiting.
  bool rm_gone_ = false;
  TimerId pass_timer_ = 0;   // the batch delay running: a pass is coming
  double batch_opened_ = 0;  // when the first event the coming pass will see arrived
  double instant_ = 0;       // what the pass in progress decides about (View::now)
  std::uint64_t next_key_ = 1;
  std::uint32_t next_session_ = 1;
  std::map<Address, Proc> tools_;  // requestors attached here directly
  // Sessions whose INSTANTIATE the RM answered with a failure, by session id (to the allocation
  // id): their COMPLETE, when the RM made them, may still come.
  std::map<std::uint32_t, std::string> failed_instantiations_;
  struct ScriptedOut {
    std::size_t index = 0;
    double sent = 0;
  };
  std::map<std::uint64_t, ScriptedOut> scripted_;  // by call id
};

}  // namespace pmixflow
