// docs/flow.md teaches the flow with lines of real event logs. Each quoted line must be a line
// of the run the page names just above it (`pmixflow sim ... --out NAME`, or a command on
// NAME/events.jsonl), `…` standing for text the page leaves out. The page's runs are made here
// and every quote is looked for in them, so that the page cannot drift from what pmixflow does.
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"
#include "quoted_line.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

struct Quote {
  std::size_t line;  // in the page, 1-based
  std::string text;
  std::string run;
};

struct Page {
  std::map<std::string, std::string> runs;  // name -> scenario path ("" for the built-in demo)
  std::vector<Quote> quotes;
};

// The run a shell block names, if any: it makes one (--out NAME) or reads one (NAME/events.jsonl).
void note_run(const std::string& block, Page& page, std::string& current) {
  std::smatch m;
  if (std::regex_search(block, m, std::regex(R"(--out (\S+))"))) {
    current = m[1];
    std::smatch s;
    const bool scenario = std::regex_search(block, s, std::regex(R"(--scenario \$PMIXFLOW/(\S+))"));
    page.runs.emplace(current, scenario ? source_path(s[1]) : std::string());
  } else if (std::regex_search(block, m, std::regex(R"((\w+)/events\.jsonl)"))) {
    current = m[1];
  }
}

Page read_page(const std::string& path) {
  Page page;
  std::ifstream in(path);
  std::string line, current, block, lang;
  bool in_block = false;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.rfind("```", 0) == 0) {
      if (in_block && lang == "sh") note_run(block, page, current);
      in_block = !in_block;
      lang = line.substr(3);
      block.clear();
      continue;
    }
    if (!in_block) continue;
    block += line + "\n";
    if (line.rfind("{\"t\":", 0) == 0) page.quotes.push_back(Quote{n, line, current});
  }
  return page;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Docs, EveryLogLineFlowMdQuotesIsInTheRunItNames) {
  const Page page = read_page(source_path("docs/flow.md"));
  ASSERT_GT(page.quotes.size(), 200u);
  std::map<std::string, std::vector<std::string>> logs;
  for (const auto& [name, scenario] : page.runs) {
    const auto dir = scratch_dir("doc-" + name);
    std::vector<std::string> args{"sim", "--out", dir.string(), "--quiet"};
    if (!scenario.empty()) args.insert(args.end(), {"--scenario", scenario});
    const auto r = run_pmixflow(args, PMIXFLOW_SOURCE_DIR);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    logs[name] = lines_of(dir / "events.jsonl");
    fs::remove_all(dir);
  }
  for (const auto& q : page.quotes) {
    ASSERT_TRUE(logs.count(q.run)) << "docs/flow.md:" << q.line << " quotes a log before naming its run";
    const auto& log = logs[q.run];
    const bool found =
        std::any_of(log.begin(), log.end(), [&](const std::string& l) { return matches_quote(q.text, l); });
    EXPECT_TRUE(found) << "docs/flow.md:" << q.line << " is not a line of run '" << q.run << "':\n  " << q.text
                       << "\n(scripts/update-flow-quotes.py moves quotes whose times or fields changed)";
  }
}

}  // namespace
}  // namespace pmixflow::test
