// `pmixflow compare`'s table for people (aligned, human units), for spreadsheets (CSV) and for
// programs (JSON); the last two keep raw numbers, times in seconds.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "pmixflow/results/compare.hpp"
#include "pmixflow/vocab/human_text.hpp"

namespace pmixflow {
namespace {

std::string printf_text(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string cell_text(const CompareColumn& column, const CompareCell& cell) {
  if (column.kind == ColumnKind::Input) return cell.text.empty() ? "-" : cell.text;
  if (!cell.number) return "-";
  const double v = *cell.number;
  switch (column.kind) {
    case ColumnKind::Seconds: return human_duration(v);
    case ColumnKind::Ratio: return printf_text("%.1f %%", v * 100);
    // As the terminal's summary writes them: `86.4`, `4,296`, `27,992`.
    case ColumnKind::Slowdown: return significant(v, 3);
    default: return v >= 0 && v < 1e18 ? grouped(static_cast<std::uint64_t>(std::llround(v))) : printf_text("%.0f", v);
  }
}

// RFC 4180, as csv.hpp reads it: quoted when the field holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The shortest text that reads back as the same double, as summary.json and sweep.csv write it.
std::string raw_number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

}  // namespace

std::string render_compare_text(const CompareTable& table) {
  std::vector<std::vector<std::string>> lines{{"run"}};
  for (const auto& c : table.columns) lines.front().push_back(c.label);
  for (const auto& row : table.rows) {
    std::vector<std::string> line{row.run};
    for (std::size_t i = 0; i < table.columns.size(); ++i) line.push_back(cell_text(table.columns[i], row.cells[i]));
    lines.push_back(std::move(line));
  }
  std::vector<std::size_t> width(lines.front().size(), 0);
  for (const auto& line : lines)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::ostringstream out;
  for (const auto& line : lines) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      // Names and inputs read from the left, numbers from the right.
      const bool left = i == 0 || table.columns[i - 1].kind == ColumnKind::Input;
      const std::string pad(width[i] - line[i].size(), ' ');
      text += (i ? "  " : "") + (left ? line[i] + pad : pad + line[i]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  }
  if (!table.common.empty()) {
    out << "same in every run:";
    for (std::size_t i = 0; i < table.common.size(); ++i)
      out << (i ? "; " : " ") << table.common[i].first << " " << table.common[i].second;
    out << "\n";
  }
  if (!table.lacking_percentiles.empty()) {
    out << "no percentiles in the summary of";
    for (std::size_t i = 0; i < table.lacking_percentiles.size(); ++i)
      out << (i ? ", " : " ") << table.lacking_percentiles[i];
    out << " (made before they were recorded): run again, or rebuild it from the run's event log with "
           "`pmixflow report RUN`\n";
  }
  return out.str();
}

std::string render_compare_csv(const CompareTable& table) {
  std::ostringstream out;
  out << "run";
  for (const auto& c : table.columns) out << "," << csv_field(c.key);
  out << "\n";
  for (const auto& row : table.rows) {
    out << csv_field(row.run);
    for (const auto& cell : row.cells) out << "," << (cell.number ? raw_number(*cell.number) : csv_field(cell.text));
    out << "\n";
  }
  return out.str();
}

std::string render_compare_json(const CompareTable& table) {
  nlohmann::ordered_json out{{"format", "pmixflow-compare"}, {"version", 1}};
  auto& columns = out["columns"] = nlohmann::ordered_json::array();
  for (const auto& c : table.columns) columns.push_back({{"key", c.key}, {"input", c.kind == ColumnKind::Input}});
  auto& rows = out["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : table.rows) {
    nlohmann::ordered_json r{{"run", row.run}, {"path", row.path}};
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      const auto& cell = row.cells[i];
      if (table.columns[i].kind == ColumnKind::Input)
        r[table.columns[i].key] =
            cell.text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cell.text);
      else
        r[table.columns[i].key] = cell.number ? nlohmann::ordered_json(*cell.number) : nlohmann::ordered_json(nullptr);
    }
    rows.push_back(std::move(r));
  }
  auto& common = out["same_in_every_run"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : table.common) common[name] = value;
  out["lacking_percentiles"] = table.lacking_percentiles;
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace pmixflow
