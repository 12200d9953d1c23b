// docs/prrte-conformance.md is a statement about the code, checked: it names the PRRTE commit it
// was audited against, every row has a status the page defines, and every row that claims a
// behaviour (the same as PRRTE's, or different on purpose) names the scenarios that state it.
// Each of those scenarios exists (in tests/scenarios, or tests/faults for pmixflow's own fault
// rules), has its row in that folder's README.md, and holds every expectation and assertion it
// makes in the simulator (the emulator runs every scenario of tests/scenarios in SameOutcome). A row still open is counted and printed: the page says what
// is left, and the test does not pretend it is done.
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

constexpr const char* kAuditedCommit = "52d5e4bb1fb6dab9c46636a797605b9629581cd6";

struct ConformanceRow {
  int line = 0;
  std::string id;
  std::string status;
  std::vector<std::string> scenarios;
};

std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  bool code = false;
  for (std::size_t i = 1; i < row.size(); ++i) {
    const char c = row[i];
    if (c == '`') code = !code;
    if (c == '|' && !code && row[i - 1] != '\\') {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += c;
    }
  }
  return cells;
}

// The folder holding a scenario the page names: tests/scenarios, or tests/faults.
std::string folder_of(const std::string& scenario) {
  for (const char* dir : {"tests/scenarios/", "tests/faults/"})
    if (std::filesystem::exists(source_path(dir + scenario))) return dir;
  return "";
}

std::vector<ConformanceRow> rows_of(const std::string& page) {
  std::vector<ConformanceRow> rows;
  std::istringstream in(page);
  int n = 0;
  bool in_table = false;  // a conformance table, not the counts
  const std::regex scenario("`([a-z0-9-]+\\.jsonl)`");
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.rfind("| # | PRRTE |", 0) == 0) in_table = true;
    if (line.rfind("|", 0) != 0) in_table = false;
    if (!in_table || line.rfind("| # ", 0) == 0 || line.rfind("|---", 0) == 0) continue;
    const auto cells = cells_of(line);
    if (cells.size() != 5) {
      ADD_FAILURE() << "docs/prrte-conformance.md:" << n << ": a row has 5 cells (# | PRRTE | behaviour | "
                    << "scenario | status), this one " << cells.size();
      continue;
    }
    ConformanceRow r{n, cells[0], cells[4], {}};
    for (std::sregex_iterator it(cells[3].begin(), cells[3].end(), scenario), end; it != end; ++it)
      r.scenarios.push_back((*it)[1]);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string kind_of_status(const std::string& status) {
  if (status.rfind("same", 0) == 0) return "same";
  if (std::regex_search(status, std::regex("^different on purpose \\(rule [1-4]"))) return "different on purpose";
  if (status.rfind("open", 0) == 0) return "open";
  return "";
}

TEST(PrrteConformance, ThePageNamesItsCommitAndEveryRowItsStatusAndScenarios) {
  const std::string page = slurp(source_path("docs/prrte-conformance.md"));
  EXPECT_NE(page.find(kAuditedCommit), std::string::npos) << "the page names the PRRTE commit it audited";
  const auto rows = rows_of(page);
  ASSERT_GT(rows.size(), 50u) << "the page's tables were not read";
  std::set<std::string> ids;
  std::map<std::string, int> by_kind;
  for (const auto& r : rows) {
    SCOPED_TRACE("docs/prrte-conformance.md:" + std::to_string(r.line) + " (" + r.id + ")");
    EXPECT_TRUE(ids.insert(r.id).second) << "the id is used twice";
    const std::string kind = kind_of_status(r.status);
    EXPECT_FALSE(kind.empty()) << "a status starts with `same`, `different on purpose (rule N`, or `open`: "
                               << r.status;
    ++by_kind[kind];
    if (kind == "same" || kind == "different on purpose") {
      EXPECT_FALSE(r.scenarios.empty()) << "no scenario states it";
    }
    for (const auto& s : r.scenarios) {
      const std::string dir = folder_of(s);
      EXPECT_FALSE(dir.empty()) << s << " is in neither tests/scenarios nor tests/faults";
      if (dir.empty()) continue;
      EXPECT_NE(slurp(source_path(dir + "README.md")).find(s.substr(0, s.size() - 6)), std::string::npos)
          << s << " has no row in " << dir << "README.md";
    }
  }
  // The page's own count is the rows' count: `| **total** | **same** | **different** (...) | **open** | **rows** |`.
  std::smatch total;
  ASSERT_TRUE(std::regex_search(page, total,
                                std::regex("\\| \\*\\*total\\*\\* \\| \\*\\*(\\d+)\\*\\* \\| \\*\\*(\\d+)\\*\\*[^|]*\\| "
                                           "\\*\\*(\\d+)\\*\\* \\| \\*\\*(\\d+)\\*\\* \\|")))
      << "the page's Counts table has no total line";
  EXPECT_EQ(std::stoi(total[1]), by_kind["same"]) << "the Counts table is out of date";
  EXPECT_EQ(std::stoi(total[2]), by_kind["different on purpose"]) << "the Counts table is out of date";
  EXPECT_EQ(std::stoi(total[3]), by_kind["open"]) << "the Counts table is out of date";
  EXPECT_EQ(std::stoi(total[4]), static_cast<int>(rows.size())) << "the Counts table is out of date";
  std::cout << "docs/prrte-conformance.md: " << rows.size() << " rows:";
  for (const auto& [kind, n] : by_kind) std::cout << " " << n << " " << kind << ";";
  std::cout << "\n";
}

TEST(PrrteConformance, EveryScenarioARowNamesHoldsWhatItStates) {
  std::set<std::string> named;
  for (const auto& r : rows_of(slurp(source_path("docs/prrte-conformance.md"))))
    if (kind_of_status(r.status) != "open") named.insert(r.scenarios.begin(), r.scenarios.end());
  for (const auto& s : named) {
    SCOPED_TRACE(s);
    const auto dir = scratch_dir("prrte-" + s);
    const std::string folder = folder_of(s);
    ASSERT_FALSE(folder.empty());
    const auto r =
        run_pmixflow({"sim", "--scenario", source_path(folder + s), "--out", dir.string(), "--quiet"}, PMIXFLOW_SOURCE_DIR);
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    if (!std::filesystem::exists(dir / "summary.json")) continue;
    const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
    EXPECT_GT(summary["expectations"]["checked"].get<int>(), 0) << "it states nothing";
    EXPECT_TRUE(summary["expectations"]["failures"].empty()) << summary["expectations"].dump(2);
    if (!HasFailure()) std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace pmixflow::test
