#pragma once

#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

// First come, first served: the queue head starts as soon as it fits; nothing overtakes it.
class FcfsPolicy final : public Policy {
 public:
  std::string_view name() const override { return "fcfs"; }
  std::optional<std::uint64_t> next(const SchedulingView& view) override;
};

}  // namespace pmixflow
