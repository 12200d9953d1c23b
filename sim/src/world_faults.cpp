// Failure injection in the simulated world (docs/flow.md §2.11): an actor of the world's own
// carries out each fault at its time, or when its trigger fires, as the hardware or an
// operator would act. The parties learn of it as they would of the real thing: a broken
// connection, a daemon that reports in, a scheduler that does not answer.
#include <utility>

#include "pmixflow/sim/world.hpp"
#include "world_internal.hpp"

namespace pmixflow::sim {

void World::inject(const FaultAt& f) {
  if (!f.when) return queue_fault(f.at, f);
  triggered_.push_back(f);
}

void World::queue_fault(double at, const FaultAt& f) {
  if (!faults_) faults_ = std::make_unique<FaultQueue>();
  work_added();  // a fault still to come keeps the run going
  faults_->due.emplace(at, f);
  faults_->wake->release();
}

void World::start_faults() {
  // Triggers watch the run's own events: the log says what happened, in order.
  if (!triggered_.empty() && log_) {
    std::vector<FaultTrigger> triggers;
    for (const auto& f : triggered_) triggers.push_back(*f.when);
    // Fired while a party logs, in the middle of what it is doing: queued only once that step
    // is over (release_fired), so that a fault never cuts a role's handler in two - waking the
    // fault actor is a simcall, which would let it run at once.
    triggers_ = std::make_unique<FaultTriggers>(
        std::move(triggers), [this](std::size_t i, double t) { fired_.emplace_back(t + triggered_[i].at, i); });
    log_->attach(*triggers_);
  }
  // A run with no fault to carry out, now or on a trigger, has no fault actor.
  if (!faults_ && triggered_.empty()) return;
  if (!faults_) faults_ = std::make_unique<FaultQueue>();
  sg4::Actor::create("faults", machine_.login, [this] { faults_main(); });
}

void World::release_fired() {
  for (const auto& [at, i] : std::exchange(fired_, {})) queue_fault(at, triggered_[i]);
}

void World::faults_main() {
  sg4::Actor::self()->daemonize();
  FaultQueue& q = *faults_;
  while (true) {
    if (q.due.empty()) {
      q.wake->acquire();
      continue;
    }
    const double wait = q.due.begin()->first - sg4::Engine::get_clock();
    if (wait > 0) {
      q.wake->acquire_timeout(wait);  // woken early: a triggered fault may now come first
      continue;
    }
    const FaultAt f = q.due.begin()->second;
    q.due.erase(q.due.begin());
    if (!failure_) carry_out(f, *this);
    release_fired();
    work_done();
  }
}

void World::fail_node(NodeId node) {
  if (!dead_nodes_.insert(node).second) return;
  log(*find(Address::controller()), ev::NodeFail{.node = cluster_.node(node).name});
  kill_daemon(node);
}

void World::kill_daemon(NodeId node) {
  Party* controller = find(Address::controller());
  if (!dead_nodes_.count(node)) log(*controller, ev::DaemonFail{.node = cluster_.node(node).name});
  Party* daemon = node < daemons_.size() ? daemons_[node].get() : nullptr;
  if (!daemon || !daemon->listening) return;  // no daemon there: nobody notices until one is launched
  if (!daemon->up) {
    failing_starts_.insert(node);  // still starting: it never reports in
    return;
  }
  // The daemon and its processes die: nothing it had armed happens, what is sent to it is
  // refused, and every connection it had breaks - the controller's first, which is how the
  // controller learns of it. A call waiting in the daemon is answered by the tool's own
  // library (PMIX_ERR_UNREACH), as a real tool whose server dies sees it.
  daemon->up = false;
  daemon->listening = false;
  daemon->env->clear_role_timers();
  refuse_early(*daemon);
  lost_daemons_.insert(node);
  break_connections(*daemon, nullptr);
  // Its actor may be waiting for a timer of the dead process (a job's end): woken now, it sees
  // the daemon gone and ends. Otherwise it would wake after a repair and serve the node's new
  // daemon beside that daemon's own actor, both receiving into one slot.
  if (daemon->serving && !daemon->parked) {
    auto* stop = new Envelope;
    stop->stop = true;
    ++daemon->on_its_way;
    daemon->mailbox->put_init(stop, 0)->detach(delete_envelope);
  }
}

void World::return_node(NodeId node) {
  if (!dead_nodes_.erase(node)) return;
  log(*find(Address::controller()), ev::NodeReturn{.node = cluster_.node(node).name});
  // A node that had a daemon in the DVM gets it back, as PRRTE's --add-host would; a node
  // that had none is simply usable again when a daemon is next launched there.
  if (lost_daemons_.count(node)) restart_daemon(node);
}

void World::restart_daemon(NodeId node) {
  if (dead_nodes_.count(node) || !lost_daemons_.erase(node)) return;
  log(*find(Address::controller()), ev::DaemonRestart{.node = cluster_.node(node).name});
  start_daemon(node);  // it reports in to the controller unasked
}

void World::stall_scheduler(double lasting) {
  Party* scheduler = find(Address::scheduler());
  // A detached scheduler has no process to stall (a triggered stall may find it so; a timed one
  // is refused at input), as in the emulator, where there is none to stop.
  if (!scheduler || !scheduler->up) return;
  const double until = sg4::Engine::get_clock() + lasting;
  scheduler->stalled_until = std::max(scheduler->stalled_until, until);
  log(*scheduler, ev::SchedulerStall{.until = scheduler->stalled_until});
}

bool World::hold_while_stalled(Party& p) {
  bool held = false;
  // A stalled process handles nothing; what reaches it meanwhile waits in its socket. Its life
  // goes on: a detach due meanwhile ends it at its time (as the emulator's SIGKILL ends a stopped
  // process), and the party, down, is no longer stalled (go_down).
  while (p.stalled_until > sg4::Engine::get_clock()) {
    held = true;
    sg4::this_actor::sleep_until(std::min(p.stalled_until, p.env->next_transition()));
    p.env->fire_transitions_due();
  }
  return held;
}

}  // namespace pmixflow::sim
