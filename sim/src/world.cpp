#include "pmixflow/sim/world.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <queue>

#include <simgrid/s4u.hpp>

#include "pmixflow/proto/hop.hpp"
#include "pmixflow/sim/wire_size.hpp"
#include "world_internal.hpp"

namespace sg4 = simgrid::s4u;

namespace pmixflow::sim {

namespace {

bool is_notice(const Message& m) {
  return std::holds_alternative<Unreachable>(m) || std::holds_alternative<PeerLost>(m);
}

}  // namespace

Address PartyEnv::self() const { return party_.address; }
void PartyEnv::send(Address to, Message msg) { world_.send(party_, to, std::move(msg)); }

World::World(const Cluster& cluster, Machine machine, WorldOptions options, log::EventLog* log)
    : cluster_(cluster), machine_(std::move(machine)), options_(options), log_(log), random_(options.seed) {
  daemons_.resize(cluster_.size());
}

World::~World() {
  if (triggers_ && log_) log_->detach(*triggers_);  // the log outlives the world: it ends after it
}

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

void World::set_credentials(std::uint32_t requestor, Credentials c) {
  if (credentials_.size() <= requestor) credentials_.resize(requestor + 1);
  credentials_[requestor] = c;
}

void World::set_daemon_factory(std::function<std::unique_ptr<Role>(Env&, NodeId)> factory) {
  daemon_factory_ = std::move(factory);
}

void World::break_connections(Party& p, const Party* told_already) {
  // Every peer learns it at once, as from a closed socket: those that sent to `p` and those
  // `p` sent to, whichever way the connection was opened. A requestor that exits with a call
  // in flight is seen by its server even if nothing was ever sent back to it.
  std::vector<Address> peers;
  for (auto [from, conn] : p.incoming_from.in_order()) {
    if (!conn->peer) continue;
    conn->peer = false;
    peers.push_back(from);
  }
  // Sent to, even if not yet received: the notice follows what was sent on that connection,
  // as a closed socket's end-of-file follows its last data.
  for (auto [to, out] : p.outgoing.in_order()) {
    Party* dest = find(to);
    if (!dest || out->incarnation != dest->incarnation || out->next == 0) continue;
    if (Incoming* back = dest->incoming_from.find(p.address)) back->peer = false;
    peers.push_back(to);
  }
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  for (Address peer : peers)
    if (!told_already || peer != told_already->address) send(p, peer, PeerLost{p.address});
}

void World::deliver_now(Party& to, Address from, Message msg) {
  // A notice the environment itself raises (a refused connection, a broken one): handled by
  // the party at once, in its own actor, and logged as received.
  Party* party = &to;
  to.env->after(0, [this, party, from, msg = std::move(msg)]() mutable {
    log_recv(*party, from, msg);
    if (party->up) contain(*party, [&] { party->role->handle(from, std::move(msg)); });
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

void World::record(const Party& p, const log::EventBuilder& e, std::uint64_t message) {
  if (failure_) return;  // the log stops where the run failed
  log_->write(e.view(sg4::Engine::get_clock(), p.name, message));
}

void World::log_recv(const Party& p, Address from, const Message& msg, std::uint64_t message) {
  if (log_ && log_->wants(log::EventKind::Recv)) log(p, recv_event(name_of(from), msg, wire_size(msg)), message);
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
  start_faults();
  // The run ends when the flow is quiet: nothing in flight, no timer armed, no daemon starting,
  // no fault to come.
  sg4::Actor::create("pmixflow-main", machine_.login, [this] {
    std::unique_lock lock(*quiet_->mutex);
    while (pending_ > 0) quiet_->cv->wait(lock);
  });
  sg4::Engine::get_instance()->run();
  stats_.end_time = sg4::Engine::get_clock();
  if (pending_ > 0 && !failure_) stats_.stalled = outstanding();
}

void World::stop_run(const Party& p, std::string what, bool policy) {
  // Nothing after this can be trusted: no role acts and nothing is logged any more. What is
  // in flight drains on its own, the engine returns, and the run reports the failure with
  // its log left without a closing line. (Killing the actors instead hangs SimGrid 3.32 on
  // thread contexts, which the sanitizer build uses.)
  failure_ = Failure{p.name, sg4::Engine::get_clock(), std::move(what), policy};
}

void World::look_for_stop() {
  // Asking costs a system call: once every few steps, each of which takes microseconds.
  constexpr std::uint32_t kStepsBetweenLooks = 64;
  if (!stop_request_ || failure_ || ++steps_ < kStepsBetweenLooks) return;
  steps_ = 0;
  if (const int signal = stop_request_()) {
    interrupted_ = signal;
    failure_ = Failure{"", sg4::Engine::get_clock(), "interrupted", false};  // no party's doing
  }
}

std::string World::outstanding() const {
  std::string out;
  const auto add = [&](const Party& p) {
    const std::size_t timers = p.env->armed();
    if (p.on_its_way == 0 && timers == 0 && (p.up || !p.listening)) return;
    if (!out.empty()) out += "; ";
    out += p.name + ":";
    if (!p.up && p.listening) out += " starting";
    if (p.on_its_way) out += " " + std::to_string(p.on_its_way) + " messages undelivered";
    if (timers) out += " " + std::to_string(timers) + " timers armed";
  };
  for (const auto& p : parties_) add(*p);
  for (const auto& d : daemons_)
    if (d) add(*d);
  return std::to_string(pending_) + " units of work outstanding" + (out.empty() ? "" : " (" + out + ")");
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
      if (p.transient && p.env->idle() && p.on_its_way == 0) break;
      receive.push_back(p.mailbox->get_async<Envelope>(&p.incoming));
    }
    const bool timer = sg4::Comm::wait_any_for(receive, p.env->next_delay()) < 0;
    const bool held = hold_while_stalled(p);
    if (timer) {
      p.env->fire_due(!held);
      if (!fired_.empty()) release_fired();
      if (p.transient && p.env->idle() && p.on_its_way == 0) {
        receive.front()->cancel();
        receive.clear();
        ++cancelled;
      }
      continue;
    }
    receive.clear();
    --p.on_its_way;
    std::unique_ptr<Envelope> env(p.incoming);
    p.incoming = nullptr;
    if (env->stop) continue;  // its process died: `listening` is false now, or again for a new life
    accept(p, std::move(env));
    if (!fired_.empty()) release_fired();
  }
  if (!p.listening) {
    // Gone for good (a daemon that exited): whatever was already sent here is refused.
    while (!p.mailbox->empty() || p.mailbox->ready()) {
      std::unique_ptr<Envelope> owned(p.mailbox->get<Envelope>());
      --p.on_its_way;
      if (owned->stop) continue;
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
    log_recv(p, env->from, env->msg, env->logged_as);
    bounce(p, env->from, env->msg);
    work_done();
    return;
  }
  // Only accept() adds connections and only go_up() drops them, neither while a role handles
  // a message: `conn` stays valid through deliver().
  auto& conn = p.incoming_from[env->from];
  if (conn.incarnation != env->from_incarnation) {  // the sender's new life: a new connection
    conn.incarnation = env->from_incarnation;
    conn.next = 0;
    conn.early.reset();
  }
  if (env->seq != conn.next) {
    if (!conn.early) conn.early = std::make_unique<Incoming::Early>();
    conn.early->emplace(env->seq, std::move(env));  // its predecessors are still on their way
    return;
  }
  deliver(p, conn, std::move(env));
  // Whatever was waiting for this one follows, in order.
  while (p.up && conn.early && !conn.early->empty()) {
    auto next = conn.early->find(conn.next);
    if (next == conn.early->end()) break;
    auto ready = std::move(next->second);
    conn.early->erase(next);
    deliver(p, conn, std::move(ready));
  }
}

void World::deliver(Party& p, Incoming& conn, std::unique_ptr<Envelope> env) {
  ++conn.next;
  if (env->from.kind == PartyKind::Requestor) {
    env->logged_as = 0;  // what is stamped in below no longer reads as it was sent
    const Credentials c = env->from.index < credentials_.size() ? credentials_[env->from.index] : Credentials{};
    std::visit(
        [&c](auto& m) {
          using T = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<T, AllocRequest>) stamp_credentials(m.info, c);
          if constexpr (std::is_same_v<T, SessionCtrlRequest>) stamp_credentials(m.directives, c);
          if constexpr (std::is_same_v<T, SpawnRequest>) stamp_credentials(m.job_info, c);
        },
        env->msg);
  }
  log_recv(p, env->from, env->msg, env->logged_as);
  conn.peer = true;
  const bool shutdown = std::holds_alternative<DaemonShutdown>(env->msg);
  contain(p, [&] { p.role->handle(env->from, std::move(env->msg)); });
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
  // A requestor started again (requestor_start) is a new process: a new role, with the calls of
  // its new life. A scheduler or controller coming back keeps its role, as the emulator's
  // restarted scheduler takes back what its earlier life granted.
  if (!p.role || (p.address.kind == PartyKind::Requestor && p.incarnation > 0))
    contain(p, [&] { p.role = p.factory(*p.env); });
  p.up = true;
  ++p.incarnation;  // a fresh process: its old connections are gone
  p.outgoing.clear();
  p.incoming_from.clear();
  log(p, ev::PartyUp{});
  contain(p, [&] { p.role->start(); });
}

void World::refuse_early(Party& p) {
  // Messages held back for order whose predecessors will now never be delivered: refused,
  // like everything else that reaches a party that has gone.
  for (auto [from, conn] : p.incoming_from.in_order()) {
    if (!conn->early) continue;
    for (auto& [seq, env] : *conn->early) {
      bounce(p, env->from, env->msg);
      work_done();
    }
    conn->early.reset();
  }
}

void World::go_down(Party& p) {
  if (!p.up) return;
  p.up = false;
  // The process that was stalled is gone: the next one starts when planned, not when this one
  // would have resumed (the emulator's new process was never stopped).
  p.stalled_until = 0;
  p.env->clear_role_timers();
  refuse_early(p);
  log(p, ev::PartyDown{});
  break_connections(p, nullptr);
}

void World::bounce(Party& p, Address sender, const Message& msg) {
  if (is_notice(msg)) return;
  const std::string* corr = message_corr(msg);
  send(p, sender, Unreachable{p.address, kind_of(msg), message_id(msg), corr ? *corr : std::string()});
}

void World::send(Party& from, Address to, Message&& msg) {
  Party* dest = find(to);
  const std::uint64_t size = wire_size(msg);
  std::uint64_t logged_as = 0;
  if (log_ && log_->wants(log::EventKind::Send)) {
    logged_as = ++messages_logged_;
    log(from, send_event(name_of(to), msg, size), logged_as);
  }
  if (!dest || !dest->listening) {
    // Nobody there at all: the sender is refused at once.
    if (is_notice(msg)) return;
    const std::string* corr = message_corr(msg);
    deliver_now(from, to, Unreachable{to, kind_of(msg), message_id(msg), corr ? *corr : std::string()});
    return;
  }
  ++stats_.messages;
  stats_.bytes += size;
  work_added();
  auto& conn = from.outgoing[to];
  // `to` also on a fresh entry for a receiver still at incarnation 0 (a daemon starting).
  if (conn.incarnation != dest->incarnation || conn.next == 0) conn = Party::Outgoing{dest->incarnation, 0};
  auto* env = new Envelope{from.address, std::move(msg), conn.next++, from.incarnation, dest->incarnation, logged_as};
  ++dest->on_its_way;
  if (dest->transient) wake(*dest);
  dest->mailbox->put_init(env, size)->detach(delete_envelope);
}

}  // namespace pmixflow::sim
