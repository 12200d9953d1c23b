// The world's daemons: launched over the network (as PRRTE's tree spawn does), failing to
// start when told to, and the node deaths that take them down.
#include <algorithm>
#include <utility>

#include "pmixflow/sim/world.hpp"
#include "world_internal.hpp"

namespace pmixflow::sim {

void World::start_daemon(NodeId node) {
  auto& slot = daemons_.at(node);
  if (slot && slot->listening) return;
  if (!slot) {
    slot = std::make_unique<Party>();
    slot->address = Address::daemon(node);
    slot->name = "daemon:" + cluster_.node(node).name;
    slot->host = node == Cluster::kHead ? machine_.head : machine_.compute.at(node - 1);
    slot->mailbox = sg4::Mailbox::by_name(slot->name);
    slot->env = std::make_unique<PartyEnv>(*this, *slot);
    slot->factory = [this, node](Env& env) { return daemon_factory_(env, node); };
  }
  if (slot->parked) {
    // The actor of its previous life (parked before the node died) serves it no more; it
    // ends when the cap on parked actors reaches it.
    slot->parked->party = nullptr;
    slot->parked = nullptr;
  }
  slot->role.reset();  // a restarted daemon starts afresh
  slot->listening = true;
  slot->transient = true;
  slot->serving = true;  // its launch below becomes its first server
  ++stats_.daemons_started;
  work_added();
  Party* p = slot.get();
  Party* parent = nullptr;
  // The controller's own node, when it runs jobs: the controller launches there itself, as
  // PRRTE's HNP does, with no launch over the network and no start-up to wait for.
  const bool local = node == Cluster::kHead;
  sg4::Host* from = local ? p->host : launcher_for(node, &parent);
  // No two daemons come up at the very same instant, as on a real machine: their reports
  // reach the controller one after another instead of as one burst.
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  double startup = local ? 0.0 : options_.daemon_startup_s * (1.0 + options_.jitter * u);
  if (const auto slow = slow_starts_.find(node); slow != slow_starts_.end()) {
    startup += slow->second;
    slow_starts_.erase(slow);
  }
  // Tree spawn: a daemon launches its children once it is up itself. Until then they wait
  // as a list, not as actors: a machine of 100,000 nodes starting holds no stack for each.
  if (parent && !parent->up && parent->listening) {
    parent->to_launch.push_back(Launch{p, startup});
    return;
  }
  launch(Launch{p, startup}, parent, from, local);
}

void World::launch(Launch l, Party* parent, sg4::Host* from, bool local) {
  sg4::Actor::create(l.daemon->name, l.daemon->host, [this, l, parent, from, local] {
    sg4::Actor::self()->daemonize();
    // A parent that never came up launches nothing: the launch fails, as PRRTE's does when a
    // daemon of the tree does not report in.
    const bool orphaned = parent && !parent->up;
    if (local || orphaned) return come_up(*l.daemon, orphaned);
    // The launch crosses the network from its launcher; then the daemon starts up (no actor
    // waits through that), wires up and reports in to the controller (a real message).
    sg4::Comm::sendto(from, l.daemon->host, options_.daemon_launch_bytes);
    awaken_at(sg4::Engine::get_clock() + l.startup, *l.daemon);
  });
}

void World::awaken_at(double when, Party& p) {
  if (!startups_) startups_ = std::make_unique<Startups>();
  Startups& s = *startups_;
  const bool sooner = s.due.empty() || when < s.due.begin()->first;
  s.due.emplace(when, &p);
  if (!s.running) {
    s.running = true;
    sg4::Actor::create("pmixflow-startups", machine_.head, [this] { startups_main(); });
  } else if (sooner) {
    s.wake->release();
  }
}

void World::startups_main() {
  sg4::Actor::self()->daemonize();
  Startups& s = *startups_;
  while (!s.due.empty()) {
    const double next = s.due.begin()->first;
    const double now = sg4::Engine::get_clock();
    if (next > now) {
      s.wake->acquire_timeout(next - now);  // or sooner, when a start-up ends earlier
      continue;
    }
    Party* p = s.due.begin()->second;
    s.due.erase(s.due.begin());
    sg4::Actor::create(p->name, p->host, [this, p] {
      sg4::Actor::self()->daemonize();
      come_up(*p, false);
    });
  }
  s.running = false;
}

void World::come_up(Party& p, bool orphaned) {
  const NodeId node = p.address.index;
  if (orphaned || dead_nodes_.count(node) || failing_starts_.erase(node)) {
    // The launch failed (the node is dead, or the daemon could not start): the launcher
    // reports it to the controller instead of a wire-up.
    p.listening = false;
    p.serving = false;
    log(p, ev::DaemonStartFailed{});
    send(p, Address::controller(), DaemonStartFailed{node});
    if (!fired_.empty()) release_fired();
    launch_children(p);  // they give up too
    work_done();
    return;
  }
  go_up(p);
  launch_children(p);
  work_done();
  serve_daemon(p);
}

void World::launch_children(Party& p) {
  for (const Launch& child : std::exchange(p.to_launch, {})) launch(child, &p, p.host, false);
}

sg4::Host* World::launcher_for(NodeId node, Party** parent) {
  const double now = sg4::Engine::get_clock();
  if (now != wave_time_) {
    wave_time_ = now;
    wave_.clear();
  }
  wave_.push_back(node);
  // Position i (from 1) in a radix tree rooted at the head node: parent (i - 1) / radix.
  const std::size_t i = wave_.size();
  const std::size_t radix = std::max<std::uint32_t>(1, options_.launch_radix);
  const std::size_t up = (i - 1) / radix;
  if (up == 0) return machine_.head;
  *parent = daemons_[wave_[up - 1]].get();
  return (*parent)->host;
}

}  // namespace pmixflow::sim
