// `pmixflow compare`: runs read from their summaries, and the table of them.
#include "pmixflow/results/compare.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "pmixflow/log/reader.hpp"
#include "pmixflow/log/run_files.hpp"
#include "pmixflow/results/recorded_inputs.hpp"
#include "pmixflow/results/summary_file.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The metrics, in the order a results section reads them. Preemptions and killed jobs are
// columns only when some run has them.
const CompareColumn kMetrics[] = {
    {"jobs", "jobs", ColumnKind::Count},
    {"utilization", "util", ColumnKind::Ratio},
    {"makespan_s", "makespan", ColumnKind::Seconds},
    {"mean_wait_s", "mean wait", ColumnKind::Seconds},
    {"p50_wait_s", "p50 wait", ColumnKind::Seconds},
    {"p90_wait_s", "p90 wait", ColumnKind::Seconds},
    {"p99_wait_s", "p99 wait", ColumnKind::Seconds},
    {"max_wait_s", "max wait", ColumnKind::Seconds},
    {"mean_bounded_slowdown", "mean bsld", ColumnKind::Slowdown},
    {"p50_bounded_slowdown", "p50 bsld", ColumnKind::Slowdown},
    {"p90_bounded_slowdown", "p90 bsld", ColumnKind::Slowdown},
    {"p99_bounded_slowdown", "p99 bsld", ColumnKind::Slowdown},
    {"preemptions", "preempted", ColumnKind::Count},
    {"failures.jobs_killed", "killed", ColumnKind::Count},
};
constexpr const char* kOnlyWhenNonzero[] = {"preemptions", "failures.jobs_killed"};
constexpr const char* kPercentileKey = "p50_wait_s";  // added with the others: one stands for all

std::optional<double> metric(const ComparedRun& run, const std::string& key) {
  return summary_metric(run.summary, key, run.path);
}

// A directory's own name, "." and a trailing slash resolved: `runs/fcfs/` is "fcfs".
std::string dir_name(const fs::path& dir) {
  fs::path q = fs::absolute(dir).lexically_normal();
  if (q.filename().empty()) q = q.parent_path();
  return q.filename().string();
}

ComparedRun read_run(const std::string& summary_path, std::string name) {
  ComparedRun run{std::move(name), summary_path, read_summary_file(summary_path)};
  for (const auto& column : kMetrics) metric(run, column.key);  // each figure a number, checked now
  return run;
}

// A run directory's summary, and its log read through as every reader reads it: a summary is
// not taken from beside a log that report, diff or the viewer would refuse. A cut log goes with
// a summary that says so ("partial": true, from `report --partial`).
ComparedRun read_run_dir(const fs::path& dir, std::string name) {
  const log::RunFiles files = log::locate_run(dir.string());
  ComparedRun run = read_run(files.summary, std::move(name));
  if (files.events.empty()) return run;
  log::LogReader reader(files.events, log::ReadOptions{log::KindSet{}});
  while (reader.next()) {
  }
  const auto partial = run.summary.find("partial");
  reader.check_whole(partial != run.summary.end() && *partial == true);
  return run;
}

bool has_summary(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(dir / "summary.json", ec));
}

}  // namespace

std::vector<ComparedRun> load_compared_runs(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (!fs::is_directory(p, ec)) {  // its summary.json, named alone
    if (!fs::exists(fs::symlink_status(p, ec)))
      throw InputError(path, 0, "", "no such file or directory (expected a run directory written by --out)");
    return {read_run(path, dir_name(p.parent_path().empty() ? fs::path(".") : p.parent_path()))};
  }
  if (has_summary(p)) return {read_run_dir(p, dir_name(p))};
  // A sweep's directory: its runs, each in runs/ID/.
  std::vector<fs::path> runs;
  if (fs::is_directory(p / "runs", ec))
    for (const auto& entry : fs::directory_iterator(p / "runs", ec))
      if (has_summary(entry.path())) runs.push_back(entry.path());
  if (runs.empty())
    throw InputError(path, 0, "", "not a run: it has no summary.json (nor runs/*/summary.json, as a sweep has)");
  std::sort(runs.begin(), runs.end());
  std::vector<ComparedRun> out;
  for (const auto& r : runs) out.push_back(read_run_dir(r, r.filename().string()));
  return out;
}

}  // namespace pmixflow

