// The DVM master / system controller (PRRTE's prte, the HNP). Transport for ordinary
// allocation requests (it adds PMIX_REQUESTOR and forwards to the scheduler, then carries
// the answer back); owner of the DVM's nodes, sessions and jobs, which it changes only when
// the scheduler says so through session control (FLOW.md §§2-4).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"

namespace pmixflow {

// What happens to requests that need a scheduler while none is attached (FLOW.md §§2-3):
// held until one attaches, refused, or served from the DVM's own pool (PRRTE's ras/hosts).
enum class NoSchedulerMode { Hold, Refuse, Serve };

struct ControllerConfig {
  bool connect_to_scheduler = true;  // look for a scheduler at start-up (optional connection)
  NoSchedulerMode no_scheduler = NoSchedulerMode::Hold;
  std::vector<NodeId> initial_dvm;  // nodes given a daemon at start-up, besides the head node
};

enum class DaemonState : std::uint8_t { None, Starting, Up, Failed };
std::string_view daemon_state_name(DaemonState s);

class Controller final : public Role {
 public:
  Controller(Env& env, const Cluster& cluster, ControllerConfig config = {});

  void start() override;
  void handle(Address from, Message&& msg) override;

  bool scheduler_attached() const { return scheduler_attached_; }
  DaemonState daemon_state(NodeId n) const { return nodes_.at(n).daemon; }
  std::size_t session_count() const { return sessions_.size(); }

 private:
  struct Origin {
    Address address;
    std::uint64_t id = 0;
    std::string corr;
  };
  struct NodeState {
    DaemonState daemon = DaemonState::None;
    std::vector<std::uint32_t> sessions;  // sessions holding slots here (nodes may be shared)
    std::uint32_t procs = 0;              // local processes running
  };
  enum class JobState { Fenced, Launching, Running, Ended };
  struct Job {
    std::string nspace;
    std::uint32_t session = 0;  // 0: launched into the DVM's general pool
    std::vector<App> apps;
    std::vector<std::pair<NodeId, std::uint32_t>> placement;  // node, procs
    JobState state = JobState::Fenced;
    std::uint32_t started = 0;
    std::uint32_t ended = 0;
    Status status = Status::Success;
    std::string corr;
    bool paused = false;                 // by PMIX_SESSION_PAUSE
    bool preempted = false;              // by PMIX_SESSION_PREEMPT; stopped while either holds
    std::optional<std::uint64_t> spawn;  // the PMIx_Spawn it answers
    std::set<NodeId> running_on;         // nodes whose ranks started and hold slots
  };
  struct Session {
    std::uint32_t id = 0;
    std::string alloc_id;
    std::string req_id;
    std::string corr;
    Proc owner;
    bool by_scheduler = false;
    bool has_apps = false;  // reclaimed when its last job ends (else a standing reservation)
    bool terminating = false;
    // PMIX_SESSION_SEP as given: true detaches it (from its owner, and from a parent);
    // false ties it to its owner's lifetime. Unset: detached, but a child ends with its parent.
    std::optional<bool> sep;
    std::uint32_t parent = 0;  // the session its requestor runs in (0: none)
    bool child_sep = false;    // PMIX_ALLOC_CHILD_SEP: outlives its parent
    Inheritance inheritance = Inheritance::Default;
    std::vector<std::pair<NodeId, std::uint32_t>> nodes;  // node, slots
    double started = 0;                                   // when its time limit started counting
    bool clock_started = false;                           // with apps: once its first job started
    double time_limit = 0;                                // 0: none
    TimerId limit_timer = 0;
    std::vector<std::string> live_jobs;
    InfoList ended_jobs;                       // one PMIX_JOB_INFO_ARRAY per job, in the order they ended
    std::optional<Origin> instantiate_answer;  // answered once its job is launched
    std::vector<Origin> terminate_answers;     // answered once reclaimed
    std::uint32_t jobs_created = 0;
  };
  struct Forwarded {
    Origin origin;  // Address::controller(): the allocation of one of our own spawns
    MessageKind kind = MessageKind::AllocRequest;
  };
  // A PMIx_Spawn in progress: its allocation first (PMIX_SPAWN_ALLOC), then its job.
  struct Spawn {
    Origin origin;
    SpawnRequest request;
    std::string alloc_id;  // granted for it; released again if the launch fails
    std::uint32_t session = 0;
    Status launch_error = Status::Success;
  };
  struct DvmChange {
    std::vector<Address> notify;  // who asked (ACTIVATE) and hears PMIX_DVM_IS_READY
    std::vector<NodeId> pending;
    std::vector<std::string> alloc_ids;  // named by the ready event (FLOW.md §5)
    std::vector<std::string> req_ids;
    std::string corr;
    bool failed = false;
  };

