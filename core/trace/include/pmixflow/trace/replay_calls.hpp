// One requestor's share of a replayed trace, as a source of calls: it holds its jobs as
// ReplayJob and builds each call only when it is due, dropping the job once taken.
#pragma once

#include <deque>
#include <vector>

#include "pmixflow/roles/call_source.hpp"
#include "pmixflow/trace/replay.hpp"

namespace pmixflow {

class ReplayCalls final : public CallSource {
 public:
  // `jobs` with their entry points resolved; placed in time order (ties in the given order).
  explicit ReplayCalls(std::vector<ReplayJob> jobs);
  std::optional<double> next_at() const override;
  PlannedCall take() override;

 private:
  std::deque<ReplayJob> jobs_;  // a deque gives back its memory as the jobs are taken
};

}  // namespace pmixflow
