// A trace replayed by the built `pmixflow sim` for a test: the trace written from text, the run
// made with the test's options, and its outputs read back (summary.json, jobs.csv row by row)
// before its directory goes. `inspect` looks at the run directory while it is still there.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pmixflow_run.hpp"

namespace pmixflow::test {

using CsvRow = std::map<std::string, std::string>;

struct TraceRun {
  int exit_code = -1;
  std::string terminal;  // what it printed, standard output then standard error
  json summary;
  std::string jobs_csv;
  std::string header;  // jobs.csv's first line
  std::vector<CsvRow> rows;
};

inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::stringstream ss(line);
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

inline std::vector<CsvRow> csv_rows(const std::string& csv, std::string* header = nullptr) {
  std::stringstream in(csv);
  std::string line;
  std::getline(in, line);
  if (header) *header = line;
  const auto names = split_csv(line);
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    const auto cells = split_csv(line);
    CsvRow row;
    for (std::size_t i = 0; i < names.size() && i < cells.size(); ++i) row[names[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

inline TraceRun replay_trace(const std::string& label, const std::string& trace_text,
                             const std::vector<std::string>& options,
                             const std::function<void(const std::filesystem::path& out, TraceRun&)>& inspect = {}) {
  const auto dir = scratch_dir(label);
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << trace_text;
  std::vector<std::string> args{"sim", "--trace", trace.string(), "--out", (dir / "out").string()};
  args.insert(args.end(), options.begin(), options.end());
  const auto r = run_pmixflow(args);
  TraceRun out;
  out.exit_code = r.exit_code;
  out.terminal = r.out + r.err;
  if (r.exit_code == 0) {
    out.summary = json::parse(slurp(dir / "out" / "summary.json"));
    out.jobs_csv = slurp(dir / "out" / "jobs.csv");
    out.rows = csv_rows(out.jobs_csv, &out.header);
    if (inspect) inspect(dir / "out", out);
  }
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace pmixflow::test
