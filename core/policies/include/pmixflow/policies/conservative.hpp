#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

// Conservative backfilling (Mu'alem & Feitelson, 2001): every queued request holds a
// reservation, and a request is backfilled only where it delays none of them.
//
// The plan is an availability profile in processors (`cpus`; whole-node requests count all
// their slots): the free processors now, released at the running allocations' expected ends,
// minus the reservations, each held from its start for the request's whole estimate (no
// estimate: for ever). A request that can never fit has no reservation and blocks nobody.
//
// Reservations are kept from call to call, and the plan is compressed as the paper does when
// a job ends early: in queue order, a request's reservation is taken out and put back at the
// earliest start where it fits among all the others, which is never later than the one it
// held; round the queue again until nobody moves. A request new to the queue is placed the
// same way, after every existing reservation. The first request, in queue order, whose
// reservation starts now and that `fits_now` is the answer. Rebuilding the plan from scratch
// in queue order each time would not keep the promise: a request moving up could take the
// slot of a later one.
//
// Once a pass has moved nobody, compressing again moves nobody until processors come free
// that the plan did not count on (an early end, a request gone, a shorter limit): until then
// a call only places the new requests and starts those whose reservation is now.
//
// When the plan no longer holds (a reservation whose start went by without its request
// starting, a job running past its expected end, a limit raised, a node lost), the requests
// are placed again in queue order: a reservation that still fits among the earlier ones is
// kept, one that does not is moved to the earliest start that does. A job past its expected
// end counts as ending now.
class ConservativePolicy final : public Policy {
 public:
  std::string_view name() const override { return "conservative"; }
  std::optional<std::uint64_t> next(const SchedulingView& view) override;

  // The start a queued request holds, as of the last call: nothing for one not placed yet,
  // one that can never fit, or one started.
  std::optional<double> reserved_start(std::uint64_t key) const;

 private:
  struct Step {
    double time;        // from this time until the next step's,
    std::int64_t free;  // this many processors are free
  };
  using Profile = std::vector<Step>;

  static bool build(Profile& profile, double now, std::int64_t free,
                    std::vector<std::pair<double, std::int64_t>>& events);
  static std::size_t split_at(Profile& profile, double time);
  static bool fits_at(const Profile& profile, double start, double end, std::int64_t cpus);
  static std::optional<std::size_t> earliest(const Profile& profile, std::int64_t cpus, double duration);
  static void take(Profile& profile, double start, double end, std::int64_t cpus);
  static bool within(const Profile& profile, const Profile& plan);

  void add_running(const SchedulingView& view);
  // The plan from the reservations held; true when a compression pass may move somebody.
  bool restore_plan(const SchedulingView& view, std::span<const QueuedRequest> queue);
  // The request that starts now, if one does, after compressing (`moving`) or not.
  std::optional<std::uint64_t> compress(const SchedulingView& view, std::span<const QueuedRequest> queue,
                                        bool moving);
  void settle(std::span<const QueuedRequest> queue);

  std::unordered_map<std::uint64_t, double> reserved_;  // key -> reserved start
  // Scratch, kept to spare the allocations on every call.
  Profile profile_;
  std::vector<std::pair<double, std::int64_t>> events_;
  std::vector<double> held_;  // per queue position: reserved start, NaN for none
  // The profile after the last pass that started nobody (nobody moved in it either):
  // compressing again moves nobody while no step has more processors free than it.
  Profile plan_;
  bool settled_ = false;
};

}  // namespace pmixflow
