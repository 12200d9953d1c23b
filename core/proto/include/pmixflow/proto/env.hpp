// The only door between a role and the world. A role reacts to a message or a timer, updates
// its state, and acts through its Env: it never sleeps, blocks or reads a clock of its own.
// The simulator implements Env on SimGrid, the emulator on real PMIx processes.
//
// The contract an environment keeps: for one party, handle(), start() and the callbacks of its
// timers never run concurrently and never re-enter one another. The role runs on one thread
// at a time and needs no lock; an environment whose events arrive on other threads (PMIx
// callback threads, a child-process reaper) hands them over to the party's own thread. A
// message sent by a party to another is delivered after the send returns, never inside it,
// and two messages from one party to another arrive in the order they were sent.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "pmixflow/log/events.hpp"
#include "pmixflow/proto/messages.hpp"

namespace pmixflow {

using TimerId = std::uint64_t;

class Env {
 public:
  virtual ~Env() = default;

  virtual double now() const = 0;
  virtual Address self() const = 0;
  // Delivery is asynchronous. If nobody listens at `to`, the sender later receives an
  // Unreachable for this message instead: a send never fails silently.
  virtual void send(Address to, Message msg) = 0;
  virtual TimerId after(double delay, std::function<void()> fn) = 0;
  virtual void cancel(TimerId id) = 0;
  virtual std::string_view name_of(Address a) const = 0;
  // Starts a daemon on `node` (a launch over the network, then its wire-up): the daemon says
  // so with DaemonReady, or the controller gets a DaemonStartFailed if it could not start.
  virtual void start_daemon(NodeId node) = 0;

  // Events (the catalogue, pmixflow/log/events.hpp). Only the kinds somebody records are
  // built: log() checks, and a role guards an event whose fields cost something to compute
  // with wants<E>().
  virtual bool wants(log::EventKind kind) const = 0;
  template <class E>
  bool wants() const {
    return wants(E::event_kind);
  }
  template <class E>
  void log(const E& event) {
    if (!wants(E::event_kind)) return;
    log::EventBuilder fields(E::event_kind);
    fill(event, fields);
    record(fields);
  }
  // Records an event the party built: the environment adds the time and the party's name.
  virtual void record(const log::EventBuilder& event) = 0;
};

// What every party is: a state machine fed by its Env.
class Role {
 public:
  virtual ~Role() = default;
  virtual void start() {}
  virtual void handle(Address from, Message&& msg) = 0;
};

}  // namespace pmixflow
