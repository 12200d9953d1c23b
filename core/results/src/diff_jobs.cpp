#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "diff_internal.hpp"
#include "pmixflow/results/csv.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/input_file.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow::diff_detail {
namespace {

// A job that never ran has no start: Batsim leaves it empty (pmixflow before the event catalogue wrote -1).
std::optional<double> parse_start(const std::string& text, const std::string& path, std::size_t line) {
  if (text.empty()) return std::nullopt;
  const double v = checked_real(text, InputSite{path, line, "starting_time"}, std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::max());
  if (v < 0) return std::nullopt;
  return v;
}

struct JobRow {
  std::string id;
  std::optional<double> start;
  std::string state;
  const std::vector<std::string>* cells = nullptr;
};

struct JobTable {
  Csv csv;
  std::vector<JobRow> rows;
  std::size_t start_col = 0, state_col = 0, id_col = 0;
};

JobTable read_jobs(const std::string& path) {
  JobTable t;
  t.csv = parse_csv(read_whole_file(path, "a jobs.csv"), path);
  t.id_col = column(t.csv, "job_id", path);
  t.start_col = column(t.csv, "starting_time", path);
  t.state_col = column(t.csv, "final_state", path);
  for (std::size_t r = 0; r < t.csv.rows.size(); ++r) {
    const auto& cells = t.csv.rows[r];
    if (cells.size() != t.csv.columns.size())
      throw InputError(
          path, t.csv.row_lines[r], "",
          std::to_string(cells.size()) + " fields where the header has " + std::to_string(t.csv.columns.size()));
    t.rows.push_back(
        JobRow{cells[t.id_col], parse_start(cells[t.start_col], path, t.csv.row_lines[r]), cells[t.state_col], &cells});
  }
  return t;
}

JobDelta one_sided(const JobRow& row, bool in_a) {
  JobDelta d;
  d.job_id = row.id;
  d.in_a = in_a;
  d.in_b = !in_a;
  (in_a ? d.start_a : d.start_b) = row.start;
  (in_a ? d.state_a : d.state_b) = row.state;
  d.start_moved = true;
  return d;
}

// The further columns both files have, compared as written (the same run writes the same text).
struct SharedColumns {
  std::vector<std::pair<std::size_t, std::size_t>> index;  // in A, in B
  std::vector<std::string> names;
};

SharedColumns shared_columns(const JobTable& a, const JobTable& b, std::vector<std::string>& notes) {
  SharedColumns shared;
  for (std::size_t i = 0; i < a.csv.columns.size(); ++i) {
    if (i == a.id_col || i == a.start_col || i == a.state_col) continue;
    const auto& name = a.csv.columns[i];
    const auto it = std::find(b.csv.columns.begin(), b.csv.columns.end(), name);
    if (it == b.csv.columns.end()) {
      notes.push_back("jobs.csv column " + quote_value(name) + " is only in A: not compared");
      continue;
    }
    shared.index.emplace_back(i, static_cast<std::size_t>(it - b.csv.columns.begin()));
    shared.names.push_back(name);
  }
  for (const auto& name : b.csv.columns)
    if (std::find(a.csv.columns.begin(), a.csv.columns.end(), name) == a.csv.columns.end())
      notes.push_back("jobs.csv column " + quote_value(name) + " is only in B: not compared");
  return shared;
}

std::optional<double> number_in(const std::string& text) {
  double v = 0;
  if (read_real(text, v, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max()) !=
      NumberFault::None)
    return std::nullopt;
  return v;
}

// Two cells of a column that differ in text may still say the same within the tolerance: the
// times Batsim's columns give, and the stretch computed from them.
bool same_within(const std::string& column, const std::string& a, const std::string& b, double tolerance_s) {
  static constexpr std::string_view kTimes[] = {"submission_time", "starting_time", "execution_time",
                                                "finish_time",     "waiting_time",  "turnaround_time"};
  const bool is_time = std::find(std::begin(kTimes), std::end(kTimes), column) != std::end(kTimes);
  if (tolerance_s <= 0 || (!is_time && column != "stretch")) return false;
  const auto va = number_in(a), vb = number_in(b);
  if (!va || !vb) return false;
  return is_time ? within_time(*va, *vb, tolerance_s) : within_derived(*va, *vb, tolerance_s);
}

JobDelta compare_rows(const JobRow& ra, const JobRow& rb, const SharedColumns& shared, double tolerance_s) {
  JobDelta j;
  j.job_id = ra.id;
  j.start_a = ra.start;
  j.start_b = rb.start;
  j.state_a = ra.state;
  j.state_b = rb.state;
  for (std::size_t c = 0; c < shared.index.size(); ++c) {
    const auto& a = (*ra.cells)[shared.index[c].first];
    const auto& b = (*rb.cells)[shared.index[c].second];
    if (a == b) continue;
    if (same_within(shared.names[c], a, b, tolerance_s))
      j.nudged = true;
    else
      j.other_columns.push_back(shared.names[c]);
  }
  const auto delta = j.start_delta();
  j.start_moved = j.start_differs() && (!delta || std::fabs(*delta) > tolerance_s);
  j.nudged = j.nudged || (j.start_differs() && !j.start_moved);
  return j;
}

void count(JobsDiff& d, JobDelta&& j, double& sum_abs) {
  if (const auto delta = j.start_delta()) {
    ++d.started_in_both;
    sum_abs += std::fabs(*delta);
    d.max_abs_start_delta = std::max(d.max_abs_start_delta, std::fabs(*delta));
  }
  if (j.start_moved) ++d.start_differs;
  if (j.start_differs() && !j.start_moved) ++d.start_within_tolerance;
  if (j.state_differs()) ++d.state_changes;
  if (j.start_moved || j.state_differs() || !j.other_columns.empty())
    d.changed.push_back(std::move(j));
  else if (j.nudged)
    ++d.within_tolerance;
}

}  // namespace

JobsDiff diff_jobs(const std::string& path_a, const std::string& path_b, double tolerance_s,
                   std::vector<std::string>& notes) {
  JobsDiff d;
  d.compared = true;
  const JobTable a = read_jobs(path_a), b = read_jobs(path_b);
  d.jobs_a = a.rows.size();
  d.jobs_b = b.rows.size();
  const SharedColumns shared = shared_columns(a, b, notes);
  // A job id seen several times pairs its k-th row in A with its k-th row in B.
  std::map<std::string, std::vector<std::size_t>> in_b;
  for (std::size_t i = 0; i < b.rows.size(); ++i) in_b[b.rows[i].id].push_back(i);
  std::map<std::string, std::size_t> taken;
  std::vector<bool> matched(b.rows.size(), false);
  double sum_abs = 0;
  for (const auto& ra : a.rows) {
    const auto it = in_b.find(ra.id);
    const std::size_t k = taken[ra.id]++;
    if (it == in_b.end() || k >= it->second.size()) {
      d.changed.push_back(one_sided(ra, true));
      ++d.only_in_a;
      continue;
    }
    matched[it->second[k]] = true;
    count(d, compare_rows(ra, b.rows[it->second[k]], shared, tolerance_s), sum_abs);
  }
  for (std::size_t i = 0; i < b.rows.size(); ++i)
    if (!matched[i]) {
      d.changed.push_back(one_sided(b.rows[i], false));
      ++d.only_in_b;
    }
  if (d.started_in_both > 0) d.mean_abs_start_delta = sum_abs / static_cast<double>(d.started_in_both);
  return d;
}

}  // namespace pmixflow::diff_detail
