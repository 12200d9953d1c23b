#include "pmixflow/results/diff.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {
namespace {

namespace fs = std::filesystem;
// Event lines keep their fields in the order they were written, so "the first field that
// differs" means the first in that order.
using ojson = nlohmann::ordered_json;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- event logs ---------------------------------------------------------------------------

class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw InputError(path, 0, "", "cannot be read");
  }
  // The next line (without its newline), or nullopt at the end.
  std::optional<std::string> next() {
    std::string line;
    if (!std::getline(in_, line)) return std::nullopt;
    ++lines_;
    return line;
  }
  std::uint64_t lines() const { return lines_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  std::uint64_t lines_ = 0;
};

ojson parse_header(const std::optional<std::string>& line, const std::string& path) {
  if (!line) throw InputError(path, 1, "", "empty: an event log starts with its header line");
  ojson header = ojson::parse(*line, nullptr, false);
  if (header.is_discarded() || !header.is_object())
    throw InputError(path, 1, "", "not a pmixflow event log: the first line is not a JSON object");
  const auto format = header.find("format");
  if (format == header.end() || *format != "pmixflow-events")
    throw InputError(path, 1, "format", "not a pmixflow event log (expected \"pmixflow-events\")");
  return header;
}

std::optional<std::string> member_text(const ojson& object, const std::string& key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  return it->dump();
}

// The keys of `a` in order, then those only in `b` in theirs.
std::vector<std::string> key_union(const ojson& a, const ojson& b) {
  std::vector<std::string> keys;
  if (a.is_object())
    for (const auto& item : a.items()) keys.push_back(item.key());
  if (b.is_object())
    for (const auto& item : b.items())
      if (!a.is_object() || !a.contains(item.key())) keys.push_back(item.key());
  return keys;
}

std::vector<ValueDiff> differing_members(const ojson& a, const ojson& b, const std::string& skip) {
  std::vector<ValueDiff> out;
  for (const auto& key : key_union(a, b)) {
    if (key == skip) continue;
    auto va = member_text(a, key), vb = member_text(b, key);
    if (va != vb) out.push_back(ValueDiff{key, std::move(va), std::move(vb)});
  }
  return out;
}

// Field by field, in order: the first position where the keys or the values differ.
void name_first_field(EventDivergence& d) {
  if (!d.a || !d.b) return;
  const ojson a = ojson::parse(*d.a, nullptr, false);
  const ojson b = ojson::parse(*d.b, nullptr, false);
  if (a.is_discarded() || b.is_discarded() || !a.is_object() || !b.is_object()) return;
  auto ia = a.begin(), ib = b.begin();
  for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
    if (ia.key() != ib.key()) {
      d.field = ia.key();
      d.field_a = ia.value().dump();
      d.field_b = member_text(b, ia.key());
      return;
    }
    if (ia.value() != ib.value()) {
      d.field = ia.key();
      d.field_a = ia.value().dump();
      d.field_b = ib.value().dump();
      return;
    }
  }
  if (ia != a.end()) {
    d.field = ia.key();
    d.field_a = ia.value().dump();
  } else if (ib != b.end()) {
    d.field = ib.key();
    d.field_b = ib.value().dump();
  }
}

EventsDiff diff_events(const std::string& path_a, const std::string& path_b) {
  EventsDiff d;
  d.compared = true;
  LineReader ra(path_a), rb(path_b);
  const auto header_a = ra.next(), header_b = rb.next();
  const ojson ha = parse_header(header_a, path_a), hb = parse_header(header_b, path_b);
  const bool header_same = *header_a == *header_b;
  if (!header_same) {
    d.header = differing_members(ha, hb, "inputs");
    const ojson none = ojson::object();
    const auto ia = ha.find("inputs"), ib = hb.find("inputs");
    const ojson& inputs_a = ia == ha.end() ? none : *ia;
    const ojson& inputs_b = ib == hb.end() ? none : *ib;
    if (inputs_a.is_object() && inputs_b.is_object()) {
      d.inputs = differing_members(inputs_a, inputs_b, "");
    } else if (inputs_a != inputs_b) {
      d.header.push_back(ValueDiff{"inputs", inputs_a.dump(), inputs_b.dump()});
    }
    // Same fields and values, spelled differently: still not the same bytes.
    if (d.header.empty() && d.inputs.empty()) d.header.push_back(ValueDiff{"header", ha.dump(), hb.dump()});
  }
  for (;;) {
    auto la = ra.next(), lb = rb.next();
    if (!la && !lb) break;
    if (la == lb) continue;
    EventDivergence div;
    div.line = std::max(ra.lines(), rb.lines());
    div.a = std::move(la);
    div.b = std::move(lb);
    name_first_field(div);
    d.first = std::move(div);
    while (ra.next()) {
    }
    while (rb.next()) {
    }
    break;
  }
  d.lines_a = ra.lines();
  d.lines_b = rb.lines();
  d.identical = header_same && !d.first;
  return d;
}

