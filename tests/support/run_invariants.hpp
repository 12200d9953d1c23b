// What every finished run must keep, whichever environment ran it: held by the whole-run fuzzer
// (tests/sim/fault_property_test.cpp) and the emulation fault harness
// (tests/emul_run/fault_harness_test.cpp) alike, so that both campaigns hold runs to one account.
//   - every call accounted for once (summary.json `call_account`: made = answered + abandoned
//     + never_answered, never_made = 0, unplanned = 0), exit 0 only when none was left
//     unanswered and exit 1 only when one was;
//   - the log's own invariants (results/invariants.hpp): no call answered twice, every session
//     complete at most once and, when the run ends quiescent, every session instantiated
//     complete; the log whole (log.end last) and in time order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/results/invariants.hpp"

namespace pmixflow::test {

// What summary.json's call account breaks: one sentence each.
inline std::vector<std::string> account_breaches(const std::filesystem::path& summary_file, int exit_code) {
  std::ifstream in(summary_file);
  if (!in) return {"no summary.json after an exit " + std::to_string(exit_code)};
  const nlohmann::json a = nlohmann::json::parse(in, nullptr, false)["call_account"];
  if (!a.is_object()) return {"summary.json has no call_account"};
  const auto n = [&](const char* k) { return a.value(k, std::int64_t{0}); };
  std::vector<std::string> b;
  if (n("made") != n("answered") + n("abandoned") + n("never_answered"))
    b.push_back("call_account: made " + std::to_string(n("made")) + " != answered + abandoned + never_answered");
  if (n("never_made") != 0) b.push_back("call_account: never_made " + std::to_string(n("never_made")));
  if (n("unplanned") != 0) b.push_back("call_account: unplanned " + std::to_string(n("unplanned")));
  if (exit_code == 0 && n("never_answered") != 0) b.push_back("exit 0 with calls never answered");
  if (exit_code == 1 && n("never_answered") == 0) b.push_back("exit 1 though every call was answered");
  return b;
}

// Every breach of a run that finished (exit 0 or 1) with its outputs in `out`; empty when it held.
// Throws when the log cannot be read at all.
inline std::vector<std::string> finished_run_breaches(const std::filesystem::path& out, int exit_code) {
  std::vector<std::string> b = account_breaches(out / "summary.json", exit_code);
  const auto log_file = out / "events.jsonl";
  if (!std::filesystem::exists(log_file)) return {"no events.jsonl"};
  const InvariantReport report = check_invariants(log_file.string());
  b.insert(b.end(), report.breaches.begin(), report.breaches.end());
  // The only calls left unanswered are those the scheduler still holds, for an RM gone for good
  // or for resources held for good; the run says so (exit 1).
  if (exit_code == 1 && report.waiting_for_rm.empty() && report.waiting_for_resources.empty())
    b.push_back("exit 1 with no call held at the scheduler");
  return b;
}

}  // namespace pmixflow::test
