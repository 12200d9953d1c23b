#include "pmixflow/sim/world.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <queue>

#include <simgrid/s4u.hpp>

#include "pmixflow/proto/hop.hpp"
#include "pmixflow/sim/wire_size.hpp"

namespace sg4 = simgrid::s4u;

namespace pmixflow::sim {

// A message in transit. Like a TCP connection, each (sender, receiver) pair delivers in the
// order sent, though SimGrid may finish a small transfer before a larger one sent earlier:
// `seq` restores the order, and the incarnations tell a message sent on a connection that no
// longer exists (one end restarted since) from a current one.
struct Envelope {
  Address from;
  Message msg;
  std::uint64_t seq = 0;
  std::uint32_t from_incarnation = 0;
  std::uint32_t to_incarnation = 0;
};

namespace {

void delete_envelope(void* p) { delete static_cast<Envelope*>(p); }

// A party's state per connection, by the address at the other end. Looked up on every
// message: open addressing on a flat array, sized by the party's own connections (a daemon
// has a handful, the controller one per node), with no per-entry allocation.
template <class T>
class ConnectionTable {
 public:
  // The reference stays valid until an address new to the table is added.
  T& operator[](Address a) {
    const std::uint64_t key = key_of(a);
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == 0) {
        s.key = key;
        ++size_;
        return s.value;
      }
    }
  }
  void clear() {
    slots_.clear();
    size_ = 0;
    shift_ = 64;
  }
  // Every entry, in Address order: what is done for each connection is done in an order
  // that does not depend on the table's layout.
  std::vector<T*> in_order() {
    std::vector<Slot*> used;
    used.reserve(size_);
    for (auto& s : slots_)
      if (s.key != 0) used.push_back(&s);
    std::sort(used.begin(), used.end(), [](const Slot* a, const Slot* b) { return a->key < b->key; });
    std::vector<T*> out;
    out.reserve(used.size());
    for (Slot* s : used) out.push_back(&s->value);
    return out;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;  // 0: free
    T value{};
  };
  // Ordered as Address is (kind, then index), and never 0.
  static std::uint64_t key_of(Address a) { return (static_cast<std::uint64_t>(a.kind) << 32 | a.index) + 1; }
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 8 : 2 * old.size();
    slots_ = std::vector<Slot>(capacity);
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    for (auto& s : old) {
      if (s.key == 0) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key != 0) i = (i + 1) & (capacity - 1);
      slots_[i] = std::move(s);
    }
  }
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

bool is_notice(const Message& m) {
  return std::holds_alternative<Unreachable>(m) || std::holds_alternative<PeerLost>(m);
}

}  // namespace

// One party's view of the world: its clock, its timers, its sends.
class PartyEnv final : public Env {
 public:
  PartyEnv(World& world, World::Party& party) : world_(world), party_(party) {}

  double now() const override { return sg4::Engine::get_clock(); }
  Address self() const override;
  void send(Address to, Message msg) override;
  TimerId after(double delay, std::function<void()> fn) override { return arm(delay, std::move(fn), false); }
  void cancel(TimerId id) override {
    if (live_.erase(id)) world_.work_done();
  }
  bool wants(log::EventKind kind) const override { return world_.log_ && world_.log_->wants(kind); }
  bool idle() {
    drop_cancelled();
    return heap_.empty();
  }
  void record(const log::EventBuilder& e) override { world_.record(party_, e); }
  std::string_view name_of(Address a) const override { return world_.name_of(a); }
  void start_daemon(NodeId node) override { world_.start_daemon(node); }

  // `system` timers (the party's up/down schedule) survive the party going down.
  TimerId arm(double delay, std::function<void()> fn, bool system) {
    const TimerId id = next_id_++;
    heap_.push(Timer{now() + std::max(0.0, delay), id});
    live_.emplace(id, Armed{std::move(fn), system});
    world_.work_added();
    return id;
  }

  // Seconds until the next timer; -1 when none is armed (wait for messages only).
  double next_delay() {
    drop_cancelled();
    return heap_.empty() ? -1.0 : std::max(0.0, heap_.top().when - now());
  }

