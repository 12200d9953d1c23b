#include "pmixflow/results/csv.hpp"

#include <algorithm>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

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

}  // namespace pmixflow
