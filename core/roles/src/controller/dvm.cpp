#include "pmixflow/roles/controller/dvm.hpp"

#include <algorithm>

namespace pmixflow {

std::string_view daemon_state_name(DaemonState s) {
  switch (s) {
    case DaemonState::None: return "none";
    case DaemonState::Starting: return "starting";
    case DaemonState::Up: return "up";
    case DaemonState::Failed: return "failed";
  }
  return "?";
}

Dvm::Dvm(Env& env, const Cluster& cluster, SchedulerLink& link)
    : env_(env), cluster_(cluster), link_(link), nodes_(cluster.size()) {}

void Dvm::start(const std::vector<NodeId>& initial) {
  nodes_[Cluster::kHead].daemon = DaemonState::Up;
  env_.log(ev::ControllerUp{.num_nodes = cluster_.size(), .alloc = kDvmAllocId});
  log_node(Cluster::kHead);
  // Its own node runs jobs as well: the controller's local launcher (PRRTE's HNP launches on
  // its node itself); the node is in the DVM from the start, whatever comes of it.
  if (cluster_.node(Cluster::kHead).schedulable) env_.start_daemon(Cluster::kHead);
  SlotList nodes;
  for (NodeId n : initial)
    if (n != Cluster::kHead) nodes.emplace_back(n, 0);
  grow(nodes, std::string(kDvmAllocId), "dvm-start", "");
  for (NodeId n = 1; n < cluster_.size(); ++n)
    if (nodes_[n].daemon == DaemonState::None) log_node(n);  // allocated, outside the DVM
}

void Dvm::report(const Change& change, Status code) {
  InfoList info;
  for (const auto& a : change.alloc_ids) info.add(key::ALLOC_ID, a);
  for (const auto& r : change.req_ids) info.add(key::ALLOC_REQ_ID, r);
  // The cause, as PRRTE's prte_plm_base_dvm_mod_notify() gives it: a daemon's own failure is not
  // passed down to it, so the cause is always the generic PMIX_ERROR.
  if (code == Status::ErrDvmMod) info.add(key::JOB_TERM_STATUS, Status::Error);
  const std::string requestor = change.requester ? to_string(*change.requester) : std::string();
  ev::DvmReady ready{.corr = change.corr, .code = code, .info = info};
  if (change.requester) ready.requestor = requestor;
  env_.log(ready);
  // As PRRTE's prte_plm_base_dvm_mod_notify(): to the change's requester alone, never to a
  // scheduler that did not ask (the initial bring-up reaches nobody).
  const Notification event{code, std::move(info), change.corr};
  for (Address to : change.notify) env_.send(to, event);
  if (change.requester && requester_event_) requester_event_(*change.requester, event);
}

bool Dvm::grow(const SlotList& nodes, const std::string& alloc_id, const std::string& corr, const std::string& req_id,
               const GrowRequester& requester) {
  Change change;
  change.corr = corr;
  if (!alloc_id.empty()) change.alloc_ids.push_back(alloc_id);
  if (!req_id.empty()) change.req_ids.push_back(req_id);
  change.requester = requester.proc;
  if (requester.caller) change.notify.push_back(*requester.caller);
  for (const auto& [n, k] : nodes) {
    if (nodes_[n].daemon == DaemonState::Up) continue;
    if (nodes_[n].daemon != DaemonState::Starting) {
      nodes_[n].daemon = DaemonState::Starting;
      env_.start_daemon(n);
      log_node(n);
    }
    change.pending.insert(n);
    change.targets.push_back(n);
  }
  if (change.pending.empty()) {
    // Nothing to start: the change is complete at once, and still reported, after the answer
    // that granted it (this handler sends that answer before any timer fires).
    if (!change.notify.empty() || change.requester)
      env_.after(0, [this, change = std::move(change)] { report(change, Status::DvmIsReady); });
    return false;
  }
  env_.log(ev::DvmGrow{.corr = corr, .num_daemons = change.pending.size(), .alloc = alloc_id});
  changes_.push_back(std::move(change));
  return true;
}

void Dvm::daemon_ready(NodeId n) {
  if (n >= nodes_.size()) return;
  const auto wanted = [&] {
    return std::any_of(changes_.begin(), changes_.end(), [n](const Change& c) { return c.pending.contains(n); });
  };
  if (nodes_[n].daemon == DaemonState::None && !wanted()) {
    // Started by a change that has since failed and been rolled back: it leaves again.
    env_.send(Address::daemon(n), DaemonShutdown{});
    return;
  }
  const bool lost = nodes_[n].daemon == DaemonState::Failed;
  nodes_[n].daemon = DaemonState::Up;
  log_node(n);
  if (lost) node_back(n);
  for (auto& c : changes_) c.pending.erase(n);
  finish_changes();
}

void Dvm::daemon_failed(NodeId n) {
  if (n >= nodes_.size()) return;
  nodes_[n].daemon = DaemonState::Failed;
  env_.log(ev::DaemonFailed{.node = cluster_.node(n).name});
  log_node(n);
  // As PRRTE's prte_plm_base_grow_target_failed(): the change this daemon was started for
  // fails at once, without waiting for its other daemons. It is rolled back out of the DVM,
  // its requesters hear PMIX_ERR_DVM_MOD, and every job held behind the fence fails, whichever
  // change it waited for. Other changes go on.
  bool failed = false;
  for (auto it = changes_.begin(); it != changes_.end();) {
    if (!it->pending.contains(n)) {
      ++it;
      continue;
    }
    roll_back(*it, n);
    report(*it, Status::ErrDvmMod);
    it = changes_.erase(it);
    failed = true;
  }
  if (failed && aborted_) aborted_(std::exchange(fenced_, {}));
  finish_changes();
}

void Dvm::roll_back(const Change& change, NodeId failed) {
  // PRRTE's grow_rollback(): the DVM is left as it was before the change. A daemon that came up
  // is sent away; one still starting is forgotten (and sent away if it reports in later).
  for (NodeId t : change.targets) {
    if (t == failed) continue;
    if (nodes_[t].daemon == DaemonState::Up) env_.send(Address::daemon(t), DaemonShutdown{});
    if (nodes_[t].daemon == DaemonState::Up || nodes_[t].daemon == DaemonState::Starting) {
      nodes_[t].daemon = DaemonState::None;
      log_node(t);
    }
  }
}

bool Dvm::node_died(NodeId n) {
  if (n >= nodes_.size() || n == Cluster::kHead || nodes_[n].daemon == DaemonState::Failed) return false;
  if (nodes_[n].daemon == DaemonState::Starting) {
    daemon_failed(n);
    return false;
  }
  nodes_[n].daemon = DaemonState::Failed;
  InfoList info;
  info.add(key::HOSTNAME, cluster_.node(n).name);
  env_.log(ev::NodeDown{.node = cluster_.node(n).name, .code = Status::EventNodeDown});
  log_node(n);
  link_.notify(Notification{Status::EventNodeDown, std::move(info), {}});
  return true;
}

void Dvm::node_back(NodeId n) {
  // A daemon reporting in unasked on a node whose daemon was lost: restarted there, or its node
  // repaired. The DVM grew by one node, which the scheduler hears as it hears every size
  // change; PMIx has no node-up event, and PMIX_HOSTNAME names the node as NODE_DOWN did.
  InfoList info;
  info.add(key::HOSTNAME, cluster_.node(n).name);
  env_.log(ev::NodeBack{.node = cluster_.node(n).name, .code = Status::DvmIsReady});
  link_.notify(Notification{Status::DvmIsReady, std::move(info), "node-back:" + cluster_.node(n).name});
}

void Dvm::finish_changes() {
  // Every size change ends with one event naming its allocations (FLOW.md §5).
  for (auto it = changes_.begin(); it != changes_.end();) {
    if (!it->pending.empty()) {
      ++it;
      continue;
    }
    report(*it, Status::DvmIsReady);
    it = changes_.erase(it);
  }
  lift_fence();
}

void Dvm::lift_fence() {
  // The launch fence lifts with the ready event of the last change under way.
  if (!changing() && settled_) settled_(std::exchange(fenced_, {}));
}

void Dvm::shrink(const std::vector<NodeId>& targets, const std::string& corr, const std::string& req_id,
                 const Proc& requester) {
  if (env_.wants<ev::DvmShrink>()) {
    SlotList nodes;
    for (NodeId n : targets) nodes.emplace_back(n, cluster_.node(n).slots);
    env_.log(
        ev::DvmShrink{.corr = corr, .num_daemons = targets.size(), .node_list = format_node_slots(nodes, cluster_)});
  }
  // Out of the DVM's usable set at once: PRRTE holds new jobs before mapping them until the
  // shrink completes, so none is mapped onto a leaving node; here a job is mapped as it is
  // asked for, so the leaving nodes stop counting now. The sessions holding them let them go
  // now too (PRRTE clears each node's session), and find no daemon to send away.
  for (NodeId n : targets) {
    if (nodes_[n].daemon == DaemonState::Up) env_.send(Address::daemon(n), DaemonShutdown{});
    nodes_[n].daemon = DaemonState::None;
    if (leaving_) leaving_(n);
    nodes_[n].sessions.clear();
    log_node(n);
  }
  Change change;
  change.corr = corr;
  change.requester = requester;
  if (!req_id.empty()) change.req_ids.push_back(req_id);
  change.targets = targets;
  ++shrinking_;
  // PRRTE completes the campaign once its broadcast has reached every daemon; that round trip
  // is not modelled: the shrink completes as soon as it is sent, after the RELEASE's answer.
  env_.after(0, [this, change = std::move(change)] { shrunk(change); });
}

void Dvm::shrunk(const Change& change) {
  // As PRRTE's shrink_campaign_complete(): what ran on the nodes is accounted for. Their daemon
  // and sessions were let go when the shrink began; a grow or a reservation that has taken
  // them up since keeps what it did.
  for (NodeId n : change.targets) {
    if (left_) left_(n);
    log_node(n);
  }
  --shrinking_;
  report(change, Status::DvmIsReady);
  lift_fence();
}

void Dvm::unfence(const std::string& nspace) { std::erase(fenced_, nspace); }

void Dvm::release(NodeId n, std::uint32_t session, bool keep_daemon) {
  std::erase(nodes_[n].sessions, session);
  // A node another session still holds keeps its daemon whatever this one's inheritance says.
  if (!keep_daemon && n != Cluster::kHead && nodes_[n].sessions.empty() && nodes_[n].daemon == DaemonState::Up) {
    env_.send(Address::daemon(n), DaemonShutdown{});
    nodes_[n].daemon = DaemonState::None;
  }
  log_node(n);
}

void Dvm::remove_procs(NodeId n, std::uint32_t procs) { nodes_[n].procs -= std::min(nodes_[n].procs, procs); }

std::uint32_t Dvm::free_slots(NodeId n, std::uint32_t granted) const {
  const std::uint32_t cap = std::max(cluster_.node(n).slots, granted);
  return cap - std::min(nodes_[n].procs, cap);
}

SlotList Dvm::general_pool() const {
  SlotList slots;
  for (NodeId n = 0; n < cluster_.size(); ++n)  // withheld nodes are only for their session's jobs
    if (cluster_.node(n).schedulable && nodes_[n].daemon == DaemonState::Up && nodes_[n].sessions.empty())
      if (const std::uint32_t free = free_slots(n)) slots.emplace_back(n, free);
  return slots;
}

void Dvm::log_node(NodeId n) {
  if (!env_.wants<ev::Node>()) return;
  const NodeState& st = nodes_[n];
  const char* use = st.procs > 0 ? "busy" : !st.sessions.empty() ? "withheld" : "free";
  std::string sessions = "[";
  for (std::size_t i = 0; i < st.sessions.size(); ++i) sessions += (i ? "," : "") + std::to_string(st.sessions[i]);
  sessions += ']';
  env_.log(ev::Node{
      .node = cluster_.node(n).name, .daemon = daemon_state_name(st.daemon), .use = use, .sessions = sessions});
}

}  // namespace pmixflow