  // Fires the timer we waited for, then any other that is due at the same instant.
  void fire_due() {
    bool first = true;
    while (true) {
      drop_cancelled();
      if (heap_.empty() || (!first && heap_.top().when > now())) return;
      first = false;
      const TimerId id = heap_.top().id;
      heap_.pop();
      auto node = live_.extract(id);
      node.mapped().fn();
      world_.work_done();
    }
  }

  void clear_role_timers() {
    for (auto it = live_.begin(); it != live_.end();) {
      if (it->second.system) {
        ++it;
        continue;
      }
      it = live_.erase(it);
      world_.work_done();
    }
  }

 private:
  struct Timer {
    double when;
    TimerId id;  // ids grow, so equal times fire in the order they were armed
    bool operator>(const Timer& o) const { return when != o.when ? when > o.when : id > o.id; }
  };
  struct Armed {
    std::function<void()> fn;
    bool system;
  };
  void drop_cancelled() {
    while (!heap_.empty() && !live_.count(heap_.top().id)) heap_.pop();
  }

  World& world_;
  World::Party& party_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> heap_;
  std::unordered_map<TimerId, Armed> live_;
  TimerId next_id_ = 1;
};

// One connection into a party, from one sender.
struct World::Incoming {
  std::uint32_t incarnation = 0;  // of the sender
  std::uint64_t next = 0;
  std::map<std::uint64_t, std::unique_ptr<Envelope>> early;  // arrived ahead of their turn
  bool peer = false;  // a message of it was delivered: the connection breaks when we go down
  Address from;       // the sender, once `peer`
};

struct World::Party {
  Address address;
  std::string name;
  sg4::Host* host = nullptr;
  sg4::Mailbox* mailbox = nullptr;
  RoleFactory factory;
  std::unique_ptr<PartyEnv> env;  // declared before role: the role refers to it
  std::unique_ptr<Role> role;
  bool up = false;         // the process is running and answering
  bool listening = false;  // it receives (a down party still receives, to refuse)
  bool transient = false;  // its actor may go while idle (daemons)
  bool serving = false;    // an actor is receiving for it now
  Envelope* incoming = nullptr;
  sg4::ConditionVariablePtr came_up;  // daemons it launches wait for it (tree spawn)
  std::uint32_t incarnation = 0;      // grows each time the party (re)starts
  struct Outgoing {
    std::uint32_t incarnation = 0;  // of the receiver when the connection was made
    std::uint64_t next = 0;
  };
  ConnectionTable<Outgoing> outgoing;
  ConnectionTable<Incoming> incoming_from;
  Parked* parked = nullptr;  // its idle actor, while one waits parked
};

struct World::Quiescence {
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr cv = sg4::ConditionVariable::create();
};

// An idle daemon's actor waiting for the daemon's next message. It lives on that actor's stack.
struct World::Parked {
  sg4::SemaphorePtr go = sg4::Semaphore::create(0);
  Party* party = nullptr;  // null once a restarted daemon has an actor of its own
  std::list<Parked*>::iterator at;
  bool resume = false;  // false: the actor ends instead
};

Address PartyEnv::self() const { return party_.address; }
void PartyEnv::send(Address to, Message msg) { world_.send(party_, to, std::move(msg)); }

World::World(const Cluster& cluster, Machine machine, WorldOptions options, log::EventLog* log)
    : cluster_(cluster), machine_(std::move(machine)), options_(options), log_(log), random_(options.seed) {
  daemons_.resize(cluster_.size());
}

World::~World() = default;

void World::add_party(Address address, std::string name, sg4::Host* host, RoleFactory factory,
                      std::vector<std::pair<double, bool>> schedule) {
  auto p = std::make_unique<Party>();
  p->address = address;
  p->name = std::move(name);
  p->host = host;
  p->mailbox = sg4::Mailbox::by_name(p->name);
  p->factory = std::move(factory);
  p->env = std::make_unique<PartyEnv>(*this, *p);
  p->listening = true;
  for (const auto& [at, up] : schedule) {
    Party* party = p.get();
    p->env->arm(
        at, [this, party, up = up] { up ? go_up(*party) : go_down(*party); }, true);
  }
  if (address.kind == PartyKind::Requestor) {
    if (requestors_.size() <= address.index) requestors_.resize(address.index + 1, nullptr);
    requestors_[address.index] = p.get();
  }
  parties_.push_back(std::move(p));
}

