// The DVM as the controller keeps it (FLOW.md §6): every node's daemon (none, starting, up,
// failed), the sessions holding it and its slots in use; the size changes under way,
// each ended by one PMIX_DVM_IS_READY (PMIX_ERR_DVM_MOD when a daemon failed) naming the
// allocations it served; and the launch fence that holds new jobs while the DVM changes size.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/model/node_slots.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/controller/scheduler_link.hpp"

namespace pmixflow {

// The allocation the DVM itself was started in (what `prte` inside a Slurm job holds): every
// compute node. It has an id like any other, so that an activation of its nodes is named by
// its ready event (FLOW.md §5) - the scheduler's own ids count sessions from 1.
inline constexpr std::string_view kDvmAllocId = "alloc-0";

enum class DaemonState : std::uint8_t { None, Starting, Up, Failed };
std::string_view daemon_state_name(DaemonState s);

struct NodeState {
  DaemonState daemon = DaemonState::None;
  std::vector<std::uint32_t> sessions;  // sessions holding slots here (nodes may be shared)
  std::uint32_t procs = 0;              // slots in use: processes of live jobs mapped here
};

// Who hears the event that ends a DVM change, as PRRTE's grow requesters (prte_plm_base_
// setup_virtual_machine(), docs/prrte-conformance.md R41): the requester of the session whose
// nodes it grows, or the caller of an ACTIVATE. Nobody for the initial bring-up, nor for a
// change no session or activation asked for.
struct GrowRequester {
  std::optional<Proc> proc;
  std::optional<Address> caller;

  static GrowRequester session(const Proc& requester) { return GrowRequester{requester, std::nullopt}; }
  static GrowRequester activation(Address caller) { return GrowRequester{std::nullopt, caller}; }
};

class Dvm {
 public:
  // Handed the jobs that waited behind the fence once the DVM stops changing size.
  using Settled = std::function<void(std::deque<std::string> fenced)>;

  Dvm(Env& env, const Cluster& cluster, SchedulerLink& link);
  // Hands the event ending a change to a session's requester, wherever it is connected.
  using RequesterEvent = std::function<void(const Proc& requester, const Notification& event)>;
  void on_requester_event(RequesterEvent f) { requester_event_ = std::move(f); }
  void on_settled(Settled f) { settled_ = std::move(f); }
  // Handed the jobs held behind the fence when a change fails: none of them may launch.
  void on_aborted(Settled f) { aborted_ = std::move(f); }
  // Handed each node a shrink takes out of the DVM as the shrink completes, before the node is
  // reset: what ran there ends.
  using Left = std::function<void(NodeId n)>;
  void on_left(Left f) { left_ = std::move(f); }
  // Handed each node a shrink takes out of the DVM as the shrink begins, while node(n) still
  // names the sessions holding it: they let it go.
  void on_leaving(Left f) { leaving_ = std::move(f); }

  // The head node is up (the controller is its daemon), the initial daemons start, and every
  // node's state is logged, those outside the DVM as well (FLOW.md §§6, 8).
  void start(const std::vector<NodeId>& initial);
  const NodeState& node(NodeId n) const { return nodes_.at(n); }

  // Starts a daemon on every node of `nodes` that has none. False when nothing needed to
  // start; its requester still hears PMIX_DVM_IS_READY then.
  bool grow(const SlotList& nodes, const std::string& alloc_id, const std::string& corr, const std::string& req_id,
            const GrowRequester& requester = {});
  void daemon_ready(NodeId n);
  void daemon_failed(NodeId n);
  // A node in the DVM died with its daemon and processes: true when jobs may have ranks there
  // (a daemon that was still starting fails its change instead).
  bool node_died(NodeId n);

  // A RELEASE by node list (PRRTE's shrink campaign): the daemons on `targets` are told to
  // leave and nothing more is mapped there; new jobs wait behind the launch fence until the
  // shrink completes, which its requester hears as PMIX_DVM_IS_READY. The sessions holding the
  // nodes are to let them go first (they are no longer listed as holding them).
  void shrink(const std::vector<NodeId>& targets, const std::string& corr, const std::string& req_id,
              const Proc& requester);

  // Daemons are being started: a RELEASE waits (PRRTE's prte_ras_base_dvm_is_growing()).
  bool growing() const { return !changes_.empty(); }
  // The DVM changes size, growing or shrinking: new jobs wait behind the launch fence.
  bool changing() const { return growing() || shrinking_ > 0; }
  void fence(const std::string& nspace) { fenced_.push_back(nspace); }
  void unfence(const std::string& nspace);

  void withhold(NodeId n, std::uint32_t session) { nodes_[n].sessions.push_back(session); }
  // The session lets the node go; without `keep_daemon` a node nobody else holds loses its
  // daemon (its nodes are handed back to the scheduler, inheritance NONE or CHILD).
  void release(NodeId n, std::uint32_t session, bool keep_daemon);
  void add_procs(NodeId n, std::uint32_t procs) { nodes_[n].procs += procs; }
  void remove_procs(NodeId n, std::uint32_t procs);
  // What node `n` has free: its slots, or as many as a grant gave it where that is more
  // (`n01:16`), less the slots in use there (PRRTE's slots - slots_inuse).
  std::uint32_t free_slots(NodeId n, std::uint32_t granted = 0) const;
  // The slots a spawn into the DVM's general pool may use: up, not withheld, not full.
  SlotList general_pool() const;

  void log_node(NodeId n);

 private:
  struct Change {
    std::optional<Proc> requester;  // its session's: hears PMIX_DVM_IS_READY or PMIX_ERR_DVM_MOD
    std::vector<Address> notify;    // where an ACTIVATE came from: hears them too
    // Daemons still to report: a set, as each of a large DVM's reports takes one out.
    std::unordered_set<NodeId> pending;
    std::vector<NodeId> targets;         // every daemon it started, to roll back if one fails
    std::vector<std::string> alloc_ids;  // named by the ready event (FLOW.md §5)
    std::vector<std::string> req_ids;
    std::string corr;
  };
  void report(const Change& change, Status code);
  void node_back(NodeId n);
  void roll_back(const Change& change, NodeId failed);
  void finish_changes();
  void shrunk(const Change& change);
  void lift_fence();

  Env& env_;
  const Cluster& cluster_;
  SchedulerLink& link_;
  Settled settled_;
  Settled aborted_;
  RequesterEvent requester_event_;
  Left left_;
  Left leaving_;
  std::vector<NodeState> nodes_;
  std::vector<Change> changes_;     // growths under way
  std::uint32_t shrinking_ = 0;     // shrinks under way
  std::deque<std::string> fenced_;  // jobs waiting for the DVM to finish changing size
};

}  // namespace pmixflow
