#include "pmixflow/results/call_account.hpp"

namespace pmixflow {

CallAccount account_calls(const RunInfo& run, const CallLedger& calls) {
  CallAccount a;
  a.planned = run.calls_planned;
  for (const auto& [reason, count] : run.skipped_by_reason) a.refused_at_input += count;
  for (const CallRecord& c : calls.calls()) {
    ++a.made;
    if (c.answered)
      ++a.answered;
    else if (c.caller_gone)
      ++a.abandoned;
    else
      ++a.never_answered;
  }
  return a;
}

nlohmann::json to_json(const CallAccount& a) {
  nlohmann::json j{{"made", a.made},
                   {"answered", a.answered},
                   {"abandoned", a.abandoned},
                   {"abandoned_by_reason", nlohmann::json::object()},
                   {"never_answered", a.never_answered},
                   {"refused_at_input", a.refused_at_input}};
  if (a.abandoned > 0) j["abandoned_by_reason"]["requestor_exit"] = a.abandoned;
  if (a.planned) {
    j["planned"] = *a.planned;
    j["never_made"] = a.never_made();
    if (a.unplanned() > 0) j["unplanned"] = a.unplanned();
  }
  return j;
}

}  // namespace pmixflow
