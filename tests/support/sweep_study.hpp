// The study the sweep tests run: 3 policies x 2 traces x 3 seeds on the shipped golden trace
// and a shorter one cut from it, small enough that all 18 runs take a few seconds.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pmixflow_run.hpp"

namespace pmixflow::test {

// Writes DIR/study.sweep, DIR/golden.swf and DIR/short.swf (golden's header and first jobs);
// returns the spec's path. A smaller study names fewer policies or seeds.
inline std::filesystem::path write_study(const std::filesystem::path& dir,
                                         const std::string& policies = "fcfs, easy, conservative",
                                         const std::string& seeds = "1..3") {
  std::filesystem::copy_file(source_path("traces/golden.swf"), dir / "golden.swf",
                             std::filesystem::copy_options::overwrite_existing);
  std::ifstream golden(dir / "golden.swf");
  std::ofstream cut(dir / "short.swf");
  std::string line;
  for (int jobs = 0; jobs < 40 && std::getline(golden, line);) {
    cut << line << "\n";
    if (!line.empty() && line[0] != ';') ++jobs;
  }
  const auto spec = dir / "study.sweep";
  std::ofstream(spec) << "# policies x 2 traces x seeds\n"
                      << "policies = " << policies << "\n"
                      << "traces   = golden.swf, short.swf\n"
                      << "seeds    = " << seeds << "\n"
                      << "out      = study\n";
  return spec;
}

// sweep.csv as rows of cells, the header first.
inline std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

inline std::size_t column(const std::vector<std::vector<std::string>>& csv, const std::string& name) {
  for (std::size_t i = 0; i < csv.at(0).size(); ++i)
    if (csv[0][i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

}  // namespace pmixflow::test
