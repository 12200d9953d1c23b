#pragma once

#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

// EASY backfilling (Lifka, 1995): the queue head gets one reservation, at the earliest time
// enough processors are free by the running jobs' estimates (its shadow time). Any later job,
// in queue order, may start now if it fits and either ends by its estimate before the shadow
// time or uses only the processors the head will not need then (the extra processors).
class EasyPolicy final : public Policy {
 public:
  std::string_view name() const override { return "easy"; }
  std::optional<std::uint64_t> next(const SchedulingView& view) override;
};

}  // namespace pmixflow
