// The world's own parts, shared by its files (world.cpp: parties and messages;
// world_daemons.cpp: daemons launched, failing and parked): a message in transit, one
// party's Env, and what the world keeps of each party.
#pragma once

#include <algorithm>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "connection_table.hpp"
#include "pmixflow/sim/world.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::sim {

namespace sg4 = simgrid::s4u;

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
  std::uint64_t logged_as = 0;  // the number its send was logged with (0: not logged)
  // Not a message: wakes the actor of a daemon that died so that it stops serving before the
  // node's next daemon starts one of its own (World::kill_daemon).
  bool stop = false;
};

inline void delete_envelope(void* p) { delete static_cast<Envelope*>(p); }

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
  std::size_t armed() const { return live_.size(); }
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
    live_.emplace(id, Armed{std::move(fn), system, now() + std::max(0.0, delay)});
    world_.work_added();
    return id;
  }

  // Seconds until the next timer; -1 when none is armed (wait for messages only).
  double next_delay() {
    drop_cancelled();
    return heap_.empty() ? -1.0 : std::max(0.0, heap_.top().when - now());
  }

  // Fires the timer we waited for, then any other that is due at the same instant. After a stall
  // (`waited_for` false) the clock has moved on: the timers due by now, and only those.
  void fire_due(bool waited_for = true) {
    bool first = waited_for;
    while (true) {
      drop_cancelled();
      if (heap_.empty() || (!first && heap_.top().when > now())) return;
      first = false;
      const TimerId id = heap_.top().id;
      heap_.pop();
      auto node = live_.extract(id);
      world_.contain(party_, node.mapped().fn);
      world_.work_done();
    }
  }

  // When the next of the party's own up/down transitions is due; infinity when none is armed.
  double next_transition() const {
    double next = std::numeric_limits<double>::infinity();
    for (const auto& [id, a] : live_)
      if (a.system) next = std::min(next, a.when);
    return next;
  }

  // Fires the up/down transitions due now, in time order, and no role timer: a stalled process
  // handles nothing, but is detached (killed) at its time all the same.
  void fire_transitions_due() {
    std::vector<std::pair<double, TimerId>> due;
    for (const auto& [id, a] : live_)
      if (a.system && a.when <= now()) due.emplace_back(a.when, id);
    std::sort(due.begin(), due.end());
    for (const auto& [when, id] : due) {
      auto node = live_.extract(id);
      if (node.empty()) continue;
      world_.contain(party_, node.mapped().fn);
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
    double when;
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
  using Early = std::map<std::uint64_t, std::unique_ptr<Envelope>>;
  std::uint64_t next = 0;
  // Arrived ahead of their turn. Made only when one does: a daemon holds a connection from
  // every requestor that submits through it (a replay: nodes x users of them), and most never
  // see a message out of order.
  std::unique_ptr<Early> early;
  std::uint32_t incarnation = 0;  // of the sender
  bool peer = false;              // a message of it was delivered: the connection breaks when we go down
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
  // Sent here and not yet received. A receive posted while one is on its way may already be
  // matched with it: cancelling that receive would lose the message.
  std::uint64_t on_its_way = 0;
  Envelope* incoming = nullptr;
  std::vector<World::Launch> to_launch;  // daemons it launches once it is up (tree spawn)
  std::uint32_t incarnation = 0;         // grows each time the party (re)starts
  struct Outgoing {
    std::uint32_t incarnation = 0;  // of the receiver when the connection was made
    std::uint64_t next = 0;
  };
  ConnectionTable<Outgoing> outgoing;
  ConnectionTable<Incoming> incoming_from;
  Parked* parked = nullptr;  // its idle actor, while one waits parked
  double stalled_until = 0;  // a stalled process handles nothing before then (scheduler_stall)
};

// Faults still to come, in time order (faults at the same time in the order queued), and the
// semaphore that wakes the fault actor when one is queued ahead of those it waits for.
struct World::FaultQueue {
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  std::multimap<double, FaultAt> due;
};

// Daemons launched and starting up, by when they are up: one actor sleeps until the next is
// due and gives that daemon an actor then (world_daemons.cpp).
struct World::Startups {
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  std::multimap<double, Party*> due;
  bool running = false;  // its actor is there
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

template <class F>
void World::contain(const Party& p, F&& body) {
  look_for_stop();
  if (failure_) return;  // stopped: no role acts any more, and what is in flight drains
  try {
    body();
  } catch (const simgrid::ForcefulKillException&) {
    throw;  // SimGrid's own unwinding of a killed actor
  } catch (const PolicyError& e) {
    if (e.raised()) {
      try {
        std::rethrow_exception(e.raised());
      } catch (const simgrid::ForcefulKillException&) {
        throw;  // SimGrid killing the actor while the policy ran (a deadlock's end): not the policy's
      } catch (...) {
      }
    }
    stop_run(p, e.detail(), true);
  } catch (const std::exception& e) {
    stop_run(p, e.what(), false);
  } catch (...) {
    stop_run(p, "an exception that is not a std::exception", false);
  }
  if (!fired_.empty()) release_fired();
}

}  // namespace pmixflow::sim
