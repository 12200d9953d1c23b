#include "pmixflow/trace/replay_calls.hpp"

#include <algorithm>
#include <iterator>

namespace pmixflow {

ReplayCalls::ReplayCalls(std::vector<ReplayJob> jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  jobs_.assign(std::make_move_iterator(jobs.begin()), std::make_move_iterator(jobs.end()));
}

std::optional<double> ReplayCalls::next_at() const {
  if (jobs_.empty()) return std::nullopt;
  return jobs_.front().at;
}

PlannedCall ReplayCalls::take() {
  PlannedCall call = replay_call(jobs_.front());
  jobs_.pop_front();
  return call;
}

}  // namespace pmixflow
