// One party's thread of control in the emulator: a loop that waits on file descriptors and
// timers and runs what is posted to it from other threads. Env's contract (proto/env.hpp) says
// a role never runs concurrently with itself; PMIx calls its up-calls and callbacks on its own
// progress thread, a child's exit is seen on a descriptor: all of it reaches the role through
// this loop, one thing at a time, on the thread that called run().
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <vector>

namespace pmixflow::emul {

using SteadyClock = std::chrono::steady_clock;
using LoopTimer = std::uint64_t;
using WatchId = std::uint64_t;

class Loop {
 public:
  Loop();
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // Runs `on_readable` on the loop's thread whenever `fd` has input (or has hung up). The
  // loop does not own the descriptor.
  WatchId watch(int fd, std::function<void()> on_readable);
  void unwatch(WatchId id);
  // While set, `on_writable` runs whenever the watched descriptor can take output (a link
  // with queued frames); cleared with nullptr.
  void on_writable(WatchId id, std::function<void()> on_writable);

  LoopTimer at(SteadyClock::time_point when, std::function<void()> fn);
  LoopTimer after(SteadyClock::duration delay, std::function<void()> fn) {
    return at(SteadyClock::now() + delay, std::move(fn));
  }
  void cancel(LoopTimer id);
  std::size_t timers_armed() const { return live_.size(); }

  // From any thread: `fn` runs on the loop's thread, after what was posted before it.
  void post(std::function<void()> fn);
  // Something posted has not run yet (a PMIx callback's message on its way to the role).
  bool has_posted() const;
  // Runs after every round of descriptors, posts and timers the loop handled (a party reports
  // whether it is idle from there).
  void after_each_round(std::function<void()> fn) { after_round_ = std::move(fn); }
  // Runs until stop(). Exceptions thrown by handlers propagate out of run().
  void run();
  // From any thread.
  void stop();
  bool stopping() const;

 private:
  void drain_posted();
  void fire_due();
  int wait_ms() const;

  int epoll_ = -1;
  int wake_ = -1;  // eventfd: something was posted
  struct Watch {
    int fd;
    std::function<void()> fn;
    std::function<void()> writable;
  };
  void rearm(WatchId id, const Watch& w);
  std::unordered_map<WatchId, Watch> watches_;
  WatchId next_watch_ = 1;
  struct Due {
    SteadyClock::time_point when;
    LoopTimer id;  // ids grow: equal times fire in the order armed
    bool operator>(const Due& o) const { return when != o.when ? when > o.when : id > o.id; }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<>> heap_;
  std::unordered_map<LoopTimer, std::function<void()>> live_;
  LoopTimer next_timer_ = 1;
  mutable std::mutex mutex_;  // guards posted_ and stop_
  std::deque<std::function<void()>> posted_;
  bool stop_ = false;
  std::function<void()> after_round_;
};

}  // namespace pmixflow::emul
