#include "pmixflow/policies/easy.hpp"

#include "pmixflow/policies/backfill.hpp"

namespace pmixflow {

std::optional<std::uint64_t> EasyPolicy::next(const SchedulingView& view) { return easy_pick(view, view.queue()); }

}  // namespace pmixflow
