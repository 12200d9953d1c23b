// `pmixflow compare RUN...`: one table of the metrics of any number of runs, the inputs they
// differ in as columns, as a paper's results section needs it. The table is a plain value built
// from parsed summaries, rendered as aligned text, CSV or JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pmixflow {

// One run: what it is called in the table, where it was read from, and its summary.json.
struct ComparedRun {
  std::string name;
  std::string path;
  nlohmann::json summary;
};

// A RUN as given: a run directory (its summary.json), a summary.json, or a sweep's directory
// (each run under its runs/, in name order). InputError naming the path when it is none of
// these, or its summary is not a pmixflow summary.
std::vector<ComparedRun> load_compared_runs(const std::string& path);

enum class ColumnKind {
  Input,     // an input the runs differ in (policy, seed, batch_delay, ...): text
  Count,     // a whole number
  Seconds,   // a time, shown in the units a person uses
  Ratio,     // a share of 1, shown as a percentage
  Slowdown,  // a factor, shown as a plain number
};

struct CompareColumn {
  std::string key;    // the CSV and JSON name: the summary's key (policy, mean_wait_s, failures.jobs_killed)
  std::string label;  // the text table's heading: "mean wait"
  ColumnKind kind = ColumnKind::Count;
};

struct CompareCell {
  std::optional<double> number;  // a metric; nullopt: the summary does not have it
  std::string text;              // an input; "" when the run does not record it
};

struct CompareTable {
  std::vector<CompareColumn> columns;  // "run" is not among them: each row has its name
  struct Row {
    std::string run;
    std::string path;
    std::vector<CompareCell> cells;  // one per column
  };
  std::vector<Row> rows;
  // Inputs every run has alike, for the line under the table ("scenario KTH-SP2...").
  std::vector<std::pair<std::string, std::string>> common;
  std::vector<std::string> lacking_percentiles;  // runs whose summary predates the percentile keys
};

// The table of `runs`, in their order, or sorted by the column named `sort_by` (a column's key,
// or "run"; numbers ascending, runs without the figure last). std::invalid_argument naming the
// columns there are when `sort_by` is none of them.
CompareTable compare_runs(const std::vector<ComparedRun>& runs, const std::string& sort_by = "");

std::string render_compare_text(const CompareTable& table);
std::string render_compare_csv(const CompareTable& table);   // numbers raw, in seconds; empty: absent
std::string render_compare_json(const CompareTable& table);  // numbers raw, in seconds; null: absent

}  // namespace pmixflow
