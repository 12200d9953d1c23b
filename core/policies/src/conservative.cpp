#include "pmixflow/policies/conservative.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pmixflow {

namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// How long a request holds its processors: its estimate, for ever without one.
double duration(const QueuedRequest& r) { return r.estimate > 0 ? r.estimate : kForever; }
std::int64_t cpus_of(const QueuedRequest& r) { return static_cast<std::int64_t>(r.cpus); }

}  // namespace

// The profile from the processors free now and (time, change) events: steps in strictly
// increasing time, the first at `now`; an event before `now` counts at `now` (a running job
// past its expected end is taken as ending now), one at +inf never happens. False when some
// step goes below zero: the events ask more than there is.
bool ConservativePolicy::build(Profile& profile, double now, std::int64_t free,
                               std::vector<std::pair<double, std::int64_t>>& events) {
  std::sort(events.begin(), events.end());
  profile.clear();
  profile.push_back(Step{now, free});
  for (const auto& [time, change] : events) {
    if (time == kForever) break;
    if (time > profile.back().time) profile.push_back(Step{time, profile.back().free});
    profile.back().free += change;
  }
  return std::all_of(profile.begin(), profile.end(), [](const Step& s) { return s.free >= 0; });
}

// The index of the step starting at `time` (>= the first step's), made if missing;
// the profile's size for +inf.
std::size_t ConservativePolicy::split_at(Profile& profile, double time) {
  if (time == kForever) return profile.size();
  auto it = std::lower_bound(profile.begin(), profile.end(), time, [](const Step& s, double t) { return s.time < t; });
  if (it != profile.end() && it->time == time) return static_cast<std::size_t>(it - profile.begin());
  const auto at = it - profile.begin();
  const std::int64_t level = at == 0 ? it->free : std::prev(it)->free;
  profile.insert(it, Step{time, level});
  return static_cast<std::size_t>(at);
}

// Whether `cpus` processors are free all through [start, end).
bool ConservativePolicy::fits_at(const Profile& profile, double start, double end, std::int64_t cpus) {
  auto it = std::upper_bound(profile.begin(), profile.end(), start, [](double t, const Step& s) { return t < s.time; });
  if (it != profile.begin()) --it;
  for (; it != profile.end() && it->time < end; ++it)
    if (it->free < cpus) return false;
  return true;
}

// The first step at which `cpus` processors stay free for `duration`, or nothing. Linear: a
// candidate that fails at step j resumes after j.
std::optional<std::size_t> ConservativePolicy::earliest(const Profile& profile, std::int64_t cpus, double duration) {
  const std::size_t n = profile.size();
  std::size_t i = 0;
  while (i < n) {
    if (profile[i].free < cpus) {
      ++i;
      continue;
    }
    const double end = profile[i].time + duration;
    std::size_t j = i + 1;
    while (j < n && profile[j].time < end && profile[j].free >= cpus) ++j;
    if (j == n || profile[j].time >= end) return i;
    i = j + 1;
  }
  return std::nullopt;
}

// Holds `cpus` processors over [start, end); a negative count gives them back.
void ConservativePolicy::take(Profile& profile, double start, double end, std::int64_t cpus) {
  const std::size_t first = split_at(profile, start);
  const std::size_t last = split_at(profile, end);
  for (std::size_t k = first; k < last; ++k) profile[k].free -= cpus;
}

// Whether `profile` has nowhere more processors free than `plan` (which may start earlier).
bool ConservativePolicy::within(const Profile& profile, const Profile& plan) {
  if (plan.empty() || plan.front().time > profile.front().time) return false;
  std::size_t j = 0;
  for (std::size_t i = 0; i < profile.size(); ++i) {
    const double end = i + 1 < profile.size() ? profile[i + 1].time : kForever;
    while (j + 1 < plan.size() && plan[j + 1].time <= profile[i].time) ++j;
    // Every step of the plan over [profile[i].time, end).
    for (std::size_t k = j; k < plan.size() && (k == j || plan[k].time < end); ++k)
      if (plan[k].free < profile[i].free) return false;
  }
  return true;
}

std::optional<double> ConservativePolicy::reserved_start(std::uint64_t key) const {
  auto it = reserved_.find(key);
  if (it == reserved_.end()) return std::nullopt;
  return it->second;
}

void ConservativePolicy::add_running(const SchedulingView& view) {
  events_.clear();
  for (const auto& r : view.running())
    if (r.expected_end != kForever) events_.emplace_back(r.expected_end, static_cast<std::int64_t>(r.cpus));
}

