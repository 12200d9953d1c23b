// The scheduler: owns the allocation decisions for the whole machine. Requests reach it
// relayed by the controller (with PMIX_REQUESTOR) or directly from tools. It never tells
// the RM about an allocation by answering a request: it instantiates a session through
// PMIx_Session_control, and answers the requestor once the RM has the session (FLOW.md §2).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

struct SchedulerConfig {
  bool attach_at_start = true;   // attach to the controller as a tool declaring PMIX_SERVER_SCHEDULER
  bool exclusive_nodes = false;  // allocate whole nodes even for cpu counts
  // Priorities of named queues (PMIX_ALLOC_QUEUE). A queue named by a number has that number
  // as its priority unless listed here; a request without a queue has priority 0; a request
  // naming any other queue is refused with PMIX_ERR_BAD_PARAM.
  std::map<std::string, int> queue_priorities;
};

// One allocation as the scheduler accounts for it, kept after it ends for the run's outputs.
struct AllocationRecord {
  std::string alloc_id;
  std::uint32_t session_id = 0;
  std::string corr;
  std::string requestor;
  double submitted = 0;
  double started = -1;
  double ended = -1;
  std::uint64_t cpus = 0;
  double time_limit = 0;
  std::string node_list;
  Status status = Status::Success;                   // how the request was answered
  std::vector<std::pair<std::string, Status>> jobs;  // from PMIX_SESSION_COMPLETE
  int priority = 0;
  std::uint32_t preemptions = 0;  // times its session was terminated and the request requeued
  double lost_cpu_s = 0;          // work those sessions had done, lost: sum of run time x cpus
};

class Scheduler final : public Role {
 public:
  Scheduler(Env& env, const Cluster& cluster, std::unique_ptr<Policy> policy, SchedulerConfig config = {});
  ~Scheduler() override;

  void start() override;
  void handle(Address from, Message&& msg) override;

  const std::vector<AllocationRecord>& records() const { return records_; }
  bool rm_connected() const { return rm_connected_; }

 private:
  struct Need {
    std::uint64_t cpus = 0;
    std::uint32_t nodes = 0;  // whole nodes asked for (PMIX_ALLOC_NUM_NODES)
  };
  struct Origin {
    Address address;
    std::uint64_t id = 0;
    std::string corr;
  };
  struct Queued {
    QueuedRequest view;
    Origin origin;
    Proc requestor;
    std::string req_id;
    Need need;
    double time_limit = 0;
    InfoList apps_and_job;                     // PMIX_SESSION_APP / PMIX_SESSION_JOB carried into the instantiation
    std::optional<std::uint32_t> inheritance;  // PMIX_ALLOC_INHERITANCE, passed on to the RM
    InfoList passed_on;                        // PMIX_ALLOC_CHILD_SEP, PMIX_SESSION_SEP: the RM's business
    std::size_t record = 0;
    bool answered = false;  // requeued after preemption: the requestor already has its answer
  };
  struct Live {
    std::uint32_t session_id = 0;
    Proc owner;
    std::vector<std::pair<NodeId, std::uint32_t>> nodes;
    RunningAllocation view;  // view.ending: its session is being terminated to make room
    std::size_t record = 0;
    bool instantiated = false;
    std::optional<Queued> requeue;  // a preemptible grant: the request as it was queued
  };
  enum class CallKind { Instantiate, Terminate, Extend, OnBehalf, Preempt };
  struct Outstanding {
    CallKind kind;
    std::string alloc_id;
    Origin origin;                                        // the request this call serves
    std::vector<std::pair<NodeId, std::uint32_t>> added;  // EXTEND: nodes being added
    double new_limit = 0;
    std::uint64_t group = 0;  // OnBehalf: the forwarded session control it is part of
    bool requeued = false;    // Instantiate of a requeued request: nobody waits for an answer
  };
  // A requestor's session control, decided here and carried out by the RM session by session.
  struct Decision {
    Origin origin;
    std::size_t left = 0;
    Status status = Status::Success;
  };
  class View;

  void on_alloc_request(Address from, AllocRequest&& req);
  void on_new(Address from, AllocRequest&& req, const Proc& requestor);
  void on_extend(Address from, AllocRequest&& req, const Proc& requestor);
  void on_release(Address from, AllocRequest&& req, const Proc& requestor);
  void on_cancel(Address from, AllocRequest&& req, const Proc& requestor);
  void on_session_ctrl(Address from, SessionCtrlRequest&& req);
  void on_session_ctrl_response(SessionCtrlResponse&& resp);
  void on_complete(Address from, SessionCtrlRequest&& req);
  void decide_session_ctrl(Address from, SessionCtrlRequest&& req);
  void answer_ctrl(const Origin& origin, Status status);
  void node_down(const std::string& name);
  void on_peer_lost(Address peer);

  void schedule();
  void grant(Queued&& q);
  void preempt(const std::vector<std::uint64_t>& keys);
  void enqueue(Queued&& q);
  std::optional<int> queue_priority(const InfoList& info) const;
  std::optional<Need> parse_need(const InfoList& info, Status& why) const;
  bool fits(const Need& need) const;
  std::vector<std::pair<NodeId, std::uint32_t>> take(const Need& need);
  void give_back(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes);
  void use_slots(NodeId n, std::uint32_t slots);
  std::string node_list(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes) const;
  void answer(const Origin& origin, Status status, InfoList info = {});
  std::uint64_t call_rm(std::uint32_t session_id, InfoList directives, const std::string& corr, Outstanding out);
  Live* find_alloc(const InfoList& info, std::string* alloc_id);

  Env& env_;
  const Cluster& cluster_;
  std::unique_ptr<Policy> policy_;
  SchedulerConfig config_;
  bool rm_connected_ = false;
  std::uint64_t next_key_ = 1;
  std::uint64_t next_call_ = 1;
  std::uint32_t next_session_ = 1;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t free_total_ = 0;
  std::uint64_t total_ = 0;
  std::uint32_t schedulable_nodes_ = 0;
  std::uint32_t whole_free_nodes_ = 0;  // nodes with every slot free
  std::uint64_t whole_free_slots_ = 0;  // their slots
  std::vector<Queued> queue_;           // queue order: arrival
  std::vector<QueuedRequest> queue_view_;
  std::map<std::string, Live> live_;  // by alloc id
  std::vector<RunningAllocation> running_view_;
  std::map<std::uint64_t, Outstanding> outstanding_;
  std::map<std::uint64_t, Decision> decisions_;
  std::vector<bool> down_;         // nodes reported down (PMIX_EVENT_NODE_DOWN)
  std::map<Address, Proc> tools_;  // requestors attached here directly
  std::vector<AllocationRecord> records_;
};

}  // namespace pmixflow