void World::set_daemon_factory(std::function<std::unique_ptr<Role>(Env&, NodeId)> factory) {
  daemon_factory_ = std::move(factory);
}

void World::fail_node(double at, NodeId node) {
  // Carried out by the controller's actor: it is the party that notices the loss.
  Party* controller = find(Address::controller());
  controller->env->arm(
      at, [this, node] { kill_node(node); }, true);
}

void World::fail_next_daemon_start(double at, NodeId node) {
  Party* controller = find(Address::controller());
  controller->env->arm(
      at, [this, node] { failing_starts_.insert(node); }, true);
}

void World::kill_node(NodeId node) {
  if (!dead_nodes_.insert(node).second) return;
  Party* controller = find(Address::controller());
  log(*controller, ev::NodeFail{.node = cluster_.node(node).name});
  Party* daemon = node < daemons_.size() ? daemons_[node].get() : nullptr;
  if (!daemon || !daemon->listening) return;  // no daemon there: nobody notices until one is launched
  // The daemon and its processes die with the node: nothing it had armed happens, what is
  // sent to it is refused, and its connection to the controller breaks.
  daemon->up = false;
  daemon->listening = false;
  daemon->env->clear_role_timers();
  refuse_early(*daemon);
  deliver_now(*controller, daemon->address, PeerLost{daemon->address});
}

void World::deliver_now(Party& to, Address from, Message msg) {
  // A notice the environment itself raises (a refused connection, a broken one): handled by
  // the party at once, in its own actor, and logged as received.
  Party* party = &to;
  to.env->after(0, [this, party, from, msg = std::move(msg)]() mutable {
    log_recv(*party, from, msg);
    if (party->up) party->role->handle(from, std::move(msg));
  });
}

World::Party* World::find(Address a) const {
  if (a.kind == PartyKind::Daemon) return a.index < daemons_.size() ? daemons_[a.index].get() : nullptr;
  if (a.kind == PartyKind::Requestor) return a.index < requestors_.size() ? requestors_[a.index] : nullptr;
  for (const auto& p : parties_)
    if (p->address == a) return p.get();
  return nullptr;
}

std::string_view World::name_of(Address a) const {
  switch (a.kind) {
    case PartyKind::Controller: return "controller";
    case PartyKind::Scheduler: return "scheduler";
    case PartyKind::Daemon:
      if (const Party* p = find(a)) return p->name;
      return a.index < cluster_.size() ? std::string_view(cluster_.node(a.index).name) : "daemon:?";
    case PartyKind::Requestor:
      if (const Party* p = find(a)) return p->name;
      return "requestor:?";
  }
  return "?";
}

void World::record(const Party& p, const log::EventBuilder& e) {
  log_->write(e.view(sg4::Engine::get_clock(), p.name));
}

void World::log_recv(const Party& p, Address from, const Message& msg) {
  if (log_ && log_->wants(log::EventKind::Recv)) log(p, recv_event(name_of(from), msg, wire_size(msg)));
}

void World::work_done() {
  if (--pending_ == 0) quiet_->cv->notify_all();
}

void World::run() {
  quiet_ = std::make_unique<Quiescence>();
  for (auto& p : parties_) {
    Party* party = p.get();
    party->serving = true;
    sg4::Actor::create(p->name, p->host, [this, party] { party_main(*party); });
  }
  // The run ends when the flow is quiet: nothing in flight, no timer armed, no daemon starting.
  sg4::Actor::create("pmixflow-main", machine_.login, [this] {
    std::unique_lock lock(*quiet_->mutex);
    while (pending_ > 0) quiet_->cv->wait(lock);
  });
  sg4::Engine::get_instance()->run();
  stats_.end_time = sg4::Engine::get_clock();
}

void World::party_main(Party& p) {
  sg4::Actor::self()->daemonize();
  std::size_t cancelled = 0;
  serve(p, cancelled);
}

