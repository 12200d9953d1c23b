// Failure injection in a scenario (README "Faults"): what fails, and when - at a time, or when
// the run does something (the nth event matching a pattern, after an optional delay).
#include <array>
#include <utility>

#include "scenario_reader.hpp"

namespace pmixflow {

namespace {

constexpr std::array<std::pair<Fault, std::string_view>, 7> kOps{{
    {Fault::NodeDies, "node_fail"},
    {Fault::NodeReturns, "node_return"},
    {Fault::DaemonDies, "daemon_fail"},
    {Fault::DaemonRestarts, "daemon_restart"},
    {Fault::DaemonStartFails, "daemon_start_fails"},
    {Fault::DaemonStartsSlowly, "daemon_start_slow"},
    {Fault::SchedulerStalls, "scheduler_stall"},
}};

}  // namespace

std::string_view fault_op(Fault f) {
  for (const auto& [fault, op] : kOps)
    if (fault == f) return op;
  return "?";
}

namespace scenario_detail {
namespace {

// {"ev":KIND, "who":PARTY, FIELD:VALUE...} with "nth" and "delay" beside it on the line.
FaultTrigger parse_trigger(const json& j, const LineReader& r) {
  FaultTrigger t;
  const nlohmann::json when = nlohmann::json::parse(j.at("when").dump());
  t.match =
      parse_event_match(when, "when", [&r](const std::string& field, const std::string& what) { r.fail(field, what); });
  if (j.contains("nth")) t.nth = r.whole<std::uint32_t>(j["nth"], "nth", 1, UINT32_MAX);
  t.source = when;
  return t;
}

}  // namespace

bool parse_fault(const std::string& op, const json& j, const LineReader& r, std::size_t line,
                 std::vector<FaultEvent>& out) {
  const auto* known = std::find_if(kOps.begin(), kOps.end(), [&op](const auto& o) { return o.second == op; });
  if (known == kOps.end()) return false;
  FaultEvent f;
  f.line = line;
  f.fault = known->first;
  const bool stall = f.fault == Fault::SchedulerStalls;
  // The repair that follows a failure, at the same trigger: "back 5 s later".
  const char* repair = f.fault == Fault::NodeDies     ? "return_after"
                       : f.fault == Fault::DaemonDies ? "restart_after"
                                                      : "";
  const bool slow = f.fault == Fault::DaemonStartsSlowly;
  std::vector<std::string_view> fields{"op", "at", "when", "nth", "delay", stall ? "for" : "node"};
  if (*repair) fields.emplace_back(repair);
  if (slow) fields.emplace_back("by");
  fields.emplace_back("comment");
  r.only(j, fields, "");
  if (j.contains("when")) {
    if (j.contains("at")) r.fail("at", "a fault happens at a time or when something happens (`when`), not both");
    f.when = parse_trigger(j, r);
    f.at = r.number(j, "delay", 0.0);
  } else {
    if (j.contains("nth") || j.contains("delay")) r.fail(j.contains("nth") ? "nth" : "delay", "only with `when`");
    f.at = r.number(j, "at");
  }
  if (stall) {
    f.lasting = r.number(j, "for");
    if (f.lasting <= 0) r.fail("for", "a stall lasts more than 0 s");
  } else {
    f.node = r.string(j, "node");
  }
  if (slow) {
    f.lasting = r.number(j, "by");
    if (f.lasting <= 0) r.fail("by", "a slow start takes more than 0 s longer");
  }
  out.push_back(f);
  if (*repair && j.contains(repair)) {
    FaultEvent back = f;
    back.fault = f.fault == Fault::NodeDies ? Fault::NodeReturns : Fault::DaemonRestarts;
    back.at = f.at + r.number(j, repair);
    out.push_back(std::move(back));
  }
  return true;
}

}  // namespace scenario_detail
}  // namespace pmixflow
