// One party's Env in the emulator: its clock is the emulation's (scenario seconds, shared by
// every process on this machine), its timers are its loop's, its messages leave through the
// party's transport (PMIx for the PMIx boundaries, the emulator's own links for the daemon hop)
// and its events go to the emulation, which writes the one event log.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmixflow/emul/directory.hpp"
#include "pmixflow/emul/lateness.hpp"
#include "pmixflow/emul/loop.hpp"
#include "pmixflow/emul/run_clock.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/proto/env.hpp"

namespace pmixflow::emul {

// What carries a party's messages out of its process.
class Transport {
 public:
  virtual ~Transport() = default;
  // Takes `msg` on its way to `to`. False when nobody can be reached there: the Env then hands
  // the sender an Unreachable, after send() has returned.
  virtual bool carry(Address to, Message& msg) = 0;
};

// What a party tells the emulation that started it.
class Uplink {
 public:
  virtual ~Uplink() = default;
  virtual void event(std::string encoded) = 0;
  virtual void start_daemon(NodeId node) = 0;
  // A message is about to be handled: the party is not idle from now on, whatever it said last.
  // Said before the role runs, because what the role then does can keep the party's loop from
  // saying anything for a long while (a daemon forking a job's processes), and a run whose
  // parties all look idle for long enough is over.
  virtual void working() = 0;
};

class EmulEnv final : public Env {
 public:
  EmulEnv(Loop& loop, const RunClock& clock, Address self, Directory& directory, Transport& transport, Uplink& uplink,
          log::KindSet wanted);

  void set_role(Role* role) { role_ = role; }

  double now() const override { return clock_.now(); }
  Address self() const override { return self_; }
  void send(Address to, Message msg) override;
  TimerId after(double delay, std::function<void()> fn) override;
  void cancel(TimerId id) override;
  std::string_view name_of(Address a) const override { return directory_.name_of(a); }
  void start_daemon(NodeId node) override { uplink_.start_daemon(node); }
  bool wants(log::EventKind kind) const override { return wanted_[static_cast<std::size_t>(kind)]; }
  void record(const log::EventBuilder& event) override;

  // The role is up: it is started, then handed what arrived for it before (a party's line may
  // carry messages before its role starts: the RM's, held for a scheduler just attaching).
  void start();
  // A message for the role, on the loop's thread: logged as received, then handled.
  void deliver(Address from, Message msg);
  // A notice the environment raises itself (a connection refused or broken): handled later on
  // the loop, never inside the call that caused it.
  void notice(Address from, Message msg);
  std::size_t timers_armed() const { return timers_.size(); }
  // How late this party's timers fired against scenario time (and, in a daemon, its jobs ended).
  Lateness& lateness() { return lateness_; }
  std::uint64_t messages_sent() const { return sent_; }
  std::uint64_t messages_handled() const { return handled_; }
  // The time every event this party logs from now on is stamped at or after: its clock, which
  // only goes forward (events are stamped on the loop's thread alone, never behind the last).
  double clock_floor() const { return std::max(now(), last_stamp_); }

 private:
  Loop& loop_;
  const RunClock& clock_;
  Address self_;
  Directory& directory_;
  Transport& transport_;
  Uplink& uplink_;
  log::KindSet wanted_;
  std::string timer_label_;  // what its timers' lateness is named (once the directory names it)
  Role* role_ = nullptr;
  std::unordered_map<TimerId, LoopTimer> timers_;
  TimerId next_timer_ = 1;
  std::uint64_t sent_ = 0;
  std::uint64_t handled_ = 0;
  double last_stamp_ = 0;
  bool started_ = false;
  std::vector<std::pair<Address, Message>> early_;
  Lateness lateness_;
};

}  // namespace pmixflow::emul