// ---- jobs.csv -----------------------------------------------------------------------------

struct Csv {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> row_lines;  // 1-based line of each row, for errors
};

// RFC 4180: fields quoted when they hold a comma, quote or newline; "" is a quote.
Csv parse_csv(const std::string& text, const std::string& path) {
  Csv csv;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, any = false;
  std::size_t line = 1, record_line = 1;
  auto end_record = [&] {
    record.push_back(std::move(field));
    field.clear();
    if (csv.columns.empty()) {
      csv.columns = std::move(record);
    } else if (!(record.size() == 1 && record.front().empty())) {
      csv.rows.push_back(std::move(record));
      csv.row_lines.push_back(record_line);
    }
    record.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!any) record_line = line;
    any = true;
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      if (!field.empty() && field.back() == '\r') field.pop_back();
      end_record();
      ++line;
    } else {
      field += c;
    }
  }
  if (quoted) throw InputError(path, record_line, "", "a quoted field is never closed");
  if (any) end_record();
  if (csv.columns.empty() || (csv.columns.size() == 1 && csv.columns.front().empty()))
    throw InputError(path, 1, "", "empty: jobs.csv starts with its header line");
  return csv;
}

std::size_t column(const Csv& csv, const std::string& name, const std::string& path) {
  const auto it = std::find(csv.columns.begin(), csv.columns.end(), name);
  if (it == csv.columns.end()) throw InputError(path, 1, name, "no such column: not a Batsim jobs.csv");
  return static_cast<std::size_t>(it - csv.columns.begin());
}

// Batsim writes -1 for the start of a job that never ran.
std::optional<double> parse_start(const std::string& text, const std::string& path, std::size_t line) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw InputError(path, line, "starting_time", "not a number: '" + text + "'");
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
  t.csv = parse_csv(read_all(path), path);
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
  return d;
}

JobsDiff diff_jobs(const std::string& path_a, const std::string& path_b, std::vector<std::string>& notes) {
  JobsDiff d;
  d.compared = true;
  const JobTable a = read_jobs(path_a), b = read_jobs(path_b);
  d.jobs_a = a.rows.size();
  d.jobs_b = b.rows.size();
  // The further columns both files have, compared as written (the same run writes the same text).
  std::vector<std::pair<std::size_t, std::size_t>> others;
  std::vector<std::string> other_names;
  for (std::size_t i = 0; i < a.csv.columns.size(); ++i) {
    if (i == a.id_col || i == a.start_col || i == a.state_col) continue;
    const auto& name = a.csv.columns[i];
    const auto it = std::find(b.csv.columns.begin(), b.csv.columns.end(), name);
    if (it == b.csv.columns.end()) {
      notes.push_back("jobs.csv column '" + name + "' is only in A: not compared");
      continue;
    }
    others.emplace_back(i, static_cast<std::size_t>(it - b.csv.columns.begin()));
    other_names.push_back(name);
  }
  for (const auto& name : b.csv.columns)
    if (std::find(a.csv.columns.begin(), a.csv.columns.end(), name) == a.csv.columns.end())
      notes.push_back("jobs.csv column '" + name + "' is only in B: not compared");

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
    const JobRow& rb = b.rows[it->second[k]];
    matched[it->second[k]] = true;
    JobDelta j;
    j.job_id = ra.id;
    j.start_a = ra.start;
    j.start_b = rb.start;
    j.state_a = ra.state;
    j.state_b = rb.state;
    for (std::size_t c = 0; c < others.size(); ++c)
      if ((*ra.cells)[others[c].first] != (*rb.cells)[others[c].second]) j.other_columns.push_back(other_names[c]);
    if (const auto delta = j.start_delta()) {
      ++d.started_in_both;
      sum_abs += std::fabs(*delta);
      d.max_abs_start_delta = std::max(d.max_abs_start_delta, std::fabs(*delta));
    }
    if (j.start_differs()) ++d.start_differs;
    if (j.state_differs()) ++d.state_changes;
    if (j.start_differs() || j.state_differs() || !j.other_columns.empty()) d.changed.push_back(std::move(j));
  }
  for (std::size_t i = 0; i < b.rows.size(); ++i)
    if (!matched[i]) {
      d.changed.push_back(one_sided(b.rows[i], false));
      ++d.only_in_b;
    }
  if (d.started_in_both > 0) d.mean_abs_start_delta = sum_abs / static_cast<double>(d.started_in_both);
  return d;
}

