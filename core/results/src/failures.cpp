#include "pmixflow/results/failures.hpp"

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

using log::EventKind;
using log::Field;

std::uint64_t rank_count(std::string_view rank_map) {
  std::uint64_t total = 0;
  while (!rank_map.empty()) {
    const auto comma = rank_map.find(',');
    const std::string_view entry = rank_map.substr(0, comma);
    rank_map.remove_prefix(comma == std::string_view::npos ? rank_map.size() : comma + 1);
    const auto colon = entry.rfind(':');
    if (colon == std::string_view::npos) return 0;
    const std::string_view ranks = entry.substr(colon + 1);  // "0-3", or "5" for one rank
    const auto dash = ranks.find('-');
    const auto first = parse_whole<std::uint64_t>(ranks.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_whole<std::uint64_t>(ranks.substr(dash + 1));
    if (!first || !last || *last < *first) return 0;
    total += *last - *first + 1;
  }
  return total;
}

log::KindSet FailureLedger::kinds() {
  return log::kind_set(
      {EventKind::NodeFail, EventKind::NodeReturn, EventKind::JobLaunch, EventKind::JobStart, EventKind::JobEnd});
}

void FailureLedger::apply(const log::EventView& e) {
  switch (e.kind) {
    case EventKind::NodeFail: ++figures_.node_failures; return;
    case EventKind::NodeReturn: ++figures_.node_repairs; return;
    case EventKind::JobLaunch:
      jobs_[std::string(e.str(Field::nspace).value_or(""))].ranks = rank_count(e.str(Field::rank_map).value_or(""));
      return;
    case EventKind::JobStart:
      if (const auto it = jobs_.find(e.str(Field::nspace).value_or("")); it != jobs_.end()) it->second.started = e.t;
      return;
    case EventKind::JobEnd: {
      const auto it = jobs_.find(e.str(Field::nspace).value_or(""));
      if (e.status(Field::status) == Status::ErrJobAbortedBySysEvent) {
        ++figures_.jobs_killed;
        if (it != jobs_.end() && it->second.started >= 0)
          figures_.lost_cpu_s += static_cast<double>(it->second.ranks) * (e.t - it->second.started);
      }
      if (it != jobs_.end()) jobs_.erase(it);
      return;
    }
    default: return;
  }
}

}  // namespace pmixflow
