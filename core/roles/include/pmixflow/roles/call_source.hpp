// Where a requestor's calls come from, in time order: a plan given whole (a scenario's few
// calls), or one that builds each call only when it is due (a replayed trace's hundreds of
// thousands), so that what a requestor holds is what it has yet to ask, compactly.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "pmixflow/proto/env.hpp"

namespace pmixflow {

using Call = std::variant<AllocRequest, SessionCtrlRequest, SpawnRequest>;

// What the plan says about a call besides the call itself; the requestor writes it into the
// call's event, so that the log alone tells what was expected of each call.
struct CallNotes {
  std::size_t line = 0;                 // of the scenario or trace file; 0: none
  std::optional<Status> expect;         // the status the scenario expects
  std::optional<double> recorded_wait;  // a replayed job's wait on the traced machine (SWF field 3)
};

struct PlannedCall {
  double at = 0;
  Address via;
  Call call;  // ids are assigned when sent; corr is set by the planner
  CallNotes notes;
};

class CallSource {
 public:
  virtual ~CallSource() = default;
  // When the next call is due; none: every call has been taken.
  virtual std::optional<double> next_at() const = 0;
  // The next call (only when next_at() has one); the source keeps nothing of it.
  virtual PlannedCall take() = 0;
};

// A plan given whole, placed in time order (calls planned for the same time in the plan's order).
class PlanList final : public CallSource {
 public:
  explicit PlanList(std::vector<PlannedCall> plan);
  std::optional<double> next_at() const override;
  PlannedCall take() override;

 private:
  std::vector<PlannedCall> plan_;
  std::size_t next_ = 0;
};

}  // namespace pmixflow
