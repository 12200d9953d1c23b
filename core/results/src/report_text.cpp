// The run for people, on a terminal: the machine, then a replay's metrics or a scenario's
// calls with their answers, then the expectations. Only the lines that say something about
// this run: a count of nothing is left out (a trace has no expectations to report), a figure
// is in a person's units (human_text.hpp), and what summary.json holds for a study is here too.
#include <algorithm>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/human_text.hpp"
#include "pmixflow/vocab/vocab.hpp"
#include "report_parts.hpp"

namespace pmixflow::report_detail {
namespace {

double stat(const std::optional<RunEnd>& end, const char* key) {
  if (!end) return 0;
  const auto it = end->stats.find(key);
  return it != end->stats.end() && it->is_number() ? it->get<double>() : 0;
}

std::uint64_t count_stat(const std::optional<RunEnd>& end, const char* key) {
  return static_cast<std::uint64_t>(stat(end, key));
}

// "4 COMPLETED_SUCCESSFULLY, 1 CANCELLED", "2 runtime < 0": a count per name, as summary.json
// has them.
std::string counts_line(const std::map<std::string, std::size_t>& counts) {
  std::string out;
  for (const auto& [name, count] : counts) out += (out.empty() ? "" : ", ") + grouped(count) + " " + name;
  return out.empty() ? "none" : out;
}

// Said only when something failed: a run without failures has nothing to add.
void failure_line(std::ostream& out, const FailureFigures& f) {
  if (f.node_failures == 0 && f.jobs_killed == 0) return;
  out << "  node failures: " << grouped(f.node_failures) << " (" << grouped(f.node_repairs) << " repaired), "
      << counted(f.jobs_killed, "job") << " killed, " << significant(f.lost_cpu_s) << " cpu-s of work lost\n";
}

// "jobs: 140 run, 8 rejected (...)", then what the trace had that was not run, or was put
// right, when it had any.
void jobs_lines(std::ostream& out, const Pieces& p) {
  const Metrics& m = p.metrics;
  out << "  jobs: " << grouped(m.jobs) << " run";
  if (m.rejected > 0) out << ", " << grouped(m.rejected) << " rejected";
  out << " (" << counts_line(m.final_states) << ")\n";
  std::size_t skipped = 0;
  for (const auto& [reason, count] : p.run.skipped_by_reason) skipped += count;
  if (skipped > 0)
    out << "  skipped in the trace: " << counted(skipped, "job line") << " (" << counts_line(p.run.skipped_by_reason)
        << ")\n";
  // --lenient's repairs, on the terminal as in summary.json: the run is not the file as written.
  if (!p.run.repaired_by_reason.empty())
    out << "  trace lines repaired (--lenient): " << counts_line(p.run.repaired_by_reason) << "\n";
}

// What became of the trace's missing and short estimates, when it had any or a job was ended
// at its limit: the run is not the trace as written, and says how.
void estimates_line(std::ostream& out, const Pieces& p) {
  if (p.run.estimate_rule().empty()) return;
  const nlohmann::json e = estimates_json(p);
  const auto missing = e["missing"].get<std::size_t>(), shorter = e["shorter"].get<std::size_t>();
  const auto ended = e["ended_at_limit"].get<std::size_t>();
  if (missing + shorter + ended == 0) return;
  const std::string cases = grouped(missing) + " missing, " + grouped(shorter) + " shorter than the run time";
  if (e["rule"] == "raised")
    out << "  estimates raised to the run time (--estimates raised): " << counted(missing + shorter, "job") << " ("
        << cases << ")";
  else
    out << "  estimates as recorded (--estimates recorded): " << cases << " (a missing one is no limit)";
  if (ended > 0 || e["rule"] == "recorded")
    out << "; " << grouped(ended) << " ended at their limit (COMPLETED_WALLTIME_REACHED)";
  out << "\n";
}

// Codes PMIx has no name for: said, each with how many events carried it.
void unnamed_line(std::ostream& out, const Pieces& p) {
  if (p.unnamed.counts().empty()) return;
  out << "  statuses PMIx has no name for: " << counts_line(p.unnamed.counts()) << "\n";
}

// "mean 1 h 47 min, p50 12 min, p90 5 h 3 min, p99 1 d 2 h"
template <typename Show>
std::string spread(double mean, const Percentiles& p, Show show) {
  return "mean " + show(mean) + ", p50 " + show(p.p50) + ", p90 " + show(p.p90) + ", p99 " + show(p.p99);
}

void metric_lines(std::ostream& out, const Metrics& m) {
  // Without a job that ran there is no wait, slowdown, utilisation nor makespan to speak of.
  if (m.wait_percentiles && m.slowdown_percentiles) {
    const auto measure = [](double v) { return significant(v); };
    out << "  wait: " << spread(m.mean_wait_s, *m.wait_percentiles, human_duration) << ", max "
        << human_duration(m.max_wait_s) << "\n";
    out << "  bounded slowdown: " << spread(m.mean_bounded_slowdown, *m.slowdown_percentiles, measure) << "\n";
    out << "  utilization " << significant(m.utilization) << ", makespan " << human_duration(m.makespan_s) << "\n";
  }
  if (m.preemptions > 0)
    out << "  preemptions: " << grouped(m.preemptions) << ", " << significant(m.lost_cpu_s) << " cpu-s of work lost\n";
}

// summary.json's "recorded", for people; said also when no job could be compared.
void recorded_line(std::ostream& out, const Pieces& p) {
  if (!p.run.compare_recorded) return;
  out << "  recorded waits (--compare-recorded): ";
  if (!p.recorded) {
    out << "no job to compare (none ran with a recorded wait)\n";
    return;
  }
  const RecordedComparison& r = *p.recorded;
  out << counted(r.jobs_compared, "job") << " compared; mean recorded wait " << human_duration(r.mean_recorded_wait_s)
      << ", mean absolute deviation " << human_duration(r.mean_abs_deviation_s) << ", correlation "
      << significant(r.correlation) << ", " << significant(r.share_within_10_min * 100) << " % within 10 min\n";
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
  const auto calls = p.calls.by_requestor();
  // Columns as wide as their longest entry ("scheduler#12"), never run together.
  std::size_t corr_width = 9, what_width = 25;
  for (const CallRecord* c : calls) {
    corr_width = std::max(corr_width, c->corr.size());
    what_width = std::max(what_width, c->what.size());
  }
  for (const CallRecord* c : calls) {
    out << "    " << std::left << std::setw(static_cast<int>(corr_width + 1)) << c->corr
        << std::setw(static_cast<int>(what_width + 1)) << c->what << " via " << std::setw(14) << c->via << " -> "
        << (c->answered      ? status_name(c->status) + " after " + human_duration(*c->answered - c->sent)
            : c->caller_gone ? "none: its requestor exited " + human_duration(*c->caller_gone - c->sent) + " later"
                             : std::string("NO ANSWER"));
    if (const auto alloc = alloc_of(c->answer_info()); !alloc.empty()) out << " (" << alloc << ")";
    out << "\n";
  }
  out << "  allocation requests: " << counts_line(p.metrics.final_states) << "\n";
}

// How long the run took and what it cost the environment, from the log's closing line.
void run_line(std::ostream& out, const Pieces& p) {
  const std::string tail = counted(count_stat(p.end, "messages"), "message") + ", " +
                           counted(count_stat(p.end, "daemons_started"), "daemon") + " started; policy " +
                           p.run.policy + "\n";
  if (p.end && p.run.env == "sim")
    out << "  simulated " << human_duration(stat(p.end, "sim_time_s")) << " in "
        << human_duration(stat(p.end, "wall_s")) << " wall; " << tail;
  else if (p.end)
    out << "  ran " << human_duration(stat(p.end, "scenario_time_s")) << " of scenario time in "
        << human_duration(stat(p.end, "wall_s")) << " wall (speed " << significant(stat(p.end, "speed")) << "); "
        << counted(count_stat(p.end, "processes_started"), "process", "processes") << ", " << tail;
  else
    out << "  the log is cut: what follows is what it holds; policy " << p.run.policy << "\n";
}

// How late the emulation's parties acted against scenario time, and, when that exceeded the room
// the scenario leaves, a warning naming the first action beyond it and a faithful speed.
void lateness_lines(std::ostream& out, const Pieces& p) {
  if (!p.end || !p.end->stats.contains("lateness")) return;
  const nlohmann::json& l = p.end->stats["lateness"];
  const auto seconds = [&](const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? human_duration(j[key].get<double>()) : std::string("?");
  };
  if (l.value("actions", 0) == 0) return;
  out << "  late against scenario time: p50 " << seconds(l, "p50_s") << ", p90 " << seconds(l, "p90_s") << ", max "
      << seconds(l, "max_s") << " ("
      << counted(l["actions"].get<std::uint64_t>(), "timer or job end", "timers and job ends") << ")\n";
  if (!l.contains("first_beyond")) return;
  const nlohmann::json& f = l["first_beyond"];
  out << "  WARNING: the emulation could not keep its clock: up to " << seconds(l, "max_s")
      << " late, more than the scenario leaves (" << l.value("allowed_by", std::string()) << "); first "
      << f.value("what", std::string()) << " due at " << seconds(f, "due_s") << ", " << seconds(f, "late_s")
      << " late. Its outcomes may differ from the simulator's: --speed " << significant(l.value("faithful_speed", 0.0))
      << " or slower would keep it within\n";
}

// Every call in one class (call_account.hpp): "calls: 9 planned: 8 answered, 1 abandoned (its
// requestor exited)". A class with none is left out, but the answered.
void account_line(std::ostream& out, const CallAccount& a) {
  if (!a.planned && a.made == 0) return;
  out << "  calls: ";
  if (a.planned)
    out << grouped(*a.planned) << " planned";
  else
    out << grouped(a.made) << " made";
  out << (a.answered == (a.planned ? *a.planned : a.made) ? ", " : ": ") << grouped(a.answered) << " answered";
  if (a.abandoned) out << ", " << grouped(a.abandoned) << " abandoned (its requestor exited)";
  if (a.never_answered) out << ", " << grouped(a.never_answered) << " never answered";
  if (a.never_made()) out << ", " << grouped(a.never_made()) << " never made";
  if (a.unplanned()) out << ", " << grouped(a.unplanned()) << " not planned";
  if (a.refused_at_input) out << "; " << counted(a.refused_at_input, "trace line") << " refused at input";
  out << "\n";
}

// Said when the run had something to check, or a call went unanswered: a trace has nothing.
void expectations_line(std::ostream& out, const Expectations& e, const CallAccount& a) {
  if (e.checked == 0 && e.failures.empty()) return;
  out << "  expectations: " << grouped(e.checked) << " checked, " << grouped(e.failures.size()) << " failed";
  if (a.never_answered) out << " (" << counted(a.never_answered, "call") << " never answered)";
  out << "\n";
}

}  // namespace

std::string summary_text(const Pieces& p) {
  std::ostringstream out;
  out << "pmixflow " << p.run.env << ": " << p.run.workload() << "\n";
  if (!p.run.description.empty()) out << "  " << p.run.description << "\n";
  out << "  machine: " << p.run.platform << "; " << counted(p.run.nodes, "compute node") << " of "
      << counted(p.run.slots_per_node, "slot") << " (" << p.run.topology << "), head " << p.run.head << "\n";
  if (!p.run.host.empty() || !p.run.hostfile.empty())
    out << "  DVM at start: "
        << (p.run.host.empty()       ? "--hostfile " + p.run.hostfile
            : p.run.hostfile.empty() ? "--host " + p.run.host
                                     : "--hostfile " + p.run.hostfile + " filtered by --host " + p.run.host)
        << (p.run.trace.empty() ? ", instead of the scenario's controller.dvm\n"
                                : ", instead of every node (a replay's DVM)\n");
  if (p.run.total_slots() > 0)
    out << "  resources (jobs.csv): slots 0-" << p.run.total_slots() - 1 << ", node by node in the machine's order\n";
  run_line(out, p);
  lateness_lines(out, p);
  if (!p.run.trace.empty()) {
    jobs_lines(out, p);
    estimates_line(out, p);
    metric_lines(out, p.metrics);
    recorded_line(out, p);
  } else {
    call_lines(out, p);
  }
  failure_line(out, p.failures);
  account_line(out, p.account);
  unnamed_line(out, p);
  expectations_line(out, p.expectations, p.account);
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
