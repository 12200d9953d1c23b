#include "pmixflow/emul/loop.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace pmixflow::emul {

Loop::Loop() {
  epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_ < 0 || wake_ < 0) throw std::system_error(errno, std::generic_category(), "event loop");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = 0;  // watch ids start at 1: 0 is the wake-up descriptor
  ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev);
}

Loop::~Loop() {
  ::close(wake_);
  ::close(epoll_);
}

WatchId Loop::watch(int fd, std::function<void()> on_readable) {
  const WatchId id = next_watch_++;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = id;
  if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw std::system_error(errno, std::generic_category(), "watching a descriptor");
  watches_.emplace(id, Watch{fd, std::move(on_readable), {}});
  return id;
}

void Loop::rearm(WatchId id, const Watch& w) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | (w.writable ? EPOLLOUT : 0u);
  ev.data.u64 = id;
  ::epoll_ctl(epoll_, EPOLL_CTL_MOD, w.fd, &ev);
}

void Loop::on_writable(WatchId id, std::function<void()> fn) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  const bool had = static_cast<bool>(it->second.writable);
  it->second.writable = std::move(fn);
  if (had != static_cast<bool>(it->second.writable)) rearm(id, it->second);
}

void Loop::unwatch(WatchId id) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  ::epoll_ctl(epoll_, EPOLL_CTL_DEL, it->second.fd, nullptr);
  watches_.erase(it);
}

LoopTimer Loop::at(SteadyClock::time_point when, std::function<void()> fn) {
  const LoopTimer id = next_timer_++;
  heap_.push(Due{when, id});
  live_.emplace(id, std::move(fn));
  return id;
}

void Loop::cancel(LoopTimer id) { live_.erase(id); }

void Loop::post(std::function<void()> fn) {
  {
    const std::lock_guard lock(mutex_);
    posted_.push_back(std::move(fn));
  }
  const std::uint64_t one = 1;
  // A full counter still wakes the loop: the write may fail, the descriptor stays readable.
  [[maybe_unused]] const auto n = ::write(wake_, &one, sizeof one);
}

bool Loop::has_posted() const {
  const std::lock_guard lock(mutex_);
  return !posted_.empty();
}

void Loop::stop() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(wake_, &one, sizeof one);
}

bool Loop::stopping() const {
  const std::lock_guard lock(mutex_);
  return stop_;
}

int Loop::wait_ms() const {
  while (!heap_.empty() && !live_.count(heap_.top().id)) const_cast<Loop*>(this)->heap_.pop();
  if (heap_.empty()) return -1;
  const auto left = heap_.top().when - SteadyClock::now();
  if (left <= SteadyClock::duration::zero()) return 0;
  // Rounded up: waking a little late fires the timer; waking early would spin.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
}

void Loop::drain_posted() {
  std::uint64_t count = 0;
  [[maybe_unused]] const auto n = ::read(wake_, &count, sizeof count);
  std::deque<std::function<void()>> batch;
  {
    const std::lock_guard lock(mutex_);
    batch.swap(posted_);
  }
  for (auto& fn : batch) fn();
}

void Loop::fire_due() {
  const auto now = SteadyClock::now();
  while (!heap_.empty() && heap_.top().when <= now) {
    const LoopTimer id = heap_.top().id;
    heap_.pop();
    auto node = live_.extract(id);
    if (!node.empty()) node.mapped()();
  }
}

void Loop::run() {
  constexpr int kBatch = 32;
  epoll_event events[kBatch];
  while (!stopping()) {
    const int n = ::epoll_wait(epoll_, events, kBatch, wait_ms());
    if (n < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "epoll_wait");
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == 0) {
        drain_posted();
        continue;
      }
      // A handler may unwatch itself or another: look the watch up before each call, and run
      // a copy (a handler that unwatches itself must not destroy the function running).
      const WatchId id = events[i].data.u64;
      if (events[i].events & EPOLLOUT) {
        auto it = watches_.find(id);
        if (it != watches_.end() && it->second.writable) {
          auto fn = it->second.writable;
          fn();
        }
      }
      if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        auto it = watches_.find(id);
        if (it != watches_.end()) {
          auto fn = it->second.fn;
          fn();
        }
      }
    }
    fire_due();
    if (after_round_) after_round_();
  }
}

}  // namespace pmixflow::emul
