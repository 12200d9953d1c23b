#include "pmixflow/policies/fcfs.hpp"

namespace pmixflow {

std::optional<std::uint64_t> FcfsPolicy::next(const SchedulingView& view) {
  auto queue = view.queue();
  if (queue.empty() || !view.fits_now(queue.front())) return std::nullopt;
  return queue.front().key;
}

}  // namespace pmixflow
