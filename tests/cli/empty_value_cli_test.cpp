// An empty value names nothing: `--scenario ''` (a script's unset variable) is refused naming the
// option, exit 2, for every option that takes a value, of every sub-command - never read as the
// option left out (the built-in demo, no output), which passed a broken script. The options are
// taken from the binary's own tables (its completion script), so a new option is covered too.
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

// Every (sub-command, option) whose option takes a value, as `pmixflow --completion bash` lists
// them: "    'sim --scenario') return ;;".
std::vector<std::pair<std::string, std::string>> options_taking_values() {
  const RunResult r = run_pmixflow({"--completion", "bash"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  static const std::regex kArm(R"(^    '([a-z]+) (--[a-z0-9-]+)'\))");
  std::vector<std::pair<std::string, std::string>> options;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch m; std::regex_search(line, m, kArm)) options.emplace_back(m[1], m[2]);
  return options;
}

// Refused with exit 2, the message beginning "pmixflow COMMAND: NAMED: SAYS".
void expect_refused(const std::vector<std::string>& args, const std::string& command, const std::string& named,
                    const std::string& says = "an empty value names nothing") {
  std::string line = "pmixflow";
  for (const auto& a : args) line += " " + (a.empty() ? std::string("''") : a);
  SCOPED_TRACE(line);
  const RunResult r = run_pmixflow(args, "", 60);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("pmixflow " + command + ": " + named + ": " + says, 0), 0u) << r.err;
}

TEST(EmptyValue, EveryOptionThatTakesAValueRefusesAnEmptyOneNamingIt) {
  const auto options = options_taking_values();
  ASSERT_GT(options.size(), 40u) << "the completion lists every sub-command's options";
  std::set<std::string> commands;
  for (const auto& [command, option] : options) {
    expect_refused({command, option, ""}, command, option);
    commands.insert(command);
  }
  for (const char* command : {"sim", "report", "diff", "compare", "sweep"})
    EXPECT_TRUE(commands.count(command)) << command;
}

// What a script with an unset variable passed: each of these ran the built-in demo (or wrote
// nothing) and exited 0.
TEST(EmptyValue, TheRunsThatPassedAreRefused) {
  for (const char* option : {"--scenario", "--trace", "--out", "--topology", "--platform", "--policy", "--events-to"})
    expect_refused({"sim", option, ""}, "sim", option);
  expect_refused({"sim", "--out="}, "sim", "--out", "needs a value");
  const std::string demo = source_path("traces/demo.jsonl");
  expect_refused({"sim", "--scenario", demo, "--cfg", "contexts/stack-size:64", "--cfg", ""}, "sim", "--cfg");
}

TEST(EmptyValue, AnEmptyPathAsAnArgumentIsRefusedNamingIt) {
  const auto dir = scratch_dir("empty");
  const std::string run = (dir / "run").string();
  ASSERT_EQ(run_pmixflow({"sim", "--quiet", "--out", run}).exit_code, 0);
  expect_refused({"report", ""}, "report", "RUN");
  expect_refused({"outcomes", ""}, "outcomes", "RUN");
  expect_refused({"outcomes", run, ""}, "outcomes", "OTHER");
  expect_refused({"diff", "", run}, "diff", "RUN_A");
  expect_refused({"diff", run, ""}, "diff", "RUN_B");
  expect_refused({"compare", run, ""}, "compare", "RUN");
  expect_refused({"sweep", ""}, "sweep", "SPEC");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
