// `pmixflow diff` for people: equal or not, then each thing compared, what differs in it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "diff_internal.hpp"
#include "pmixflow/results/recorded_inputs.hpp"
#include "pmixflow/vocab/human_text.hpp"

namespace pmixflow {
namespace {

using namespace diff_detail;

void events_text(std::ostream& out, const EventsDiff& e, const std::vector<ValueDiff>& named) {
  if (!e.compared) return;
  if (e.identical) {
    if (e.lines_a == e.lines_b)
      out << "  events: identical (" << e.lines_a << " lines)\n";
    else  // logs kept at different levels: what both keep is the same
      out << "  events: identical where both logs keep them (A has " << e.lines_a << " lines, B has " << e.lines_b
          << ")\n";
    return;
  }
  if (!e.first && e.within_tolerance == 0) {
    out << "  events: identical after the header (" << e.lines_a << " lines)\n";
  } else if (!e.first) {
    out << "  events: the same within the tolerance (A has " << e.lines_a << " lines, B has " << e.lines_b << ")\n";
  } else {
    out << "  events: differ (A has " << e.lines_a << " lines, B has " << e.lines_b << ")\n";
  }
  // The inputs line above has the values of the inputs it names; the others are given here.
  if (!e.inputs.empty() || !e.header.empty()) {
    out << "    header inputs that differ:";
    for (const auto* list : {&e.header, &e.inputs})
      for (const auto& v : *list) out << " " << v.name;
    out << "\n";
    for (const auto& v : e.inputs)
      if (std::none_of(named.begin(), named.end(), [&](const ValueDiff& n) { return n.name == v.name; }))
        out << "      " << v.name << ": A " << value_or_absent(v.a) << ", B " << value_or_absent(v.b) << "\n";
  }
  if (e.within_tolerance > 0)
    out << "    " << e.within_tolerance << " event lines differ only in their time, within the tolerance\n";
  if (!e.first) return;
  const EventDivergence& d = *e.first;
  out << "    first diverging event: line " << d.line;
  if (!d.field.empty())
    out << ", field \"" << d.field << "\" (A " << value_or_absent(d.field_a) << ", B " << value_or_absent(d.field_b)
        << ")";
  else if (d.a && d.b)
    out << " (same fields and values, spelled differently)";
  out << "\n";
  out << "      A: " << (d.a ? clip(*d.a) : std::string("(end of log)")) << "\n";
  out << "      B: " << (d.b ? clip(*d.b) : std::string("(end of log)")) << "\n";
}

void job_text(std::ostream& out, const JobDelta& d) {
  out << "    job " << d.job_id << ": ";
  if (!d.in_b) {
    out << "only in A (start " << fmt_start(d.start_a) << ", " << d.state_a << ")\n";
    return;
  }
  if (!d.in_a) {
    out << "only in B (start " << fmt_start(d.start_b) << ", " << d.state_b << ")\n";
    return;
  }
  std::string sep;
  if (d.start_moved) {
    out << "start " << fmt_start(d.start_a) << " -> " << fmt_start(d.start_b);
    if (const auto delta = d.start_delta()) out << " (delta " << fmt_signed(*delta) << " s)";
    sep = "; ";
  }
  if (d.state_differs()) {
    out << sep << "final state " << d.state_a << " -> " << d.state_b;
    sep = "; ";
  }
  if (!d.other_columns.empty()) {
    out << sep << (sep.empty() ? "differs in" : "also") << " ";
    for (std::size_t c = 0; c < d.other_columns.size(); ++c) out << (c ? ", " : "") << d.other_columns[c];
  }
  out << "\n";
}

// What moved most first: jobs in one run only and changed final states, then the largest start
// deltas; ties in the order read.
std::vector<const JobDelta*> by_importance(const JobsDiff& j) {
  std::vector<const JobDelta*> order;
  for (const auto& d : j.changed) order.push_back(&d);
  auto weight = [](const JobDelta* d) {
    if (!d->in_a || !d->in_b || d->state_differs() || !d->start_delta()) return std::numeric_limits<double>::infinity();
    return d->start_moved ? std::fabs(*d->start_delta()) : 0.0;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const JobDelta* x, const JobDelta* y) { return weight(x) > weight(y); });
  return order;
}

void jobs_text(std::ostream& out, const JobsDiff& j, std::size_t max_jobs) {
  if (!j.compared) return;
  const std::string within = std::to_string(j.within_tolerance) + (j.within_tolerance == 1 ? " differs" : " differ") +
                             " only in times within the tolerance";
  if (j.changed.empty()) {
    out << "  jobs: " << (j.within_tolerance == 0 ? "identical" : "the same within the tolerance") << " (" << j.jobs_a
        << " jobs" << (j.within_tolerance == 0 ? "" : "; " + within) << ")\n";
    return;
  }
  out << "  jobs: " << j.jobs_a << " in A, " << j.jobs_b << " in B; " << j.start_differs << " start differently"
      << (j.within_tolerance == 0 ? "" : " (" + within + ")") << ", " << j.state_changes << " final states changed, "
      << j.only_in_a << " only in A, " << j.only_in_b << " only in B\n";
  if (j.started_in_both > 0)
    out << "    start delta (B - A) over the " << j.started_in_both << " jobs started in both: max |delta| "
        << human_duration(j.max_abs_start_delta) << ", mean |delta| " << human_duration(j.mean_abs_start_delta) << "\n";
  std::size_t shown = 0;
  if (j.changed.size() > max_jobs) out << "    the " << max_jobs << " that moved most:\n";
  for (const JobDelta* d : by_importance(j)) {
    if (shown == max_jobs) {
      out << "    ... and " << j.changed.size() - shown << " more jobs (--json lists every one)\n";
      break;
    }
    ++shown;
    job_text(out, *d);
  }
}

void summary_text(std::ostream& out, const SummaryDiff& s) {
  if (!s.compared) return;
  const auto differing =
      std::count_if(s.metrics.begin(), s.metrics.end(), [](const MetricDelta& m) { return m.differs(); });
  const auto within =
      std::count_if(s.metrics.begin(), s.metrics.end(), [](const MetricDelta& m) { return m.within_tolerance; });
  if (differing == 0) {
    out << "  summary: " << (within == 0 ? "identical" : "the same within the tolerance") << " (" << s.metrics.size()
        << " metrics; wall-clock times not compared)\n";
    return;
  }
  out << "  summary: " << differing << " of " << s.metrics.size()
      << " metrics differ (wall-clock times not compared)\n";
  char line[256];
  std::snprintf(line, sizeof line, "    %-22s %18s %18s %14s %10s\n", "metric", "A", "B", "B - A", "relative");
  out << line;
  for (const auto& m : s.metrics) {
    if (!m.differs()) continue;
    const auto delta = m.delta();
    const auto rel = m.relative();
    std::string rel_text = "n/a";
    if (rel) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%+.3g%%", *rel * 100);
      rel_text = buf;
    }
    std::snprintf(line, sizeof line, "    %-22s %18s %18s %14s %10s\n", m.name.c_str(),
                  m.a ? fmt(*m.a).c_str() : "absent", m.b ? fmt(*m.b).c_str() : "absent",
                  delta ? fmt_signed(*delta).c_str() : "n/a", rel_text.c_str());
    out << line;
  }
}

