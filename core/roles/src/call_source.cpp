#include "pmixflow/roles/call_source.hpp"

#include <algorithm>

namespace pmixflow {

PlanList::PlanList(std::vector<PlannedCall> plan) : plan_(std::move(plan)) {
  std::stable_sort(plan_.begin(), plan_.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
}

std::optional<double> PlanList::next_at() const {
  if (next_ >= plan_.size()) return std::nullopt;
  return plan_[next_].at;
}

PlannedCall PlanList::take() { return std::move(plan_[next_++]); }

}  // namespace pmixflow