// ---- summary.json -------------------------------------------------------------------------

nlohmann::json read_summary(const std::string& path) {
  nlohmann::json s;
  try {
    s = nlohmann::json::parse(read_all(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, "", std::string("not valid JSON: ") + e.what());
  }
  if (!s.is_object()) throw InputError(path, 0, "", "not a pmixflow summary: not a JSON object");
  const auto format = s.find("format");
  if (format != s.end() && *format != "pmixflow-summary")
    throw InputError(path, 0, "format", "not a pmixflow summary (expected \"pmixflow-summary\")");
  return s;
}

std::optional<double> metric(const nlohmann::json& s, const std::string& name, const std::string& path) {
  const auto it = s.find(name);
  if (it == s.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw InputError(path, 0, name, "not a number: " + it->dump());
  return it->get<double>();
}

SummaryDiff diff_summary(const std::string& path_a, const std::string& path_b) {
  SummaryDiff d;
  d.compared = true;
  const auto a = read_summary(path_a), b = read_summary(path_b);
  for (const char* name : kDiffMetrics) {
    MetricDelta m{name, metric(a, name, path_a), metric(b, name, path_b)};
    if (m.a || m.b) d.metrics.push_back(std::move(m));
  }
  return d;
}

// ---- rendering ----------------------------------------------------------------------------

std::string fmt(double v, int precision = 10) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string fmt_signed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.6g", v);
  return buf;
}

std::string fmt_start(const std::optional<double>& s) { return s ? fmt(*s) : std::string("never"); }

std::string clip(const std::string& s, std::size_t max = 400) {
  return s.size() <= max ? s : s.substr(0, max) + "... (" + std::to_string(s.size()) + " characters)";
}

std::string value_or_absent(const std::optional<std::string>& v) { return v ? clip(*v, 120) : std::string("absent"); }

std::string describe(const RunFiles& r) {
  std::string have;
  const std::pair<const char*, const std::string*> files[] = {
      {"events.jsonl", &r.events}, {"jobs.csv", &r.jobs}, {"summary.json", &r.summary}};
  for (const auto& [name, path] : files)
    if (!path->empty()) have += (have.empty() ? "" : ", ") + std::string(name);
  return have.empty() ? std::string("nothing") : have;
}

ojson opt_number(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

ojson opt_value(const std::optional<std::string>& v) {
  if (!v) return nullptr;
  ojson parsed = ojson::parse(*v, nullptr, false);
  return parsed.is_discarded() ? ojson(*v) : parsed;
}

ojson value_diffs(const std::vector<ValueDiff>& diffs) {
  ojson out = ojson::array();
  for (const auto& v : diffs) out.push_back({{"name", v.name}, {"a", opt_value(v.a)}, {"b", opt_value(v.b)}});
  return out;
}

ojson run_json(const RunFiles& r) {
  auto path = [](const std::string& p) { return p.empty() ? ojson(nullptr) : ojson(p); };
  return {{"path", r.path}, {"events", path(r.events)}, {"jobs", path(r.jobs)}, {"summary", path(r.summary)}};
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
  if (events.compared && !events.identical) return false;
  if (!jobs.changed.empty()) return false;
  return std::none_of(summary.metrics.begin(), summary.metrics.end(), [](const MetricDelta& m) { return m.differs(); });
}

RunFiles locate_run(const std::string& path) {
  RunFiles r;
  r.path = path;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw InputError(
        path, 0, "",
        "no such file or directory (expected a run directory, as written by `pmixflow sim --out`, or an events.jsonl)");
  if (fs::is_directory(status)) {
    const fs::path dir(path);
    auto present = [&dir](const char* name) {
      std::error_code e;
      const auto p = dir / name;
      return fs::is_regular_file(p, e) ? p.string() : std::string();
    };
    r.events = present("events.jsonl");
    r.jobs = present("jobs.csv");
    r.summary = present("summary.json");
    if (r.events.empty() && r.jobs.empty() && r.summary.empty())
      throw InputError(path, 0, "", "not a run directory: it has no events.jsonl, jobs.csv or summary.json");
    return r;
  }
  r.events = path;  // a single file: an event log (its header is checked when it is read)
  return r;
}

DiffReport diff_runs(const std::string& run_a, const std::string& run_b) {
  DiffReport report;
  report.a = locate_run(run_a);
  report.b = locate_run(run_b);
  const RunFiles& a = report.a;
  const RunFiles& b = report.b;
  auto only_one = [&report](const char* what, const std::string& pa, const std::string& pb) {
    if (pa.empty() != pb.empty())
      report.notes.push_back(std::string(what) + " is only in " + (pa.empty() ? "B" : "A") + ": not compared");
  };
  only_one("events.jsonl", a.events, b.events);
  only_one("jobs.csv", a.jobs, b.jobs);
  only_one("summary.json", a.summary, b.summary);
  const bool events = !a.events.empty() && !b.events.empty();
  const bool jobs = !a.jobs.empty() && !b.jobs.empty();
  const bool summary = !a.summary.empty() && !b.summary.empty();
  if (!events && !jobs && !summary)
    throw InputError(run_a, 0, "",
                     "nothing to compare with " + run_b + ": A has " + describe(a) + ", B has " + describe(b));
  if (events) report.events = diff_events(a.events, b.events);
  if (jobs) report.jobs = diff_jobs(a.jobs, b.jobs, report.notes);
  if (summary) report.summary = diff_summary(a.summary, b.summary);
  return report;
}

std::string render_diff_text(const DiffReport& r, std::size_t max_jobs) {
  std::ostringstream out;
  const bool equal = r.equal();
  out << "pmixflow diff: A = " << r.a.path << ", B = " << r.b.path << ": " << (equal ? "equal" : "DIFFERENT") << "\n";

  const EventsDiff& e = r.events;
  if (e.compared) {
    if (e.identical) {
      out << "  events: identical (" << e.lines_a << " lines)\n";
    } else {
      out << "  events: differ (A has " << e.lines_a << " lines, B has " << e.lines_b << ")\n";
      if (!e.inputs.empty()) {
        out << "    header inputs that differ:";
        for (const auto& v : e.inputs) out << " " << v.name;
        out << "\n";
        for (const auto& v : e.inputs)
          out << "      " << v.name << ": A " << value_or_absent(v.a) << ", B " << value_or_absent(v.b) << "\n";
      }
      for (const auto& v : e.header)
        out << "    header field " << v.name << ": A " << value_or_absent(v.a) << ", B " << value_or_absent(v.b)
            << "\n";
      if (e.first) {
        const EventDivergence& d = *e.first;
        out << "    first diverging event: line " << d.line;
        if (!d.field.empty()) {
          out << ", field \"" << d.field << "\" (A " << value_or_absent(d.field_a) << ", B "
              << value_or_absent(d.field_b) << ")";
        } else if (d.a && d.b) {
          const bool both_json =
              !ojson::parse(*d.a, nullptr, false).is_discarded() && !ojson::parse(*d.b, nullptr, false).is_discarded();
          if (both_json) out << " (same fields and values, spelled differently)";
        }
        out << "\n";
        out << "      A: " << (d.a ? clip(*d.a) : std::string("(end of log)")) << "\n";
        out << "      B: " << (d.b ? clip(*d.b) : std::string("(end of log)")) << "\n";
      } else {
        out << "    events after the header: identical\n";
      }
    }
  }

  const JobsDiff& j = r.jobs;
  if (j.compared) {
    if (j.changed.empty()) {
      out << "  jobs: identical (" << j.jobs_a << " jobs)\n";
    } else {
      out << "  jobs: " << j.jobs_a << " in A, " << j.jobs_b << " in B; " << j.start_differs << " start differently, "
          << j.state_changes << " final states changed, " << j.only_in_a << " only in A, " << j.only_in_b
          << " only in B\n";
      if (j.started_in_both > 0)
        out << "    start delta (B - A) over the " << j.started_in_both << " jobs started in both: max |delta| "
            << fmt(j.max_abs_start_delta, 6) << " s, mean |delta| " << fmt(j.mean_abs_start_delta, 6) << " s\n";
      std::size_t shown = 0;
      for (const auto& d : j.changed) {
        if (shown == max_jobs) {
          out << "    ... and " << j.changed.size() - shown << " more jobs\n";
          break;
        }
        ++shown;
        out << "    job " << d.job_id << ": ";
        if (!d.in_b) {
          out << "only in A (start " << fmt_start(d.start_a) << ", " << d.state_a << ")\n";
          continue;
        }
        if (!d.in_a) {
          out << "only in B (start " << fmt_start(d.start_b) << ", " << d.state_b << ")\n";
          continue;
        }
        std::string sep;
        if (d.start_differs()) {
          out << "start " << fmt_start(d.start_a) << " -> " << fmt_start(d.start_b);
          if (const auto delta = d.start_delta()) out << " (delta " << fmt_signed(*delta) << " s)";
          sep = "; ";
        }
        if (d.state_differs()) {
          out << sep << "final state " << d.state_a << " -> " << d.state_b;
          sep = "; ";
        }
        if (!d.other_columns.empty()) {
          out << sep << (sep.empty() ? "differs in" : "also") << " ";
          for (std::size_t c = 0; c < d.other_columns.size(); ++c) out << (c ? ", " : "") << d.other_columns[c];
        }
        out << "\n";
      }
    }
  }

  const SummaryDiff& s = r.summary;
  if (s.compared) {
    const auto differing =
        std::count_if(s.metrics.begin(), s.metrics.end(), [](const MetricDelta& m) { return m.differs(); });
    if (differing == 0) {
      out << "  summary: identical (" << s.metrics.size() << " metrics; wall-clock times not compared)\n";
    } else {
      out << "  summary: " << differing << " of " << s.metrics.size()
          << " metrics differ (wall-clock times not compared)\n";
      char line[256];
      std::snprintf(line, sizeof line, "    %-22s %18s %18s %14s %10s\n", "metric", "A", "B", "B - A", "relative");
      out << line;
      for (const auto& m : s.metrics) {
        if (!m.differs()) continue;
        const auto delta = m.delta();
        const auto rel = m.relative();
        std::string rel_text = "n/a";
        if (rel) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%+.3g%%", *rel * 100);
          rel_text = buf;
        }
        std::snprintf(line, sizeof line, "    %-22s %18s %18s %14s %10s\n", m.name.c_str(),
                      m.a ? fmt(*m.a).c_str() : "absent", m.b ? fmt(*m.b).c_str() : "absent",
                      delta ? fmt_signed(*delta).c_str() : "n/a", rel_text.c_str());
        out << line;
      }
    }
  }
  for (const auto& n : r.notes) out << "  note: " << n << "\n";
  return out.str();
}

std::string render_diff_json(const DiffReport& r) {
  ojson out;
  out["format"] = "pmixflow-diff";
  out["version"] = 1;
  out["equal"] = r.equal();
  out["a"] = run_json(r.a);
  out["b"] = run_json(r.b);

  const EventsDiff& e = r.events;
  ojson events{{"compared", e.compared}};
  if (e.compared) {
    events["identical"] = e.identical;
    events["lines_a"] = e.lines_a;
    events["lines_b"] = e.lines_b;
    events["header"] = value_diffs(e.header);
    events["inputs"] = value_diffs(e.inputs);
    if (e.first) {
      const auto& d = *e.first;
      events["first_divergence"] = {{"line", d.line},
                                    {"a", d.a ? ojson(*d.a) : ojson(nullptr)},
                                    {"b", d.b ? ojson(*d.b) : ojson(nullptr)},
                                    {"field", d.field.empty() ? ojson(nullptr) : ojson(d.field)},
                                    {"field_a", opt_value(d.field_a)},
                                    {"field_b", opt_value(d.field_b)}};
    } else {
      events["first_divergence"] = nullptr;
    }
  }
  out["events"] = events;

  const JobsDiff& j = r.jobs;
  ojson jobs{{"compared", j.compared}};
  if (j.compared) {
    jobs["jobs_a"] = j.jobs_a;
    jobs["jobs_b"] = j.jobs_b;
    jobs["start_differs"] = j.start_differs;
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
  }
  out["jobs"] = jobs;

  const SummaryDiff& s = r.summary;
  ojson summary{{"compared", s.compared}};
  if (s.compared) {
    ojson metrics = ojson::array();
    for (const auto& m : s.metrics)
      metrics.push_back({{"name", m.name},
                         {"a", opt_number(m.a)},
                         {"b", opt_number(m.b)},
                         {"delta", opt_number(m.delta())},
                         {"relative", opt_number(m.relative())},
                         {"differs", m.differs()}});
    summary["metrics"] = metrics;
  }
  out["summary"] = summary;
  out["notes"] = r.notes;
  // Job ids and event lines are copied as read: never let a stray byte stop the report.
  return out.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

}  // namespace pmixflow
