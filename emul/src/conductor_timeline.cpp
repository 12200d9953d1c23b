// The scenario's timeline, for real: parties started and stopped at their times, nodes that
// die (their daemon's process killed), daemons that fail to start, and the daemons the
// controller asks for (the launcher's job, which PRRTE's plm does).
#include <signal.h>

#include <utility>

#include "conductor.hpp"

namespace pmixflow::emul {
namespace {

// Up to this many compute nodes (a scenario's machine), every one's daemon is started ahead
// (start()); a larger machine (a trace's) would spend processes on nodes it may never use.
constexpr std::size_t kWarmComputeNodes = 16;
// A requestor told to leave has this long (wall) to go by itself before it is killed.
constexpr auto kLeaveGrace = std::chrono::seconds(5);

}  // namespace

void Conductor::start(std::function<void()> up) {
  up_ = std::move(up);
  // Everything up at time 0 is started before the clock, and the clock starts once all of it is
  // ready: a process's start-up (exec, PMIx's own) is not part of the scenario's first instant.
  auto up_at_zero = [](const UpDown& s) { return !s.empty() && s.front().second && s.front().first <= 0; };
  // A party first up later is started now as well and told to go at its time: what the
  // scenario starts at t is a controller or a scheduler coming up, not a cold process's exec and
  // PMIx init, which take a loaded machine (a sanitizer build) longer than a scenario's gaps.
  // Until it goes, its server is listed nowhere (go()) and it does nothing.
  auto up_later = [](const UpDown& s) { return !s.empty() && s.front().second && s.front().first > 0; };
  auto start_now = [&](Address a, const UpDown& s) {
    if (up_at_zero(s)) spawn(a).go_when_ready = true;
    if (up_later(s)) spawn(a);
  };
  start_now(Address::controller(), deployment_.controller_schedule);
  start_now(Address::scheduler(), deployment_.scheduler_schedule);
  for (std::uint32_t i = 0; i < deployment_.requestors.size(); ++i)
    start_now(Address::requestor(i), deployment_.requestors[i].schedule);
  // Daemons are launched before the clock too, and wait for the controller's word: the
  // scenario's time 0 is a DVM being started, and a DVM growing later is daemons wiring up, not
  // processes being exec'd (the simulator charges a daemon's start 50 ms; a cold process here
  // takes as long as the machine makes it - seconds under the sanitizers - which is not the
  // flow's time). Every node's on a machine of up to kWarmComputeNodes; on a larger one only the
  // DVM the controller starts with, the others starting cold when it grows.
  std::vector<NodeId> warm;
  if (up_at_zero(deployment_.controller_schedule)) warm = deployment_.controller.initial_dvm;
  if (cluster_.size() - 1 <= kWarmComputeNodes) {
    warm.clear();
    for (NodeId n = 0; n < cluster_.size(); ++n)
      if (cluster_.node(n).schedulable && n != Cluster::kHead) warm.push_back(n);
  }
  if (cluster_.node(Cluster::kHead).schedulable) warm.push_back(Cluster::kHead);
  for (NodeId n : warm) spawn(Address::daemon(n));
  quiet_check_ = loop_.after(std::chrono::milliseconds(20), [this] { check_quiet(); });
}

// A daemon that left the DVM (told to, PMIX_ALLOC_INHERITANCE none) is replaced by one started
// ahead, as at the start: the DVM growing onto its node again is a daemon wiring up, not a
// process being exec'd.
void Conductor::warm_again(NodeId node) {
  if (ending_ != Ending::Running || cluster_.size() - 1 > kWarmComputeNodes || dead_nodes_.count(node)) return;
  // Without a controller there is nobody to wire up to: a daemon started now would only fail.
  if (Party* c = find(Address::controller()); !c || c->killed) return;
  if (!find(Address::daemon(node))) spawn(Address::daemon(node));
}

void Conductor::start_clock() {
  clock_.epoch = SteadyClock::now();
  clock_started_ = true;
  for (auto& [serial, p] : parties_)
    if (p->go_when_ready && !p->exited) go(*p);
  arm_timeline();
  if (up_) std::exchange(up_, {})();
}

void Conductor::arm_timeline() {
  auto arm = [this](Address a, const UpDown& schedule) {
    for (std::size_t i = 0; i < schedule.size(); ++i) {
      const auto [t, up] = schedule[i];
      if (i == 0 && up && t <= 0) continue;  // started with the clock
      at(t, [this, a, t = t, up = up] { up ? bring_up(a) : take_down(a, t); });
    }
  };
  arm(Address::controller(), deployment_.controller_schedule);
  arm(Address::scheduler(), deployment_.scheduler_schedule);
  for (std::uint32_t i = 0; i < deployment_.requestors.size(); ++i)
    arm(Address::requestor(i), deployment_.requestors[i].schedule);
  arm_faults();
}

void Conductor::at(double t, std::function<void()> fn) {
  ++timeline_pending_;
  loop_.at(clock_.wall_at(t), [this, fn = std::move(fn)] {
    --timeline_pending_;
    ++changes_;
    if (ending_ == Ending::Running) fn();
  });
}

void Conductor::bring_up(Address a) {
  if (Party* p = find(a)) {
    // Killed and not gone yet (a sanitized process can take a second to die): its successor
    // starts once it has, so that its peers hear of the loss before they meet the new one.
    if (p->killed) p->up_again = true;
    // Started ahead (start()): it goes now, or as soon as it is ready.
    else if (!p->went)
      p->ready ? go(*p) : void(p->go_when_ready = true);
    return;
  }
  spawn(a).go_when_ready = true;
}

void Conductor::take_down(Address a, double t) {
  Party* p = find(a);
  if (!p) return;
  p->killed = true;
  if (a.kind == PartyKind::Requestor && p->went && !p->leaving && p->link && p->link->open()) {
    // A requestor leaves by itself, after every call due before its exit (party_process.cpp),
    // and logs its own party.down; killed only if it has not gone after a while.
    p->leaving = true;
    send(*p, control::Leave{t});
    loop_.after(kLeaveGrace, [this, serial = p->serial] {
      Party* q = by_serial(serial);
      if (!q || q->exited) return;
      signal_child(q->child.pid, SIGKILL);
      if (!q->said_bye) log_as(q->name, ev::PartyDown{});
    });
    return;
  }
  signal_child(p->child.pid, SIGKILL);
  log_as(p->name, ev::PartyDown{});
}

void Conductor::start_daemon(NodeId node) {
  if (node >= cluster_.size()) return;
  if (const auto slow = slow_starts_.find(node); slow != slow_starts_.end()) {
    // Its launcher's start takes longer: the launch itself happens that much later.
    const double later = slow->second;
    slow_starts_.erase(slow);
    return at(clock_.now() + later, [this, node] { start_daemon(node); });
  }
  if (Party* d = find(Address::daemon(node)); d && !d->killed) {
    if (d->went || failing_starts_.count(node) || dead_nodes_.count(node)) {
      if (d->went) return;  // already there
      // Started ahead, but this launch is to fail: that process is not the one launched.
      d->killed = true;
      signal_child(d->child.pid, SIGKILL);
    } else {
      ++daemons_started_;
      d->ready ? go(*d) : void(d->go_when_ready = true);
      return;
    }
  }
  ++daemons_started_;
  if (dead_nodes_.count(node)) {
    // Nothing can start on a dead node: its launcher says so once it has tried.
    loop_.post([this, node] { daemon_start_failed(node); });
    return;
  }
  spawn(Address::daemon(node), failing_starts_.erase(node) > 0).go_when_ready = true;
}

void Conductor::daemon_start_failed(NodeId node) {
  const std::string name(directory_.name_of(Address::daemon(node)));
  log_as(name, ev::DaemonStartFailed{});
  if (Party* c = find(Address::controller())) send(*c, control::Inject{Address::daemon(node), DaemonStartFailed{node}});
}

}  // namespace pmixflow::emul