bool ConservativePolicy::restore_plan(const SchedulingView& view, std::span<const QueuedRequest> queue) {
  const double now = view.now();
  const auto free_now = static_cast<std::int64_t>(view.free_cpus());
  // The reservations held from the last calls; one whose start went by is no longer kept.
  held_.assign(queue.size(), kNone);
  bool stale = false;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    auto it = reserved_.find(queue[i].key);
    if (it == reserved_.end()) continue;
    held_[i] = it->second;
    stale = stale || it->second < now;
  }
  // The running allocations, then every reservation held: a sort, when they all still fit.
  add_running(view);
  if (!stale) {
    for (std::size_t i = 0; i < queue.size(); ++i) {
      if (std::isnan(held_[i])) continue;
      events_.emplace_back(held_[i], -cpus_of(queue[i]));
      const double end = held_[i] + duration(queue[i]);
      if (end != kForever) events_.emplace_back(end, cpus_of(queue[i]));
    }
  }
  // After a pass that moved nobody, compressing again moves nobody until processors come
  // free that the plan did not count on (an early end, a request gone, a shorter limit).
  if (!stale && build(profile_, now, free_now, events_)) return !settled_ || !within(profile_, plan_);
  // The plan no longer holds: place the held reservations again in queue order, each kept
  // if it still fits among the earlier ones, else moved to its earliest start among them.
  add_running(view);
  build(profile_, now, free_now, events_);
  for (std::size_t i = 0; i < queue.size(); ++i) {
    if (std::isnan(held_[i])) continue;
    const QueuedRequest& q = queue[i];
    const double d = duration(q);
    if (held_[i] < now || !fits_at(profile_, held_[i], held_[i] + d, cpus_of(q))) {
      const auto at = earliest(profile_, cpus_of(q), d);
      if (!at) {
        held_[i] = kNone;
        reserved_.erase(q.key);
        continue;
      }
      held_[i] = reserved_[q.key] = profile_[*at].time;
    }
    take(profile_, held_[i], held_[i] + d, cpus_of(q));
  }
  return true;
}

std::optional<std::uint64_t> ConservativePolicy::compress(const SchedulingView& view,
                                                          std::span<const QueuedRequest> queue, bool moving) {
  // Compression, in queue order: each request takes out its reservation and goes back at
  // the earliest start it fits among all the others (never later than the one it held);
  // a request new to the queue gets the earliest start left. Round the queue again until
  // nobody has moved for a whole turn: one moving up can make room for one before it, and a
  // reservation left where nothing comes free would wait for an event that may never come.
  const double now = view.now();
  const std::size_t n = queue.size();
  for (std::size_t i = 0, still = 0; still < n; i = i + 1 == n ? 0 : i + 1) {
    const QueuedRequest& q = queue[i];
    const std::int64_t cpus = cpus_of(q);
    const double d = duration(q);
    const bool held = !std::isnan(held_[i]);
    ++still;
    if (held && !moving) {  // settled: it starts where it is or not at all
      if (held_[i] == now && view.fits_now(q)) {
        reserved_.erase(q.key);
        return q.key;
      }
      continue;
    }
    if (held) take(profile_, held_[i], held_[i] + d, -cpus);
    const auto at = earliest(profile_, cpus, d);
    if (!at) {  // never fits: no reservation, and it blocks nobody
      held_[i] = kNone;
      reserved_.erase(q.key);
      continue;
    }
    const double start = profile_[*at].time;
    if (start == now && view.fits_now(q)) {
      reserved_.erase(q.key);
      settled_ = settled_ && !moving;  // the requests after it are still to compress
      return q.key;
    }
    take(profile_, start, start + d, cpus);
    if (held && start != held_[i]) still = 1;
    held_[i] = reserved_[q.key] = start;
  }
  return std::nullopt;
}

void ConservativePolicy::settle(std::span<const QueuedRequest> queue) {
  // Nothing starts, nobody moves: the plan is settled until processors come free earlier
  // than it says.
  plan_ = profile_;
  settled_ = true;
  // Forget the requests that left the queue.
  if (reserved_.size() <= queue.size()) return;
  std::unordered_map<std::uint64_t, double> kept;
  kept.reserve(queue.size());
  for (const auto& q : queue)
    if (auto it = reserved_.find(q.key); it != reserved_.end()) kept.emplace(q.key, it->second);
  reserved_ = std::move(kept);
}

std::optional<std::uint64_t> ConservativePolicy::next(const SchedulingView& view) {
  const auto queue = view.queue();
  if (queue.empty()) {
    reserved_.clear();
    settled_ = false;
    return std::nullopt;
  }
  const bool moving = restore_plan(view, queue);
  if (auto key = compress(view, queue, moving)) return key;
  settle(queue);
  return std::nullopt;
}

}  // namespace pmixflow
