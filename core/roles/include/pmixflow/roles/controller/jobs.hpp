// The jobs the controller runs: how a job is mapped onto slots (by slot, PRRTE's default),
// launched on the daemons hosting its processes once the launch fence allows, started when all
// of them have, signalled, and ended when the last has - reported to the JobEvents listener.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmixflow/model/node_slots.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/job_lineage.hpp"

namespace pmixflow {

enum class JobState { Fenced, Launching, Running, Ended };

// A time limit a spawn gave its job, and its timer while armed. 0 s: none (PMIx's meaning of
// 0; PRRTE would arm a timer of 0 s).
struct JobLimit {
  double seconds = 0;
  TimerId timer = 0;
};

// What a node-ordered list (each node once) gives node `n`: 0 when it names it not.
std::uint32_t count_on(const SlotList& by_node, NodeId n);

struct Job {
  std::string nspace;
  std::uint32_t session = 0;  // 0: launched into the DVM's general pool
  std::vector<App> apps;
  SlotList placement;                 // node, procs
  std::vector<std::uint32_t> counts;  // each app's processes as mapped (an app asking none gets every slot)
  // The same by node (ascending, each node once): a daemon's report finds the ranks of its
  // node without a walk over every node of the job (a job on k nodes hears k reports).
  SlotList by_node;
  std::uint32_t procs_on(NodeId n) const { return count_on(by_node, n); }
  JobState state = JobState::Fenced;
  std::uint32_t started = 0;
  bool ran = false;  // a rank started somewhere
  std::uint32_t ended = 0;
  // How it is ending: set by the first thing that ends it (an order, a time limit, a failed rank,
  // a lost node); later orders leave it. A lost node replaces it unless a failure came first
  // (`aborted`).
  Status status = Status::Success;
  bool ending() const { return status != Status::Success; }
  // Ending by a failure (a rank's abnormal end, a lost node), not by an order: PRRTE's
  // PRTE_JOB_FLAG_ABORTED, which keeps even a lost node from changing the job's end.
  bool aborted = false;
  std::string corr;
  // Stopped by PMIX_SESSION_PAUSE or PREEMPT. One state, as PRRTE's PRTE_JOB_FLAG_SUSPENDED:
  // whichever stopped it, RESUME and RESTORE both continue it (docs/prrte-conformance.md).
  bool suspended = false;
  SessionOp stopped_by = SessionOp::Pause;  // for the log: the directive that stopped it
  std::optional<std::uint64_t> spawn;       // the PMIx_Spawn it answers, until it started
  std::set<NodeId> running_on;              // nodes whose ranks started (the job holds slots from mapping)
  std::set<NodeId> ended_on;                // nodes whose daemon has reported its ranks' end
  std::set<NodeId> released_on;             // nodes that left the DVM by a release: their ranks ended then
  // More processes than its session's slots: it waits like any job, then fails in mapping
  // (MAP_FAILED), as PRRTE checks nothing before (docs/prrte-conformance.md S72, J12).
  bool unmappable = false;
  // A fresh grant's job mapped onto less than was granted, other jobs still holding the rest
  // (J26): mapped again as the fence lifts, when PRRTE would first map it.
  bool held_back = false;
  // Both counted from when the job is set up (before it waits behind the fence), as PRRTE's
  // prte_plm_base_setup_job() arms them. PMIX_JOB_TIMEOUT: how long the job may exist.
  // PMIX_SPAWN_TIMEOUT (or PMIX_TIMEOUT): how long its processes may take to start.
  JobLimit run_limit;
  JobLimit launch_limit;
  // PMIX_SPAWN_CHILD_SEP given false: killed when the job that spawned it ends.
  bool ends_with_parent = false;
  std::vector<std::string> children;  // the jobs its processes spawned, as PRRTE's jdata->children
};

// What is left of a job once it has ended.
struct EndedJob {
  std::string nspace;
  std::uint32_t session = 0;
  Status status = Status::Success;     // how it ended (prrte_term_status() converts it for the COMPLETE)
  std::optional<std::uint64_t> spawn;  // the PMIx_Spawn it was to answer, had it started
};

class JobEvents {
 public:
  virtual ~JobEvents() = default;
  virtual void job_started(Job& job) = 0;
  virtual void job_ended(const EndedJob& job) = 0;
};

class Jobs {
 public:
  Jobs(Env& env, const Cluster& cluster, Dvm& dvm, JobEvents& events)
      : env_(env), cluster_(cluster), dvm_(dvm), events_(events) {}

