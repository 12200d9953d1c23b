// Every call a workload plans, accounted for once: answered, abandoned because its requestor
// had gone, still unanswered when the run ended, never made at all, or refused when the input
// was read (a trace line --lenient left out). A run may claim it held only when each planned
// call is in the first two classes (README, "Exit status").
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "pmixflow/results/ledger.hpp"
#include "pmixflow/results/run_info.hpp"

namespace pmixflow {

struct CallAccount {
  std::optional<std::uint64_t> planned;  // the header's calls_planned; none in a log older than it
  std::uint64_t made = 0;                // calls the log shows placed
  std::uint64_t answered = 0;
  std::uint64_t abandoned = 0;  // unanswered, its requestor gone first (requestor_exit)
  std::uint64_t never_answered = 0;
  std::uint64_t refused_at_input = 0;  // trace lines the replay left out (--lenient)

  // Planned but not in the log: a call the run never made.
  std::uint64_t never_made() const { return planned && *planned > made ? *planned - made : 0; }
  // In the log but not planned: a log that does not belong to its header.
  std::uint64_t unplanned() const { return planned && made > *planned ? made - *planned : 0; }
  bool whole() const { return never_answered == 0 && never_made() == 0 && unplanned() == 0; }
};

CallAccount account_calls(const RunInfo& run, const CallLedger& calls);

// summary.json's and the closing line's "call_account".
nlohmann::json to_json(const CallAccount& a);

}  // namespace pmixflow
