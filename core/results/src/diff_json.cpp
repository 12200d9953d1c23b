// `pmixflow diff --json`: the whole report for programs.
#include "diff_internal.hpp"

namespace pmixflow {
namespace {

using namespace diff_detail;

ojson opt_number(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

ojson value_diffs(const std::vector<ValueDiff>& diffs) {
  ojson out = ojson::array();
  for (const auto& v : diffs) out.push_back({{"name", v.name}, {"a", opt_value(v.a)}, {"b", opt_value(v.b)}});
  return out;
}

ojson run_json(const RunFiles& r) {
  auto path = [](const std::string& p) { return p.empty() ? ojson(nullptr) : ojson(p); };
  return {{"path", r.path}, {"events", path(r.events)}, {"jobs", path(r.jobs)}, {"summary", path(r.summary)}};
}

ojson events_json(const EventsDiff& e) {
  ojson events{{"compared", e.compared}};
  if (!e.compared) return events;
  events["identical"] = e.identical;
  events["lines_a"] = e.lines_a;
  events["lines_b"] = e.lines_b;
  events["within_tolerance"] = e.within_tolerance;
  events["header"] = value_diffs(e.header);
  events["inputs"] = value_diffs(e.inputs);
  if (!e.first) {
    events["first_divergence"] = nullptr;
    return events;
  }
  const auto& d = *e.first;
  events["first_divergence"] = {{"line", d.line},
                                {"a", d.a ? ojson(*d.a) : ojson(nullptr)},
                                {"b", d.b ? ojson(*d.b) : ojson(nullptr)},
                                {"field", d.field.empty() ? ojson(nullptr) : ojson(d.field)},
                                {"field_a", opt_value(d.field_a)},
                                {"field_b", opt_value(d.field_b)}};
  return events;
}

ojson jobs_json(const JobsDiff& j) {
  ojson jobs{{"compared", j.compared}};
  if (!j.compared) return jobs;
  jobs["jobs_a"] = j.jobs_a;
  jobs["jobs_b"] = j.jobs_b;
  jobs["start_differs"] = j.start_differs;
  jobs["start_within_tolerance"] = j.start_within_tolerance;
  jobs["within_tolerance"] = j.within_tolerance;
  jobs["state_changes"] = j.state_changes;
  jobs["only_in_a"] = j.only_in_a;
  jobs["only_in_b"] = j.only_in_b;
  jobs["started_in_both"] = j.started_in_both;
  jobs["max_abs_start_delta"] = j.max_abs_start_delta;
  jobs["mean_abs_start_delta"] = j.mean_abs_start_delta;
  ojson changed = ojson::array();
  for (const auto& d : j.changed)
    changed.push_back({{"job_id", d.job_id},
                       {"in_a", d.in_a},
                       {"in_b", d.in_b},
                       {"start_a", opt_number(d.start_a)},
                       {"start_b", opt_number(d.start_b)},
                       {"start_delta", opt_number(d.start_delta())},
                       {"final_state_a", d.in_a ? ojson(d.state_a) : ojson(nullptr)},
                       {"final_state_b", d.in_b ? ojson(d.state_b) : ojson(nullptr)},
                       {"other_columns", d.other_columns}});
  jobs["changed"] = changed;
  return jobs;
}

ojson summary_json(const SummaryDiff& s) {
  ojson summary{{"compared", s.compared}};
  if (!s.compared) return summary;
  ojson metrics = ojson::array();
  for (const auto& m : s.metrics)
    metrics.push_back({{"name", m.name},
                       {"a", opt_number(m.a)},
                       {"b", opt_number(m.b)},
                       {"delta", opt_number(m.delta())},
                       {"relative", opt_number(m.relative())},
                       {"differs", m.differs()},
                       {"within_tolerance", m.within_tolerance}});
  summary["metrics"] = metrics;
  return summary;
}

}  // namespace

std::string render_diff_json(const DiffReport& r) {
  ojson out;
  out["format"] = "pmixflow-diff";
  out["version"] = 1;
  out["equal"] = r.equal();
  out["tolerance_s"] = r.tolerance_s;
  out["inputs"] = value_diffs(r.inputs);
  out["workload"] = r.workload.empty() ? ojson(nullptr) : ojson(r.workload);
  out["a"] = run_json(r.a);
  out["b"] = run_json(r.b);
  out["events"] = events_json(r.events);
  out["jobs"] = jobs_json(r.jobs);
  out["summary"] = summary_json(r.summary);
  out["notes"] = r.notes;
  // Job ids and event lines are copied as read: never let a stray byte stop the report.
  return out.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

}  // namespace pmixflow
