#include "diff_internal.hpp"
#include "pmixflow/results/summary_file.hpp"

namespace pmixflow::diff_detail {
namespace {

// Counts (jobs, messages) are compared exactly; times and what is computed from them within
// the tolerance.
bool within_tolerance(const std::string& name, double a, double b, double tolerance_s) {
  const bool is_time = name.ends_with("_s") && name != "lost_work_cpu_s";
  const bool is_derived = name == "utilization" || name.ends_with("bounded_slowdown") || name == "lost_work_cpu_s";
  if (is_time) return within_time(a, b, tolerance_s);
  return is_derived && within_derived(a, b, tolerance_s);
}

}  // namespace

SummaryDiff diff_summary(const std::string& path_a, const std::string& path_b, double tolerance_s) {
  SummaryDiff d;
  d.compared = true;
  const auto a = read_summary_file(path_a), b = read_summary_file(path_b);
  for (const char* name : kDiffMetrics) {
    MetricDelta m{name, summary_metric(a, name, path_a), summary_metric(b, name, path_b)};
    m.within_tolerance = m.a && m.b && *m.a != *m.b && within_tolerance(name, *m.a, *m.b, tolerance_s);
    if (m.a || m.b) d.metrics.push_back(std::move(m));
  }
  return d;
}

}  // namespace pmixflow::diff_detail