// What the runs were given, then how times were compared: what a reader needs before the outcomes.
void inputs_text(std::ostream& out, const DiffReport& r) {
  auto side = [](const std::optional<std::string>& v) {
    return v ? input_text(opt_value(v)) : std::string("(not recorded)");
  };
  if (r.inputs.empty()) {
    out << "  inputs: the same";
  } else {
    out << "  inputs: ";
    for (std::size_t i = 0; i < r.inputs.size(); ++i)
      out << (i ? "; " : "") << r.inputs[i].name << " " << side(r.inputs[i].a) << " -> " << side(r.inputs[i].b);
  }
  if (!r.workload.empty()) out << " (" << (r.inputs.empty() ? "" : "same ") << "workload " << r.workload << ")";
  out << "\n";
  if (r.tolerance_s > 0)
    out << "  times within " << human_duration(r.tolerance_s) << " count as equal (--tolerance 0: exact)\n";
  else
    out << "  times compared exactly (--tolerance 0)\n";
}

}  // namespace

std::string render_diff_text(const DiffReport& r, std::size_t max_jobs) {
  std::ostringstream out;
  out << "pmixflow diff: A = " << r.a.path << ", B = " << r.b.path << ": " << (r.equal() ? "equal" : "DIFFERENT")
      << "\n";
  inputs_text(out, r);
  events_text(out, r.events, r.inputs);
  jobs_text(out, r.jobs, max_jobs);
  summary_text(out, r.summary);
  for (const auto& n : r.notes) out << "  note: " << n << "\n";
  return out.str();
}

}  // namespace pmixflow
