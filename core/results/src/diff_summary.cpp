#include "diff_internal.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/json_input.hpp"

namespace pmixflow::diff_detail {
namespace {

nlohmann::json read_summary(const std::string& path) {
  // Bounded as every JSON input is: a summary.json nested a hundred thousand deep is refused,
  // not walked until the stack runs out.
  const nlohmann::json s = parse_json_input(read_all(path), InputSite{path, 0, ""});
  if (!s.is_object()) throw InputError(path, 0, "", "not a pmixflow summary: not a JSON object");
  const auto format = s.find("format");
  if (format != s.end() && *format != "pmixflow-summary")
    throw InputError(path, 0, "format", "not a pmixflow summary (expected \"pmixflow-summary\")");
  return s;
}

std::optional<double> metric(const nlohmann::json& s, const std::string& name, const std::string& path) {
  const auto it = s.find(name);
  if (it == s.end() || it->is_null()) return std::nullopt;
  return checked_json_real(*it, InputSite{path, 0, name}, std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::max());
}

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
  const auto a = read_summary(path_a), b = read_summary(path_b);
  for (const char* name : kDiffMetrics) {
    MetricDelta m{name, metric(a, name, path_a), metric(b, name, path_b)};
    m.within_tolerance = m.a && m.b && *m.a != *m.b && within_tolerance(name, *m.a, *m.b, tolerance_s);
    if (m.a || m.b) d.metrics.push_back(std::move(m));
  }
  return d;
}

}  // namespace pmixflow::diff_detail
