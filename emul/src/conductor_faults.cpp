// Failure injection on real processes (docs/flow.md §2.11): a node's or a daemon's death is
// its daemon's process killed (its jobs die with it: parent-death signal), a repair is a new
// daemon process that reports in unasked, and a stalled scheduler is its process stopped
// (SIGSTOP) and continued. Faults triggered by what happens watch the merged log.
#include <signal.h>

#include "conductor.hpp"

namespace pmixflow::emul {

void Conductor::arm_faults() {
  std::vector<FaultTrigger> triggers;
  for (const auto& f : deployment_.faults) {
    if (!f.when) {
      at(f.at, [this, f] { carry_out(f, *this); });
      continue;
    }
    triggered_.push_back(f);
    triggers.push_back(*f.when);
  }
  if (triggers.empty()) return;
  // Fed each event as it arrives from its party (record()), not as the merged log is written
  // a little later: a party's events arrive in its own order, which is all a trigger counts on.
  triggers_ = std::make_unique<FaultTriggers>(std::move(triggers), [this](std::size_t i, double t) {
    const FaultAt f = triggered_[i];
    at(t + f.at, [this, f] { carry_out(f, *this); });  // a fault due already happens at once
  });
}

void Conductor::record(log::DecodedEvent e) {
  // Once the flow is found over, what the parties do as they are stopped is not the flow's: a
  // controller answering PMIX_ERR_UNREACH as its scheduler goes would answer a call the run has
  // already said waits (stalled), and be counted answered.
  if ((ending_ == Ending::Quiet || ending_ == Ending::Stalled) && e.view().t > settled_at_) return;
  if (triggers_) triggers_->event(e.view());
  note_calls(e.view());
  merge_.add(std::move(e));
}

void Conductor::note_calls(const log::EventView& v) {
  // The calls in flight, as the requestors log them: what a run cut by a death leaves unanswered.
  if (v.kind != log::EventKind::Call && v.kind != log::EventKind::Answer) return;
  const auto corr = v.str(log::Field::corr);
  if (!corr) return;
  if (v.kind == log::EventKind::Call)
    open_calls_[std::string(*corr)] = std::string(v.who);
  else
    open_calls_.erase(std::string(*corr));
}

void Conductor::fail_node(NodeId node) {
  if (!dead_nodes_.insert(node).second) return;
  // Logged here, as the controller's (the environment's event, as the simulator writes it),
  // before the kill: the controller's own view of the death is its lost link to the daemon,
  // and a requestor answered PMIX_ERR_UNREACH by its broken line must not log that first.
  log_as("controller", ev::NodeFail{.node = cluster_.node(node).name});
  kill_daemon(node);
}

void Conductor::kill_daemon(NodeId node) {
  if (!dead_nodes_.count(node)) log_as("controller", ev::DaemonFail{.node = cluster_.node(node).name});
  Party* d = find(Address::daemon(node));
  if (!d || d->killed || d->exited) return;
  if (!d->went) {
    failing_starts_.insert(node);  // started ahead and not launched yet: its launch is to fail
    return;
  }
  d->killed = true;
  lost_daemons_.insert(node);
  signal_child(d->child.pid, SIGKILL);  // its jobs die with it (parent-death signal)
}

void Conductor::return_node(NodeId node) {
  if (!dead_nodes_.erase(node)) return;
  log_as("controller", ev::NodeReturn{.node = cluster_.node(node).name});
  if (lost_daemons_.count(node)) restart_daemon(node);
}

void Conductor::restart_daemon(NodeId node) {
  if (dead_nodes_.count(node) || !lost_daemons_.erase(node)) return;
  log_as("controller", ev::DaemonRestart{.node = cluster_.node(node).name});
  Party* d = find(Address::daemon(node));
  // A daemon the controller has launched there meanwhile is the node's: nothing to restart (as
  // the simulator's World::start_daemon() leaves a listening daemon be).
  if (d && d->went && !d->killed && !d->exited) return;
  // Its predecessor may not be gone yet: the new one starts once it has, so that the
  // controller hears of the loss before it meets the new daemon. Either way it is started as
  // any daemon is, so a fault on the node's next start (slow, failing) applies to it too, as
  // in the simulator.
  if (d && d->killed && !d->exited)
    d->up_again = true;
  else
    start_daemon(node);
}

void Conductor::stall_scheduler(double lasting) {
  Party* s = find(Address::scheduler());
  if (!s || s->killed || s->exited) return;
  const double until = clock_.now() + lasting;
  log_as("scheduler", ev::SchedulerStall{.until = until});
  signal_child(s->child.pid, SIGSTOP);
  const pid_t pid = s->child.pid;
  const std::uint64_t serial = s->serial;
  at(until, [this, pid, serial] {
    // Continued only if it is still the same process (not killed and replaced meanwhile).
    if (Party* now = find(Address::scheduler()); now && now->serial == serial && !now->exited)
      signal_child(pid, SIGCONT);
  });
}

}  // namespace pmixflow::emul
