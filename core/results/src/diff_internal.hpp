// What the parts of `pmixflow diff` share: one file per thing compared, one per rendering.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/results/diff.hpp"

namespace pmixflow::diff_detail {

// Event lines keep their fields in the order they were written, so "the first field that
// differs" means the first in that order.
using ojson = nlohmann::ordered_json;

EventsDiff diff_events(const std::string& path_a, const std::string& path_b, const DiffOptions& options,
                       std::vector<std::string>& notes);
JobsDiff diff_jobs(const std::string& path_a, const std::string& path_b, double tolerance_s,
                   std::vector<std::string>& notes);
SummaryDiff diff_summary(const std::string& path_a, const std::string& path_b, double tolerance_s);
// The inputs the runs differ in, and the workload they share (DiffReport's inputs, workload).
void name_inputs(DiffReport& report);

// Whether two values count as equal under `tolerance_s` (DiffOptions): a time within it, a
// figure computed from times within tolerance_s / kDerivedScale_s of each other, relatively.
inline constexpr double kDerivedScale_s = 10;
bool within_time(double a, double b, double tolerance_s);
bool within_derived(double a, double b, double tolerance_s);

// Two event lines the same but for their times (t, latency, until), each within the tolerance.
bool same_but_times(std::string_view a, std::string_view b, double tolerance_s);
// Two runs of event lines the same but for their times and their order (events of parties at
// nearly one instant, which a start-up's jitter can reorder).
bool same_window(const std::vector<std::string>& a, const std::vector<std::string>& b, double tolerance_s);

// Renderings shared by the text and the JSON reports.
std::string fmt(double v, int precision = 10);
std::string fmt_signed(double v);
std::string fmt_start(const std::optional<double>& s);
std::string clip(const std::string& s, std::size_t max = 400);
std::string value_or_absent(const std::optional<std::string>& v);
ojson opt_value(const std::optional<std::string>& v);

}  // namespace pmixflow::diff_detail
