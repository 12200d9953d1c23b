// Reading CSV as RFC 4180 writes it (jobs.csv, recorded.csv): fields quoted when they hold a
// comma, a quote or a newline, "" for a quote.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pmixflow {

struct Csv {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> row_lines;  // 1-based line of each row, for errors
};

// Throws InputError naming `path` and the line for a quoted field never closed, or for a file
// without a header line.
Csv parse_csv(const std::string& text, const std::string& path);
// The index of column `name`; InputError naming `path` when there is none.
std::size_t column(const Csv& csv, const std::string& name, const std::string& path);

}  // namespace pmixflow
