// The only door between a role and the world. A role reacts to a message or a timer, updates
// its state, and acts through its Env: it never sleeps, blocks or reads a clock of its own.
// The simulator implements Env on SimGrid, the emulator on real PMIx processes.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "pmixflow/log/event.hpp"
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
  // Events cost something to build; roles skip building them when nobody records them.
  virtual bool logging() const = 0;
  virtual void log(const Event& e) = 0;
  virtual std::string_view name_of(Address a) const = 0;
  // Starts a daemon on `node` (a launch over the network, then its wire-up): the daemon says
  // so with DaemonReady, or the controller gets an Unreachable(DaemonReady) if it failed.
  virtual void start_daemon(NodeId node) = 0;
};

// What every party is: a state machine fed by its Env.
class Role {
 public:
  virtual ~Role() = default;
  virtual void start() {}
  virtual void handle(Address from, Message&& msg) = 0;
};

// The hop record both environments write for every message sent and received.
Event describe_hop(std::string_view kind, std::string_view peer_key, std::string_view peer, const Message& m);

}  // namespace pmixflow
