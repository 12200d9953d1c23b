// The pieces of a report, each from the accounts rebuilt from the log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/results/call_account.hpp"
#include "pmixflow/results/failures.hpp"
#include "pmixflow/results/ledger.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/results/run_info.hpp"
#include "pmixflow/results/run_outcomes.hpp"
#include "pmixflow/results/unnamed_statuses.hpp"

namespace pmixflow::report_detail {

// Every call's answer against what the scenario expected of it.
// The expectations a run was held to and those that failed. How many calls were answered,
// abandoned or never answered is CallAccount's to say, once.
struct Expectations {
  std::size_t checked = 0;
  nlohmann::json failures = nlohmann::json::array();
};
Expectations check_expectations(const CallLedger& calls);
// A call planned and never made, or one in the log the header did not plan, fails the run as
// an unanswered call does: what it claims would not cover every call.
void check_account(const CallAccount& account, Expectations& e);

// What the run's closing line says: its end and the environment's counters.
struct RunEnd {
  std::string how;  // the closing line's `end`: "quiescent", "stalled: ...", "timeout", ...
  std::uint64_t events = 0;
  nlohmann::json stats = nlohmann::json::object();
};

struct Pieces {
  const RunInfo& run;
  const CallLedger& calls;
  const AllocationLedger& scheduler;
  const std::optional<RunEnd>& end;
  const Metrics& metrics;
  const FailureFigures& failures;
  const Expectations& expectations;
  const CallAccount& account;
  const std::optional<RecordedComparison>& recorded;
  const UnnamedStatuses& unnamed;
};

nlohmann::json summary(const Pieces& p);
// summary.json's "estimates": the rule, the trace's missing and shorter estimates, how many
// were raised to the run time, and the jobs ended at their limit (COMPLETED_WALLTIME_REACHED).
nlohmann::json estimates_json(const Pieces& p);
std::string summary_text(const Pieces& p);
std::string failures_text(const Expectations& e, const std::string& file);

}  // namespace pmixflow::report_detail
