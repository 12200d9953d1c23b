// The README's option tables and `--help` come from two places, the page and the code: held
// together here, so that an option added to one and not the other fails the suite, naming it.
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test::readme_options_tests {
namespace {

// The long options a sub-command's --help lists (but --help itself).
std::set<std::string> help_options(const std::string& sub) {
  const auto r = run_pmixflow({sub, "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> out;
  const std::regex option(R"((?:^|[ ,])(--[a-z][a-z0-9-]*))");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    // An option's own line starts with it (after indentation); later mentions are its prose's.
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line.compare(first, 1, "-") != 0) continue;
    const std::string head = line.substr(first, line.find("  ", first) - first);
    for (std::sregex_iterator it(head.begin(), head.end(), option), end; it != end; ++it)
      if ((*it)[1] != "--help") out.insert((*it)[1]);
  }
  return out;
}

// The README's section of a sub-command: from its heading to the next.
std::string readme_section(const std::string& heading) {
  const std::string readme = slurp(source_path("README.md"));
  const auto from = readme.find("\n## " + heading + "\n");
  EXPECT_NE(from, std::string::npos) << "README.md has no section " << heading;
  if (from == std::string::npos) return "";
  const auto to = readme.find("\n## ", from + 1);
  return readme.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

// The options a section's table gives, one row each: "| `--nodes N` | ...".
std::set<std::string> table_options(const std::string& section) {
  std::set<std::string> out;
  const std::regex row(R"(\n\| `(--[a-z][a-z0-9-]*))");
  for (std::sregex_iterator it(section.begin(), section.end(), row), end; it != end; ++it) out.insert((*it)[1]);
  return out;
}

std::string listed(const std::set<std::string>& options) {
  std::string out;
  for (const auto& o : options) out += " " + o;
  return out;
}

TEST(ReadmeOptions, SimTableListsExactlyTheOptionsOfSimHelp) {
  const auto help = help_options("sim");
  const auto table = table_options(readme_section("`pmixflow sim`"));
  ASSERT_GT(help.size(), 20u);
  std::set<std::string> missing, extra;
  std::set_difference(help.begin(), help.end(), table.begin(), table.end(), std::inserter(missing, missing.end()));
  std::set_difference(table.begin(), table.end(), help.begin(), help.end(), std::inserter(extra, extra.end()));
  EXPECT_TRUE(missing.empty()) << "in `pmixflow sim --help`, not in README.md's table:" << listed(missing);
  EXPECT_TRUE(extra.empty()) << "in README.md's table, not in `pmixflow sim --help`:" << listed(extra);
}

TEST(ReadmeOptions, EmulSectionNamesEveryOptionOfEmulHelp) {
  if (run_pmixflow({"emul", "--help"}).exit_code != 0) GTEST_SKIP() << "pmixflow is built without the emulator";
  const auto help = help_options("emul");
  ASSERT_GT(help.size(), 10u);
  const std::string section = readme_section("`pmixflow emul`");
  std::set<std::string> missing;
  for (const auto& o : help)
    if (!std::regex_search(section, std::regex("`" + o + "[` ]"))) missing.insert(o);
  EXPECT_TRUE(missing.empty()) << "in `pmixflow emul --help`, not named in README.md's emul section:"
                               << listed(missing);
}

}  // namespace
}  // namespace pmixflow::test::readme_options_tests
