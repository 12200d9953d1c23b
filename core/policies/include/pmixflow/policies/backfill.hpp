// EASY backfilling as a building block: policies that order the queue their own way (by
// priority, say) still backfill around the first request's reservation by the same rule.
#pragma once

#include <optional>
#include <span>

#include "pmixflow/policies/policy.hpp"

namespace pmixflow {

// The first of `ordered` if it fits now; otherwise the first later request that fits now and
// either ends by its estimate before the first's shadow time or uses only the extra
// processors (those the first will not need at its shadow time). Allocations that are ending
// count as free at once.
std::optional<std::uint64_t> easy_pick(const SchedulingView& view, std::span<const QueuedRequest> ordered);

}  // namespace pmixflow