void World::serve(Party& p, std::size_t& cancelled) {
  // A permanent receiver, as a socket is: a message crosses the network as soon as it is
  // sent, concurrently with others, instead of waiting for the party to ask for the next one.
  p.mailbox->set_receiver(sg4::Actor::self());
  std::vector<sg4::CommPtr> receive;
  while (p.listening) {
    if (receive.empty()) {
      // An idle daemon lets its actor go (nothing armed, nothing on its way): an idle node
      // then costs no scheduling, and past --idle-actors no stack. The next message brings
      // the actor back (see serve_daemon).
      if (p.transient && p.env->idle() && p.mailbox->empty() && !p.mailbox->ready()) break;
      receive.push_back(p.mailbox->get_async<Envelope>(&p.incoming));
    }
    if (sg4::Comm::wait_any_for(receive, p.env->next_delay()) < 0) {
      p.env->fire_due();
      if (p.transient && p.env->idle()) {
        receive.front()->cancel();
        receive.clear();
        ++cancelled;
      }
      continue;
    }
    receive.clear();
    std::unique_ptr<Envelope> env(p.incoming);
    p.incoming = nullptr;
    accept(p, std::move(env));
  }
  if (!p.listening) {
    // Gone for good (a daemon that exited): whatever was already sent here is refused.
    while (!p.mailbox->empty() || p.mailbox->ready()) {
      std::unique_ptr<Envelope> owned(p.mailbox->get<Envelope>());
      bounce(p, owned->from, owned->msg);
      work_done();
    }
  }
  p.mailbox->set_receiver(nullptr);
  p.serving = false;
}

void World::accept(Party& p, std::unique_ptr<Envelope> env) {
  if (!p.up || env->to_incarnation != p.incarnation) {
    // Down, or sent to an earlier life of this party: that connection is gone.
    log_recv(p, env->from, env->msg);
    bounce(p, env->from, env->msg);
    work_done();
    return;
  }
  // Only accept() adds connections and only go_up() drops them, neither while a role handles
  // a message: `conn` stays valid through deliver().
  auto& conn = p.incoming_from[env->from];
  if (conn.incarnation != env->from_incarnation) conn = Incoming{env->from_incarnation, 0, {}, conn.peer, conn.from};
  if (env->seq != conn.next) {
    conn.early.emplace(env->seq, std::move(env));  // its predecessors are still on their way
    return;
  }
  deliver(p, conn, std::move(env));
  // Whatever was waiting for this one follows, in order.
  while (p.up && !conn.early.empty()) {
    auto next = conn.early.find(conn.next);
    if (next == conn.early.end()) break;
    auto ready = std::move(next->second);
    conn.early.erase(next);
    deliver(p, conn, std::move(ready));
  }
}

void World::deliver(Party& p, Incoming& conn, std::unique_ptr<Envelope> env) {
  ++conn.next;
  log_recv(p, env->from, env->msg);
  conn.peer = true;
  conn.from = env->from;
  const bool shutdown = std::holds_alternative<DaemonShutdown>(env->msg);
  p.role->handle(env->from, std::move(env->msg));
  if (shutdown) {
    p.up = false;
    p.listening = false;
    p.env->clear_role_timers();
    refuse_early(p);
  }
  work_done();
}

void World::wake(Party& p) {
  if (p.serving) return;
  p.serving = true;
  ++stats_.actor_wakeups;
  if (p.parked) {
    unpark(*p.parked, true);
    return;
  }
  Party* party = &p;
  sg4::Actor::create(p.name, p.host, [this, party] {
    sg4::Actor::self()->daemonize();
    serve_daemon(*party);
  });
}

void World::serve_daemon(Party& p) {
  // SimGrid 3.32 keeps each cancelled receive on its actor's list of activities, which every
  // later completion walks, for as long as the actor lives: an actor that has cancelled many
  // ends instead of parking, and the next wakeup starts a fresh one.
  constexpr std::size_t kRetireAfterCancels = 12;
  std::size_t cancelled = 0;
  Parked parked;
  while (true) {
    serve(p, cancelled);
    if (!p.listening || options_.idle_actors == 0 || cancelled >= kRetireAfterCancels) return;
    // Registered before anything that yields, so that a message arriving meanwhile finds it.
    parked.party = &p;
    parked.at = parked_.insert(parked_.end(), &parked);
    p.parked = &parked;
    if (parked_.size() > options_.idle_actors) unpark(*parked_.front(), false);
    parked.go->acquire();
    if (!parked.resume) return;
    // A resumed actor goes through as many scheduling rounds as a new one starting (which
    // daemonizes first): messages and timers keep their order within an instant.
    sg4::Actor::self()->daemonize();
  }
}