  // Transport (FLOW.md §2)
  void on_alloc_request(Address from, AllocRequest&& req);
  void forward_to_scheduler(Address from, Message&& msg);
  template <class Response>
  void carry_back(Response&& resp);
  void reply_alloc(const Origin& origin, Status status, InfoList info);
  void fail_forwarded(Status status);
  void attach_scheduler(std::string_view how);
  void detach_scheduler();
  void release_held();
  void serve_standalone(const Origin& origin, AllocRequest&& req);

  // Session control (FLOW.md §4)
  void on_session_ctrl(Address from, SessionCtrlRequest&& req);
  void execute(const Origin& origin, SessionCtrlRequest&& req, bool by_scheduler);
  Status instantiate(const Origin& origin, std::uint32_t id, const InfoList& directives);
  Status terminate(Session& s, const Origin* answer_to, Status reason);
  Status extend(Session& s, const InfoList& directives);
  Status stop_jobs(Session& s, const std::vector<std::string>& named, bool preempt, bool stop);
  Status signal_jobs(Session& s, const std::vector<std::string>& named, int signal);
  void set_stopped(Job& job, bool paused, bool preempted);
  void arm_limit(Session& s);
  void reclaim(Session& s);
  void end_dependents(const std::string& owner_nspace, std::uint32_t parent, Status reason);
  void answer(const Origin& origin, Status status, InfoList info = {});
  std::uint32_t session_of_requestor(const Proc& p) const;

  // PMIX_ALLOC_ACTIVATE (FLOW.md §5) and PMIx_Spawn with PMIX_SPAWN_ALLOC (FLOW.md §7)
  Status activate(const InfoList& info, const Proc& requestor, Address notify, const std::string& corr,
                  std::vector<NodeId>& nodes);
  void on_spawn(Address from, SpawnRequest&& req);
  void on_spawn_allocated(std::uint64_t spawn, Status status, const InfoList& info);
  void launch_spawn(std::uint64_t spawn, std::vector<std::pair<NodeId, std::uint32_t>> nodes, std::uint32_t session);
  void finish_spawn(std::uint64_t spawn, Status status, const std::string& nspace);
  void on_node_failed(NodeId node);

  // DVM and jobs (FLOW.md §6)
  bool grow_dvm(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes, const std::string& alloc_id,
                const std::string& corr, const std::string& req_id, Address notify = Address::controller());
  bool map_job(Job& job, const std::vector<std::pair<NodeId, std::uint32_t>>& slots);
  void start_or_fence(Job& job, bool growing);
  void on_daemon_ready(NodeId node);
  void on_daemon_failed(NodeId node);
  void finish_changes();
  void launch(Job& job);
  void on_procs_started(const ProcsStarted& m);
  void on_procs_ended(const ProcsEnded& m);
  void job_ended(Job& job);
  void log_node(NodeId n);

  Env& env_;
  const Cluster& cluster_;
  ControllerConfig config_;
  bool scheduler_attached_ = false;
  std::uint64_t next_id_ = 1;
  std::vector<NodeState> nodes_;
  std::map<std::uint32_t, Session> sessions_;
  std::unordered_map<std::string, Job> jobs_;
  std::deque<std::string> fenced_;  // jobs waiting for the DVM to finish changing size
  std::vector<DvmChange> changes_;
  std::map<std::uint64_t, Forwarded> forwarded_;
  std::map<std::uint64_t, Spawn> spawns_;
  std::map<Address, Proc> clients_;  // tools connected to the controller itself
  struct StandaloneAnswer {
    Origin origin;
    InfoList info;
  };
  std::map<std::uint32_t, StandaloneAnswer> standalone_answers_;  // by session: sent once launched
  std::uint32_t next_rm_session_ = 0x80000000u;                   // sessions the RM creates itself (standalone)
  std::uint32_t pool_jobs_ = 0;
  std::vector<std::pair<Address, Message>> held_;   // requests waiting for a scheduler
  std::vector<SessionCtrlRequest> held_completes_;  // COMPLETEs waiting for a scheduler
};

}  // namespace pmixflow