namespace pmixflow {
namespace {

struct InputColumns {
  std::vector<std::string> differing;
  std::vector<std::pair<std::string, std::string>> common;
};

// The inputs in which not every run is alike (a run that does not record one counts as a
// value of its own), and those in which all are.
InputColumns input_columns(const std::vector<RecordedInputs>& inputs) {
  std::vector<std::string> names;
  for (const auto& run : inputs)
    for (const auto& [name, value] : run)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  auto value_of = [](const RecordedInputs& run, const std::string& name) -> std::optional<json> {
    for (const auto& [n, v] : run)
      if (n == name) return v;
    return std::nullopt;
  };
  InputColumns out;
  for (const auto& name : names) {
    const auto first = value_of(inputs.front(), name);
    const bool alike = std::all_of(inputs.begin(), inputs.end(),
                                   [&](const RecordedInputs& run) { return value_of(run, name) == first; });
    if (!alike)
      out.differing.push_back(name);
    else if (first)
      out.common.emplace_back(name, input_text(*first));
  }
  return out;
}

std::string text_input(const RecordedInputs& run, const std::string& name) {
  for (const auto& [n, v] : run)
    if (n == name) return input_text(v);
  return {};
}

bool wanted(const CompareColumn& column, const std::vector<ComparedRun>& runs) {
  const bool optional = std::any_of(std::begin(kOnlyWhenNonzero), std::end(kOnlyWhenNonzero),
                                    [&](const char* key) { return column.key == key; });
  if (!optional) return true;
  return std::any_of(runs.begin(), runs.end(),
                     [&](const ComparedRun& r) { return metric(r, column.key).value_or(0) != 0; });
}

void sort_rows(CompareTable& table, const std::string& sort_by) {
  if (sort_by.empty()) return;
  if (sort_by == "run") {
    std::stable_sort(table.rows.begin(), table.rows.end(), [](const auto& x, const auto& y) { return x.run < y.run; });
    return;
  }
  const auto it = std::find_if(table.columns.begin(), table.columns.end(),
                               [&](const CompareColumn& c) { return c.key == sort_by; });
  if (it == table.columns.end()) {
    std::string keys = "run";
    for (const auto& c : table.columns) keys += ", " + c.key;
    throw std::invalid_argument("'" + sort_by + "' is not a column of this table (" + keys + ")");
  }
  const auto col = static_cast<std::size_t>(it - table.columns.begin());
  std::stable_sort(table.rows.begin(), table.rows.end(), [col](const auto& x, const auto& y) {
    const CompareCell &a = x.cells[col], &b = y.cells[col];
    if (a.number.has_value() != b.number.has_value()) return a.number.has_value();  // absent last
    return a.number ? *a.number < *b.number : a.text < b.text;
  });
}

}  // namespace

CompareTable compare_runs(const std::vector<ComparedRun>& runs, const std::string& sort_by) {
  CompareTable table;
  if (runs.empty()) return table;
  std::vector<RecordedInputs> inputs;
  for (const auto& r : runs) inputs.push_back(summary_inputs(r.summary));
  InputColumns in = input_columns(inputs);
  table.common = std::move(in.common);
  for (const auto& name : in.differing) table.columns.push_back({name, name, ColumnKind::Input});
  for (const auto& column : kMetrics)
    if (wanted(column, runs)) table.columns.push_back(column);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CompareTable::Row row{runs[i].name, runs[i].path, {}};
    for (const auto& column : table.columns) {
      CompareCell cell;
      if (column.kind == ColumnKind::Input)
        cell.text = text_input(inputs[i], column.key);
      else
        cell.number = metric(runs[i], column.key);
      row.cells.push_back(std::move(cell));
    }
    if (!summary_member(runs[i].summary, kPercentileKey)) table.lacking_percentiles.push_back(runs[i].name);
    table.rows.push_back(std::move(row));
  }
  sort_rows(table, sort_by);
  return table;
}

}  // namespace pmixflow
