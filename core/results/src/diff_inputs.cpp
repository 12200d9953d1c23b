// What `pmixflow diff` says before the outcomes: the inputs in which the runs differ, and the
// tolerance its comparison of times used.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "diff_internal.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/results/recorded_inputs.hpp"
#include "pmixflow/results/summary_file.hpp"

namespace pmixflow {
namespace {

struct Unit {
  std::string_view name;
  double seconds;
};

// Longest names first, so that "ms" is not read as "m" + "s".
constexpr Unit kUnits[] = {{"min", 60}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"h", 3600}, {"s", 1}};

RecordedInputs inputs_of_summary(const std::string& path) { return summary_inputs(read_summary_file(path)); }

RecordedInputs inputs_of_log(const std::string& path) { return header_inputs(log::LogReader(path).header()); }

// What the log's header records, with the summary's word where both say (they agree when one
// run wrote both; a summary edited or rebuilt by another version may know more).
RecordedInputs inputs_of(const RunFiles& run, bool events, bool summary) {
  RecordedInputs out = events ? inputs_of_log(run.events) : RecordedInputs{};
  if (!summary) return out;
  // Not a structured binding: clang 14 (the fuzzing build) cannot capture one in a lambda.
  for (auto& input : inputs_of_summary(run.summary)) {
    const auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == input.first; });
    if (it == out.end())
      out.push_back(std::move(input));
    else
      it->second = std::move(input.second);
  }
  return out;
}

const nlohmann::json* find_input(const RecordedInputs& inputs, const std::string& name) {
  const auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == name; });
  return it == inputs.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<double> parse_duration(std::string_view text) {
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || !std::isfinite(number) || number < 0) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit.empty()) return number;
  for (const Unit& u : kUnits)
    if (unit == u.name) return number * u.seconds;
  return std::nullopt;
}

namespace diff_detail {

void name_inputs(DiffReport& report) {
  const bool events = !report.a.events.empty() && !report.b.events.empty();
  const bool summary = !report.a.summary.empty() && !report.b.summary.empty();
  const RecordedInputs a = inputs_of(report.a, events, summary), b = inputs_of(report.b, events, summary);
  std::vector<std::string> names;
  for (const auto* side : {&a, &b})
    for (const auto& [name, value] : *side)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  for (const auto& name : names) {
    const nlohmann::json* va = find_input(a, name);
    const nlohmann::json* vb = find_input(b, name);
    if (va && vb && *va == *vb) {
      if (name == "scenario") report.workload = input_text(*va);
      continue;
    }
    ValueDiff d{name, std::nullopt, std::nullopt};
    if (va) d.a = va->dump();
    if (vb) d.b = vb->dump();
    report.inputs.push_back(std::move(d));
  }
  // What else the headers record differently and changes what happens (node_mtbf, assertions);
  // not what follows from the above or names a file by its path.
  static constexpr std::string_view kFollows[] = {"scenario",
                                                  "name",
                                                  "trace",
                                                  "compute_nodes",
                                                  "time_origin",
                                                  "description",
                                                  "skipped_by_reason",
                                                  "repaired_by_reason",
                                                  "estimates_by_case",
                                                  "events",
                                                  "calls_planned"};
  for (const auto& v : report.events.inputs) {
    const bool follows = std::find(std::begin(kFollows), std::end(kFollows), v.name) != std::end(kFollows);
    const bool named =
        std::any_of(report.inputs.begin(), report.inputs.end(), [&](const ValueDiff& n) { return n.name == v.name; });
    if (!follows && !named && v.name != "options") report.inputs.push_back(v);
  }
}

}  // namespace diff_detail
}  // namespace pmixflow