  // Places the job's processes by slot over `slots`, in order; false when they do not fit
  // (a job never oversubscribes what it was given).
  static bool map(Job& job, const SlotList& slots);
  // Takes the slots it was mapped onto, and arms its limits.
  Job& add(Job job);
  Job* find(const std::string& nspace);
  bool has(const std::string& nspace) const { return jobs_.count(nspace) != 0; }
  std::string next_pool_nspace() { return "job-dvm." + std::to_string(++pool_jobs_); }
  // The session a process runs in (0: none): a requestor is inside a session when it is a
  // process of one of its jobs.
  std::uint32_t session_of(const Proc& p) const;
  // A process of job `parent` spawned `child`.
  void spawned_by(const std::string& child, const std::string& parent);
  // `nspace` and the jobs that spawned it, nearest first.
  std::vector<std::string> ancestry(const std::string& nspace) const { return lineage_.ancestry(nspace); }
  // Whether a live job, or a job that spawned it, is one `in_line` names.
  bool any_live_in_line(const std::function<bool(const std::string&)>& in_line) const;
  // Processes of these jobs, node by node, in node order.
  SlotList procs_by_node(const std::vector<std::string>& nspaces) const;
  // A held job mapped again, as PRRTE resets a held job's map: `unmap` gives back what its map
  // held, `map_held` maps its apps as asked onto `slots` and takes them.
  void unmap(Job& job);
  bool map_held(Job& job, const SlotList& slots);

  // While the DVM changes size, new jobs wait before mapping: the launch fence (FLOW.md §5).
  void start_or_fence(Job& job, bool growing);
  void launch_fenced(const std::deque<std::string>& fenced);
  // A change of the DVM failed: the jobs held behind the fence end without launching.
  void fail_fenced(const std::deque<std::string>& fenced);
  void on_started(const ProcsStarted& m);

  void on_ended(const ProcsEnded& m);

  // Stopped (SIGSTOP) by `by` (PAUSE or PREEMPT), or continued (SIGCONT); never signalled
  // twice for the same state: false when the job already was in it.
  bool set_suspended(Job& job, bool suspend, SessionOp by);
  void signal(const Job& job, int signal);
  // Ends the job with `reason`: a fenced job at once, a launched one by continuing and killing
  // its processes.
  void terminate(Job& job, Status reason);
  // Ends the job now, before any of its processes exist (it waited behind the fence).
  void end_unlaunched(Job& job, Status status);
  // The node died: every job with ranks there is aborted.
  void abort_on(NodeId node);
  // The node left the DVM by a release (PRRTE's release_node_procs()): the ranks there ended,
  // terminated in order, not failed; a job ends cleanly with its last rank.
  void release_on(NodeId node);

 private:
  void launch(Job& job);
  void end(Job& job);
  // Kills a parent's children by order: as PRRTE's check_complete_resume() as it ends, those
  // spawned with PMIX_SPAWN_CHILD_SEP false (`only_tied`); as its job_timeout_cb(), all.
  void kill_children(const std::string& parent, const std::vector<std::string>& children, bool only_tied);
  void timed_out(const std::string& nspace);
  void launch_timed_out(const std::string& nspace);
  void cancel(JobLimit& limit);
  // The slots of its map, taken on the DVM's nodes as it is mapped, given back as it ends.
  void hold(const Job& job);
  void give_back(const Job& job);
  // One more of the job's nodes has its ranks started: the job runs once all have.
  void count_started(Job& job);
  // The ranks on one node ended (reported, or released with the node).
  void ranks_ended(Job& job, const ProcsEnded& m);
  // To every node holding the job's ranks, but `except` and the nodes released from the DVM.
  void send_to_ranks(const Job& job, const Message& msg, std::optional<NodeId> except = std::nullopt);

  Env& env_;
  const Cluster& cluster_;
  Dvm& dvm_;
  JobEvents& events_;
  std::unordered_map<std::string, Job> jobs_;
  JobLineage lineage_;
  std::uint32_t pool_jobs_ = 0;
};

}  // namespace pmixflow
