#include "pmixflow/results/unnamed_statuses.hpp"

namespace pmixflow {

log::KindSet UnnamedStatuses::kinds() {
  log::KindSet kinds;
  for (const log::EventSpec& kind : log::all_kinds()) {
    if (kind.kind == log::EventKind::Send || kind.kind == log::EventKind::Recv) continue;
    for (const log::FieldUse& use : kind.fields)
      if (log::type_of(use.field) == log::FieldType::Status) kinds.set(static_cast<std::size_t>(kind.kind));
  }
  return kinds;
}

void UnnamedStatuses::apply(const log::EventView& e) {
  if (e.kind == log::EventKind::Send || e.kind == log::EventKind::Recv) return;
  for (const log::FieldUse& use : log::spec(e.kind).fields) {
    if (log::type_of(use.field) != log::FieldType::Status) continue;
    if (const auto status = e.status(use.field); status && !status_named(*status)) ++counts_[status_name(*status)];
  }
}

std::size_t UnnamedStatuses::total() const {
  std::size_t n = 0;
  for (const auto& [name, count] : counts_) n += count;
  return n;
}

}  // namespace pmixflow