void World::unpark(Parked& parked, bool resume) {
  parked_.erase(parked.at);
  if (parked.party) parked.party->parked = nullptr;
  parked.resume = resume;
  parked.go->release();
}

void World::go_up(Party& p) {
  if (p.up) return;
  if (!p.role) p.role = p.factory(*p.env);
  p.up = true;
  ++p.incarnation;  // a fresh process: its old connections are gone
  p.outgoing.clear();
  p.incoming_from.clear();
  log(p, ev::PartyUp{});
  p.role->start();
}

void World::refuse_early(Party& p) {
  // Messages held back for order whose predecessors will now never be delivered: refused,
  // like everything else that reaches a party that has gone.
  for (Incoming* conn : p.incoming_from.in_order()) {
    for (auto& [seq, env] : conn->early) {
      bounce(p, env->from, env->msg);
      work_done();
    }
    conn->early.clear();
  }
}

void World::go_down(Party& p) {
  if (!p.up) return;
  p.up = false;
  p.env->clear_role_timers();
  refuse_early(p);
  log(p, ev::PartyDown{});
  // Its connections break: every peer learns it at once, as from a closed socket.
  for (Incoming* conn : p.incoming_from.in_order()) {
    if (!conn->peer) continue;
    conn->peer = false;
    send(p, conn->from, PeerLost{p.address});
  }
}

void World::bounce(Party& p, Address sender, const Message& msg) {
  if (is_notice(msg)) return;
  const std::string* corr = message_corr(msg);
  send(p, sender, Unreachable{p.address, kind_of(msg), message_id(msg), corr ? *corr : std::string()});
}

void World::send(Party& from, Address to, Message&& msg) {
  Party* dest = find(to);
  if (log_ && log_->wants(log::EventKind::Send)) log(from, send_event(name_of(to), msg, wire_size(msg)));
  if (!dest || !dest->listening) {
    // Nobody there at all: the sender is refused at once.
    if (is_notice(msg)) return;
    const std::string* corr = message_corr(msg);
    deliver_now(from, to, Unreachable{to, kind_of(msg), message_id(msg), corr ? *corr : std::string()});
    return;
  }
  const std::uint64_t size = wire_size(msg);
  ++stats_.messages;
  stats_.bytes += size;
  work_added();
  auto& conn = from.outgoing[to];
  if (conn.incarnation != dest->incarnation) conn = Party::Outgoing{dest->incarnation, 0};
  auto* env = new Envelope{from.address, std::move(msg), conn.next++, from.incarnation, dest->incarnation};
  if (dest->transient) wake(*dest);
  dest->mailbox->put_init(env, size)->detach(delete_envelope);
}

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
  if (!slot->came_up) slot->came_up = sg4::ConditionVariable::create();
  ++stats_.daemons_started;
  work_added();
  Party* p = slot.get();
  Party* parent = nullptr;
  sg4::Host* from = launcher_for(node, &parent);
  // No two daemons come up at the very same instant, as on a real machine: their reports
  // reach the controller one after another instead of as one burst.
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  const double startup = options_.daemon_startup_s * (1.0 + options_.jitter * u);
  sg4::Actor::create(p->name, p->host, [this, p, parent, from, startup] {
    sg4::Actor::self()->daemonize();
    if (parent) {
      // Tree spawn: a daemon launches its children once it is up itself.
      std::unique_lock lock(*quiet_->mutex);
      while (!parent->up) parent->came_up->wait(lock);
    }
    // The launch crosses the network from its launcher; then the daemon starts up, wires up
    // and reports in to the controller (its DaemonReady is a real message).
    sg4::Comm::sendto(from, p->host, options_.daemon_launch_bytes);
    sg4::this_actor::sleep_for(startup);
    const NodeId node = p->address.index;
    if (dead_nodes_.count(node) || failing_starts_.erase(node)) {
      // The launch failed (the node is dead, or the daemon could not start): the launcher
      // reports it to the controller instead of a wire-up.
      p->listening = false;
      p->serving = false;
      log(*p, ev::DaemonStartFailed{});
      send(*p, Address::controller(), DaemonStartFailed{node});
      work_done();
      return;
    }
    go_up(*p);
    p->came_up->notify_all();
    work_done();
    serve_daemon(*p);
  });
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
