// The run for people, on a terminal: the machine, then a replay's metrics or a scenario's
// calls with their answers, then the expectations.
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/vocab.hpp"
#include "report_parts.hpp"

namespace pmixflow::report_detail {
namespace {

double stat(const std::optional<RunEnd>& end, const char* key) {
  if (!end) return 0;
  const auto it = end->stats.find(key);
  return it != end->stats.end() && it->is_number() ? it->get<double>() : 0;
}

// "4 COMPLETED_SUCCESSFULLY, 1 CANCELLED": every request by its final state in jobs.csv.
std::string states_line(const Metrics& m) {
  std::string out;
  for (const auto& [state, count] : m.final_states)
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + state;
  return out.empty() ? "none" : out;
}

// Said only when something failed: a run without failures has nothing to add.
void failure_line(std::ostream& out, const FailureFigures& f) {
  if (f.node_failures == 0 && f.jobs_killed == 0) return;
  out << "  node failures " << f.node_failures << " (" << f.node_repairs << " repaired), jobs killed " << f.jobs_killed
      << ", work lost " << f.lost_cpu_s << " cpu-s\n";
}

void replay_lines(std::ostream& out, const Pieces& p) {
  const Metrics& m = p.metrics;
  std::size_t skipped = 0;
  for (const auto& [reason, count] : p.run.skipped_by_reason) skipped += count;
  out << "  jobs: " << m.jobs << " run, " << m.rejected << " rejected, " << skipped << " skipped in the trace ("
      << states_line(m) << ")\n";
  // --lenient's repairs, on the terminal as in summary.json: the run is not the file as written.
  if (!p.run.repaired_by_reason.empty()) {
    out << "  trace lines repaired (--lenient):";
    std::string sep = " ";
    for (const auto& [repair, count] : p.run.repaired_by_reason) {
      out << sep << count << " " << repair;
      sep = ", ";
    }
    out << "\n";
  }
  out << std::setprecision(6) << "  mean wait " << m.mean_wait_s << " s (max " << m.max_wait_s
      << " s), mean bounded slowdown " << m.mean_bounded_slowdown << ", utilization " << m.utilization << ", makespan "
      << m.makespan_s << " s\n";
  if (m.preemptions > 0) out << "  preemptions " << m.preemptions << ", work lost " << m.lost_cpu_s << " cpu-s\n";
}

// The allocation id an answer named, if it did.
std::string alloc_of(std::string_view answer_info) {
  const auto list = nlohmann::json::parse(answer_info, nullptr, false);
  if (list.is_array())
    for (const auto& item : list)
      if (item.is_array() && item.size() == 2 && item[0] == key::ALLOC_ID && item[1].is_string())
        return item[1].get<std::string>();
  return {};
}

void call_lines(std::ostream& out, const Pieces& p) {
  out << "  calls (requestor#n, what, entry point -> answer):\n";
  for (const CallRecord* c : p.calls.by_requestor()) {
    out << "    " << std::left << std::setw(10) << c->corr << std::setw(26) << c->what << " via " << std::setw(14)
        << c->via << " -> "
        << (c->answered      ? status_name(c->status) + " after " + fmt_seconds(*c->answered - c->sent)
            : c->caller_gone ? "none: its requestor exited " + fmt_seconds(*c->caller_gone - c->sent) + " later"
                             : std::string("NO ANSWER"));
    if (const auto alloc = alloc_of(c->answer_info()); !alloc.empty()) out << " (" << alloc << ")";
    out << "\n";
  }
  out << "  allocation requests: " << states_line(p.metrics) << "\n";
}

}  // namespace

std::string summary_text(const Pieces& p) {
  std::ostringstream out;
  out << "pmixflow " << p.run.env << ": " << p.run.workload() << "\n";
  if (!p.run.description.empty()) out << "  " << p.run.description << "\n";
  out << "  machine: " << p.run.platform << "; " << p.run.nodes << " compute nodes of " << p.run.slots_per_node
      << " slots (" << p.run.topology << "), head " << p.run.head << "\n";
  if (!p.run.host.empty() || !p.run.hostfile.empty())
    out << "  DVM at start: " << (p.run.host.empty() ? "--hostfile " + p.run.hostfile : "--host " + p.run.host)
        << (p.run.trace.empty() ? ", instead of the scenario's controller.dvm\n"
                                : ", instead of every node (a replay's DVM)\n");
  if (p.run.total_slots() > 0)
    out << "  resources (jobs.csv): slots 0-" << p.run.total_slots() - 1 << ", node by node in the machine's order\n";
  if (p.end && p.run.env == "sim")
    out << "  simulated " << fmt_seconds(stat(p.end, "sim_time_s")) << " in " << fmt_seconds(stat(p.end, "wall_s"))
        << " wall; " << static_cast<std::uint64_t>(stat(p.end, "messages")) << " messages, "
        << static_cast<std::uint64_t>(stat(p.end, "daemons_started")) << " daemons started; policy " << p.run.policy
        << "\n";
  else if (p.end)
    out << "  ran " << fmt_seconds(stat(p.end, "scenario_time_s")) << " of scenario time in "
        << fmt_seconds(stat(p.end, "wall_s")) << " wall (speed " << stat(p.end, "speed") << "); "
        << static_cast<std::uint64_t>(stat(p.end, "processes_started")) << " processes, "
        << static_cast<std::uint64_t>(stat(p.end, "messages")) << " messages, "
        << static_cast<std::uint64_t>(stat(p.end, "daemons_started")) << " daemons started; policy " << p.run.policy
        << "\n";
  else
    out << "  the log is cut: what follows is what it holds; policy " << p.run.policy << "\n";
  if (!p.run.trace.empty())
    replay_lines(out, p);
  else
    call_lines(out, p);
  failure_line(out, p.failures);
  out << "  expectations: " << p.expectations.checked << " checked, " << p.expectations.failures.size() << " failed";
  if (p.expectations.unanswered) out << " (" << p.expectations.unanswered << " calls never answered)";
  if (p.expectations.abandoned) out << "; " << p.expectations.abandoned << " abandoned by a requestor that exited";
  out << "\n";
  return out.str();
}

// FILE:LINE: what failed, as a compiler names an error, so an editor can jump to it.
std::string failures_text(const Expectations& e, const std::string& file) {
  std::string out;
  const auto text = [](const nlohmann::json& f, const char* key) {
    return f.contains(key) && f[key].is_string() ? f[key].get<std::string>() : std::string();
  };
  for (const auto& f : e.failures) {
    out += "  FAILED: " + file;
    if (f.contains("line") && f["line"].get<std::size_t>() > 0)
      out += ":" + std::to_string(f["line"].get<std::size_t>());
    out += ": ";
    if (f.contains("assert"))
      out += "assert " + text(f, "assert") + ": " + text(f, "property") + " expected " + text(f, "expected") +
             ", saw " + text(f, "saw");
    else if (f.contains("problem"))
      out += text(f, "corr") + " " + text(f, "problem");
    else
      out += text(f, "corr") + " expected " + text(f, "expected") + ", got " + text(f, "got");
    out += "\n";
  }
  return out;
}

}  // namespace pmixflow::report_detail
