// What a user of `pmixflow` sees: the demo, the help, and bad input refused with a clear
// message naming file, line and field, exit status 2, and no output that looks complete.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

std::filesystem::path write_scenario(const std::filesystem::path& dir, const std::string& body) {
  const auto file = dir / "scenario.jsonl";
  std::ofstream(file) << body;
  return file;
}

const std::string kHeader = R"({"format":"pmixflow-scenario","version":1})"
                            "\n";

struct Refusal {
  RunResult result;
  bool wrote_anything = false;
};

Refusal refuse(const std::string& scenario_body, std::vector<std::string> extra = {}) {
  const auto dir = scratch_dir("bad");
  const auto file = write_scenario(dir, scenario_body);
  const auto out = dir / "out";
  std::vector<std::string> args{"sim", "--scenario", file.string(), "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  Refusal r{run_pmixflow(args)};
  r.wrote_anything = std::filesystem::exists(out / "events.jsonl") || std::filesystem::exists(out / "summary.json") ||
                     std::filesystem::exists(out / "events.jsonl.partial");
  std::filesystem::remove_all(dir);
  return r;
}

TEST(Cli, WithNoArgumentsTheDemoPrintsASummary) {
  const auto r = run_pmixflow({"sim"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pmixflow sim: demo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("via daemon:n01"), std::string::npos);
  EXPECT_NE(r.out.find("via controller"), std::string::npos);
  EXPECT_NE(r.out.find("via scheduler"), std::string::npos);
  EXPECT_NE(r.out.find("expectations: 8 checked, 0 failed"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Cli, TheDemoWritesItsOutputsWhereAsked) {
  const auto dir = scratch_dir("demo");
  const auto r = run_pmixflow({"sim", "--out", (dir / "d").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto events = read_events(dir / "d" / "events.jsonl");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0]["format"], "pmixflow-events");
  EXPECT_EQ(events[0]["version"], 3);
  EXPECT_EQ(events.back()["ev"], "log.end");  // a whole log ends with its closing line
  const auto summary = json::parse(slurp(dir / "d" / "summary.json"));
  EXPECT_EQ(summary["events"].get<std::size_t>(), events.size() - 2);
  EXPECT_EQ(events.back()["events"], summary["events"]);
  std::filesystem::remove_all(dir);
}

TEST(Cli, HelpDocumentsEveryOption) {
  const auto r = run_pmixflow({"sim", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option :
       {"--platform", "--topology", "--nodes", "--network", "--scenario", "--seed", "--out", "--slots", "--policy",
        "--no-events", "--daemon-startup", "--contexts", "--quiet", "--node-mtbf", "--node-mttr"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
}

TEST(Cli, AMissingScenarioFileIsNamed) {
  const auto r = run_pmixflow({"sim", "--scenario", "/nonexistent/s.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/s.jsonl"), std::string::npos) << r.err;
}

TEST(Cli, AMalformedLineIsNamedByFileAndLine) {
  const auto r =
      refuse(kHeader + R"({"at":1,"op":"alloc","requestor":"r","via":"controller","directive":"PMIX_ALLOC_NEW"})"
                       "\n"
                       R"({"at":2,"op":"alloc", oops)"
                       "\n");
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("scenario.jsonl:3"), std::string::npos) << r.result.err;
  EXPECT_NE(r.result.err.find("not valid JSON"), std::string::npos) << r.result.err;
  EXPECT_FALSE(r.wrote_anything);
}

TEST(Cli, AnUnknownDirectiveIsNamedByLineAndField) {
  const auto r =
      refuse(kHeader + R"({"at":1,"op":"alloc","requestor":"r","via":"controller","directive":"PMIX_ALLOC_GROW"})"
                       "\n");
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("scenario.jsonl:2: field 'directive'"), std::string::npos) << r.result.err;
  EXPECT_NE(r.result.err.find("PMIX_ALLOC_GROW"), std::string::npos);
  EXPECT_FALSE(r.wrote_anything);
}

TEST(Cli, AnUnknownNodeIsNamedByLineAndField) {
  const auto r =
      refuse(kHeader + R"({"at":1,"op":"alloc","requestor":"r","via":"daemon:n99","directive":"PMIX_ALLOC_NEW"})"
                       "\n");
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("scenario.jsonl:2: field 'via'"), std::string::npos) << r.result.err;
  EXPECT_NE(r.result.err.find("n99"), std::string::npos);
  EXPECT_FALSE(r.wrote_anything);
}

TEST(Cli, AValueOfTheWrongTypeIsNamedByItsKey) {
  const auto r = refuse(
      kHeader +
      R"({"at":1,"op":"alloc","requestor":"r","via":"controller","directive":"NEW","info":{"PMIX_ALLOC_NUM_CPUS":"four"}})"
      "\n");
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("field 'info.PMIX_ALLOC_NUM_CPUS'"), std::string::npos) << r.result.err;
}

TEST(Cli, AMissingHeaderIsRefused) {
  const auto r = refuse(R"({"at":1,"op":"alloc","requestor":"r","via":"controller","directive":"NEW"})"
                        "\n");
  EXPECT_EQ(r.result.exit_code, 2);
  EXPECT_NE(r.result.err.find("scenario.jsonl:1: field 'format'"), std::string::npos) << r.result.err;
}

TEST(Cli, MissingPlatformAndTopologyFilesAreNamed) {
  auto r = run_pmixflow({"sim", "--platform", "/nonexistent/p.xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/p.xml: platform file not found"), std::string::npos) << r.err;
  r = run_pmixflow({"sim", "--topology", "/nonexistent/t.xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/t.xml"), std::string::npos) << r.err;
}

TEST(Cli, BadOptionValuesAreRefused) {
  EXPECT_EQ(run_pmixflow({"sim", "--nodes", "0"}).exit_code, 2);
  EXPECT_EQ(run_pmixflow({"sim", "--slots", "threads"}).exit_code, 2);
  EXPECT_EQ(run_pmixflow({"sim", "--policy", "lottery"}).exit_code, 2);
  const auto r = run_pmixflow({"sim", "--network", "hypercube"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("hypercube"), std::string::npos);
}

TEST(Cli, AFailedExpectationExitsOne) {
  const auto dir = scratch_dir("expect");
  const auto file = write_scenario(
      dir,
      kHeader +
          R"({"at":1,"op":"alloc","requestor":"r","via":"controller","directive":"NEW","info":{"PMIX_ALLOC_NUM_CPUS":2},"expect":{"status":"PMIX_ERR_NOT_FOUND"}})"
          "\n");
  const auto r = run_pmixflow({"sim", "--scenario", file.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test

namespace pmixflow::test {
namespace {

// The README's json blocks, in order of appearance.
std::vector<std::string> readme_json_blocks() {
  const std::string readme = slurp(source_path("README.md"));
  std::vector<std::string> blocks;
  for (std::size_t at = readme.find("```json\n"); at != std::string::npos; at = readme.find("```json\n", at)) {
    const std::size_t start = at + 8, end = readme.find("```", start);
    blocks.push_back(readme.substr(start, end - start));
    at = end + 3;
  }
  return blocks;
}

TEST(Cli, TheReadmeScenarioExamplesRunAsDocumented) {
  const auto blocks = readme_json_blocks();
  ASSERT_GE(blocks.size(), 2u);
  const auto dir = scratch_dir("readme");
  // The complete example, and the one-per-operation lines under the same header.
  const std::string header = blocks[0].substr(0, blocks[0].find('\n') + 1);
  const auto first = write_scenario(dir, blocks[0]);
  auto r = run_pmixflow({"sim", "--scenario", first.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("expectations: 2 checked, 0 failed"), std::string::npos) << r.out;
  std::filesystem::rename(first, dir / "first.jsonl");
  const auto more = write_scenario(dir, header + blocks[1]);
  r = run_pmixflow({"sim", "--scenario", more.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
