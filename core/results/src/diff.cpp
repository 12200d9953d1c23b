#include "pmixflow/results/diff.hpp"

#include <algorithm>
#include <cmath>

#include "diff_internal.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {
namespace {

std::string describe(const RunFiles& r) {
  std::string have;
  const std::pair<const char*, const std::string*> files[] = {
      {"events.jsonl", &r.events}, {"jobs.csv", &r.jobs}, {"summary.json", &r.summary}};
  for (const auto& [name, path] : files)
    if (!path->empty()) have += (have.empty() ? "" : ", ") + std::string(name);
  return have.empty() ? std::string("nothing") : have;
}

}  // namespace

std::optional<double> JobDelta::start_delta() const {
  if (!start_a || !start_b) return std::nullopt;
  return *start_b - *start_a;
}

std::optional<double> MetricDelta::delta() const {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> MetricDelta::relative() const {
  if (!a || !b) return std::nullopt;
  if (*a == 0) return *b == 0 ? std::optional<double>(0.0) : std::nullopt;
  return (*b - *a) / std::fabs(*a);
}

bool DiffReport::equal() const {
  if (events.compared && events.first) return false;
  if (!jobs.changed.empty()) return false;
  return std::none_of(summary.metrics.begin(), summary.metrics.end(), [](const MetricDelta& m) { return m.differs(); });
}

DiffReport diff_runs(const std::string& run_a, const std::string& run_b, const DiffOptions& options) {
  DiffReport report;
  report.a = log::locate_run(run_a);
  report.b = log::locate_run(run_b);
  const RunFiles& a = report.a;
  const RunFiles& b = report.b;
  auto only_one = [&report](const char* what, const std::string& pa, const std::string& pb) {
    if (pa.empty() != pb.empty())
      report.notes.push_back(std::string(what) + " is only in " + (pa.empty() ? "B" : "A") + ": not compared");
  };
  // Two run directories are compared whole or not at all: one that lacks an output the other
  // has (an interrupted run, a copy of its summary alone) could only be found "equal" on less.
  if (a.is_dir && b.is_dir && describe(a) != describe(b))
    throw InputError(run_a, 0, "",
                     "the runs hold different outputs, so they cannot be compared whole: A has " + describe(a) +
                         ", B (" + run_b + ") has " + describe(b) +
                         "; compare two event logs by naming the events.jsonl files");
  only_one("events.jsonl", a.events, b.events);
  only_one("jobs.csv", a.jobs, b.jobs);
  only_one("summary.json", a.summary, b.summary);
  const bool events = !a.events.empty() && !b.events.empty();
  const bool jobs = !a.jobs.empty() && !b.jobs.empty();
  const bool summary = !a.summary.empty() && !b.summary.empty();
  if (!events && !jobs && !summary)
    throw InputError(run_a, 0, "",
                     "nothing to compare with " + run_b + ": A has " + describe(a) + ", B has " + describe(b));
  report.tolerance_s = options.tolerance_s;
  if (events) report.events = diff_detail::diff_events(a.events, b.events, options, report.notes);
  if (jobs) report.jobs = diff_detail::diff_jobs(a.jobs, b.jobs, options.tolerance_s, report.notes);
  if (summary) report.summary = diff_detail::diff_summary(a.summary, b.summary, options.tolerance_s);
  diff_detail::name_inputs(report);
  return report;
}
}  // namespace pmixflow
