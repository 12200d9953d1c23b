// A scripted Env for one party, for unit tests of the roles without SimGrid: the test owns the
// clock (advance), reads what the role sent (take_sent) and logged (events), and feeds it
// messages by calling the role's handle() itself.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmixflow/log/render.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/proto/env.hpp"

namespace pmixflow {

// Readable gtest output for the types tests compare most.
inline void PrintTo(Status s, std::ostream* os) { *os << status_name(s); }
inline void PrintTo(const Address& a, std::ostream* os) {
  static constexpr const char* kKinds[] = {"requestor", "daemon", "controller", "scheduler"};
  *os << kKinds[static_cast<int>(a.kind)] << ":" << a.index;
}

namespace test {

struct Sent {
  Address to;
  Message msg;
};

struct LoggedEvent {
  std::string kind;
  std::string fields;  // `,"key":value` pairs, as the log renders them
};

class FakeEnv final : public Env {
 public:
  explicit FakeEnv(Address self) : self_(self) {}

  // ---- Env
  double now() const override { return now_; }
  Address self() const override { return self_; }
  void send(Address to, Message msg) override { sent_.push_back(Sent{to, std::move(msg)}); }
  TimerId after(double delay, std::function<void()> fn) override {
    const TimerId id = next_timer_++;
    timers_.emplace(id, Timer{now_ + (delay > 0 ? delay : 0.0), std::move(fn)});
    return id;
  }
  void cancel(TimerId id) override { timers_.erase(id); }
  using Env::wants;
  bool wants(log::EventKind) const override { return true; }
  void record(const log::EventBuilder& e) override {
    const log::EventView view = e.view(now_, who_);
    std::string fields;
    log::render_fields(fields, view);
    events_.push_back(LoggedEvent{std::string(log::spec(e.kind()).name), std::move(fields)});
    for (log::EventSink* sink : sinks_)
      if (sink->kinds()[static_cast<std::size_t>(view.kind)]) sink->event(view);
  }
  std::string_view name_of(Address a) const override {
    auto [it, added] = names_.try_emplace(a);
    if (added) {
      switch (a.kind) {
        case PartyKind::Controller: it->second = "controller"; break;
        case PartyKind::Scheduler: it->second = "scheduler"; break;
        case PartyKind::Daemon: it->second = "daemon:" + std::to_string(a.index); break;
        case PartyKind::Requestor: it->second = "requestor:" + std::to_string(a.index); break;
      }
    }
    return it->second;
  }
  void start_daemon(NodeId node) override { daemons_started_.push_back(node); }

  // ---- test side
  // Also hands every event to `sink` (the run's outputs are computed from them), as `who`.
  void attach(log::EventSink& sink, std::string who) {
    sinks_.push_back(&sink);
    who_ = std::move(who);
  }
  // Moves the clock forward by `dt`, firing every timer that falls due on the way in time
  // order (ties: the one armed first), including timers those timers arm.
  void advance(double dt) {
    const double until = now_ + dt;
    for (;;) {
      auto due = timers_.end();
      for (auto it = timers_.begin(); it != timers_.end(); ++it)
        if (it->second.when <= until && (due == timers_.end() || it->second.when < due->second.when)) due = it;
      if (due == timers_.end()) break;
      now_ = due->second.when;
      auto fn = std::move(due->second.fn);
      timers_.erase(due);
      fn();
    }
    now_ = until;
  }

  std::vector<Sent> take_sent() { return std::exchange(sent_, {}); }
  const std::vector<Sent>& sent() const { return sent_; }
  const std::vector<LoggedEvent>& events() const { return events_; }
  void clear_events() { events_.clear(); }
  std::size_t count_events(std::string_view kind) const {
    std::size_t n = 0;
    for (const auto& e : events_) n += e.kind == kind;
    return n;
  }
  // The logged events of `kind`, in logging order.
  std::vector<LoggedEvent> events_of(std::string_view kind) const {
    std::vector<LoggedEvent> out;
    for (const auto& e : events_)
      if (e.kind == kind) out.push_back(e);
    return out;
  }
  // How many events of `kind` were logged whose fields contain every one of `fragments`
  // (e.g. `"decided_by":"controller"`).
  std::size_t count_events(std::string_view kind, std::initializer_list<std::string_view> fragments) const {
    std::size_t n = 0;
    for (const auto& e : events_) {
      if (e.kind != kind) continue;
      bool all = true;
      for (auto f : fragments) all = all && e.fields.find(f) != std::string::npos;
      n += all;
    }
    return n;
  }
  const std::vector<NodeId>& daemons_started() const { return daemons_started_; }
  std::size_t timers_armed() const { return timers_.size(); }

 private:
  struct Timer {
    double when;
    std::function<void()> fn;
  };
  Address self_;
  double now_ = 0;
  TimerId next_timer_ = 1;
  std::map<TimerId, Timer> timers_;  // ordered by id: the first armed wins a tie
  std::vector<Sent> sent_;
  std::vector<LoggedEvent> events_;
  std::vector<NodeId> daemons_started_;
  std::vector<log::EventSink*> sinks_;
  std::string who_ = "fake";
  mutable std::map<Address, std::string> names_;  // name_of hands out views into these
};

// The messages of type T in `sent`, with their destinations, in sending order.
template <class T>
std::vector<std::pair<Address, T>> all_of(const std::vector<Sent>& sent) {
  std::vector<std::pair<Address, T>> out;
  for (const auto& s : sent)
    if (const T* m = std::get_if<T>(&s.msg)) out.emplace_back(s.to, *m);
  return out;
}

// The one message in `sent`, which must be a T sent to `to`; fails the test otherwise.
template <class T>
T only(const std::vector<Sent>& sent, Address to) {
  EXPECT_EQ(sent.size(), 1u) << "expected exactly one message";
  if (sent.empty()) return T{};
  EXPECT_EQ(sent.front().to, to);
  const T* m = std::get_if<T>(&sent.front().msg);
  EXPECT_NE(m, nullptr) << "got " << message_name(kind_of(sent.front().msg));
  return m ? *m : T{};
}

}  // namespace test
}  // namespace pmixflow
