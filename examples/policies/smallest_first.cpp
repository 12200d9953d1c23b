// smallest-first: a user policy for pmixflow, loaded with `pmixflow sim --policy libsmallest_first.so`.
//
// Among the queued jobs that fit on the machine now, start the one with the shortest time
// estimate (shortest-job-first). Short jobs stop waiting behind long ones, which lowers the
// mean wait and slowdown, but a long or wide job could then wait forever. Starvation
// protection bounds that: once the job that has waited longest has waited more than
// PMIXFLOW_SMALLEST_FIRST_MAX_WAIT seconds (default: one day), it becomes the queue head - it
// starts as soon as it fits, and until then only jobs that cannot delay it start (EASY's
// reservation for the head: they end before it could start, or use processors it will not need).
//
// See README.md in this directory for the interface, the build and how to compare runs.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/policies/plugin.hpp"

namespace {

constexpr double kDefaultMaxWait = 24 * 3600.0;

// The starvation threshold in seconds, from the environment (a policy library has no
// command-line options of its own). An unusable value is an error, not silently the default.
double max_wait_from_environment() {
  const char* text = std::getenv("PMIXFLOW_SMALLEST_FIRST_MAX_WAIT");
  if (text == nullptr || *text == '\0') return kDefaultMaxWait;
  const std::string_view s(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !(value >= 0))
    throw std::invalid_argument("PMIXFLOW_SMALLEST_FIRST_MAX_WAIT expects a number of seconds >= 0 (or inf), got '" +
                                std::string(s) + "'");
  return value;
}

// When the oldest job cannot start yet, the processors it waits for: the time by which enough
// of them will be free, by the running jobs' expected ends (EASY's "shadow time"), and how many
// will then be left over ("extra"). A job that ends before the shadow time, or uses only extra
// processors, cannot delay it.
struct Reservation {
  double shadow = std::numeric_limits<double>::infinity();
  std::uint64_t extra = 0;
};

Reservation reserve_for(const pmixflow::QueuedRequest& job, const pmixflow::SchedulingView& view) {
  std::vector<pmixflow::RunningAllocation> running(view.running().begin(), view.running().end());
  std::sort(running.begin(), running.end(), [](const auto& a, const auto& b) {
    return a.expected_end != b.expected_end ? a.expected_end < b.expected_end : a.key < b.key;
  });
  Reservation r;
  std::uint64_t available = view.free_cpus();
  for (const auto& alloc : running) {
    available += alloc.cpus;
    if (available >= job.cpus) {
      r.shadow = alloc.expected_end;
      r.extra = available - job.cpus;
      break;
    }
  }
  return r;
}

class SmallestFirst final : public pmixflow::Policy {
 public:
  SmallestFirst() : max_wait_(max_wait_from_environment()) {}

  std::string_view name() const override { return "smallest-first"; }

  std::optional<std::uint64_t> next(const pmixflow::SchedulingView& view) override {
    const auto queue = view.queue();
    if (queue.empty()) return std::nullopt;

    // Starvation protection: the job that has waited longest (the first submitted; the earlier
    // in the queue on a tie), once it has waited more than max_wait_, is the head: it starts as
    // soon as it fits, and until then nothing starts that would delay it.
    const pmixflow::QueuedRequest* oldest = &queue.front();
    for (const auto& job : queue)
      if (job.submit_time < oldest->submit_time) oldest = &job;
    std::optional<Reservation> reservation;
    if (view.now() - oldest->submit_time > max_wait_) {
      if (view.fits_now(*oldest)) return oldest->key;
      reservation = reserve_for(*oldest, view);
    }

    // Shortest estimate first among the jobs that fit now (and do not delay a starving head);
    // a job without an estimate may run forever, so it comes last. Ties: fewer processors
    // first, then queue order.
    const pmixflow::QueuedRequest* best = nullptr;
    for (const auto& job : queue) {
      if (!view.fits_now(job)) continue;
      if (reservation && !(view.now() + length(job) <= reservation->shadow || job.cpus <= reservation->extra)) continue;
      if (best == nullptr || shorter(job, *best)) best = &job;
    }
    if (best == nullptr) return std::nullopt;
    return best->key;
  }

 private:
  static double length(const pmixflow::QueuedRequest& job) {
    return job.estimate > 0 ? job.estimate : std::numeric_limits<double>::infinity();
  }
  static bool shorter(const pmixflow::QueuedRequest& a, const pmixflow::QueuedRequest& b) {
    if (length(a) != length(b)) return length(a) < length(b);
    return a.cpus < b.cpus;
  }

  double max_wait_;
};

}  // namespace

PMIXFLOW_EXPORT_POLICY(SmallestFirst);
