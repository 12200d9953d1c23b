// A scenario file at the border: numbers out of their field's range, deep nesting, bytes that
// are not UTF-8, long values and a directory are refused naming the file, the line and the
// field, never wrapped, echoed whole or taken as an empty file.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "pmixflow/trace/info_text.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

constexpr const char* kBorderFile = "cases/border.jsonl";
const std::string kBorderHeader = R"({"format":"pmixflow-scenario","version":1})";

using test::Contains;
using test::expect_input_error;

InputError refused_line(const std::string& line) {
  return expect_input_error([&] {
    std::istringstream in(kBorderHeader + "\n" + line + "\n");
    parse_scenario(in, kBorderFile);
  });
}

std::string alloc_line(const std::string& fields) {
  return R"({"at":1,"op":"alloc","requestor":"alice","via":"controller","directive":"NEW",)" + fields + "}";
}

void expect_border(const InputError& e, const std::string& field, const std::string& says) {
  EXPECT_EQ(e.file(), kBorderFile);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.field(), field);
  EXPECT_TRUE(Contains(e.what(), says));
  for (const char* word : {"stoul", "stoi", "stod", "json.exception"}) EXPECT_FALSE(Contains(e.what(), word));
}

TEST(ScenarioBorder, OversizedCountsAreRefusedNotWrapped) {
  // 2^32 + 1 processes would be 1 after a cast.
  expect_border(refused_line(alloc_line(R"("app":{"cmd":"sleep","argv":["1"],"np":4294967297})")), "app.np",
                "out of range (0 to 4294967295)");
  expect_border(refused_line(alloc_line(R"("info":{"PMIX_ALLOC_NUM_NODES":18446744073709551616})")),
                "info.PMIX_ALLOC_NUM_NODES", "out of range (0 to 18446744073709551615)");
  expect_border(refused_line(alloc_line(R"("info":{"PMIX_ALLOC_NUM_CPUS":1e30})")), "info.PMIX_ALLOC_NUM_CPUS",
                "out of range");
  // An exit code of 2^32 would be success; a process can only return 0 to 255.
  expect_border(refused_line(alloc_line(R"("app":{"cmd":"a.out","runtime":1,"exit_code":4294967296})")),
                "app.exit_code", "out of range (0 to 255)");
  expect_border(refused_line(R"({"at":1,"op":"session_control","requestor":"a","via":"scheduler","session":4294967296,)"
                             R"("directives":{"PMIX_SESSION_PAUSE":true}})"),
                "session", "0 to 4294967295");
}

TEST(ScenarioBorder, TimesAreFiniteAndWithinWhatPmixCarries) {
  expect_border(refused_line(R"({"at":1e400,"op":"scheduler_attach"})"), "", "not valid JSON");
  expect_border(refused_line(R"({"at":1e300,"op":"scheduler_attach"})"), "at", "out of range (0 to 4294967295)");
  expect_border(refused_line(alloc_line(R"("info":{"PMIX_ALLOC_TIME":"99999999:00:00:00"})")), "info.PMIX_ALLOC_TIME",
                "longer than PMIx can carry");
  expect_border(refused_line(alloc_line(R"("info":{"PMIX_ALLOC_TIME":4294967296})")), "info.PMIX_ALLOC_TIME",
                "out of range");
  expect_border(refused_line(alloc_line(R"("app":{"cmd":"sleep","argv":["nan"]})")), "app.argv",
                "'nan' is not a finite number");
  expect_border(refused_line(alloc_line(R"("app":{"cmd":"a.out","env":["PMIXFLOW_RUNTIME=inf"]})")), "app.env",
                "not a finite number");
}

TEST(ScenarioBorder, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = alloc_line(R"("info":{"pmix.site.x":)" + std::string(100000, '[') + "}");
  const InputError e = refused_line(deep);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_TRUE(e.field().starts_with("info.pmix.site.x[0][0]")) << e.field();
  EXPECT_TRUE(Contains(e.what(), "nested deeper than 64 levels"));
}

TEST(ScenarioBorder, InvalidUtf8IsRefusedWhereItIs) {
  const InputError e = refused_line(R"({"at":1,"op":"alloc","requestor":"al)"
                                    "\xff"
                                    R"(ice","via":"controller"})");
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.field(), "requestor");
  EXPECT_TRUE(Contains(e.what(), "not valid UTF-8 (byte 0xFF at offset 2)"));
}

TEST(ScenarioBorder, ALongValueIsQuotedCut) {
  const std::string op(1 << 20, 'z');
  const InputError e = refused_line(R"({"at":1,"op":")" + op + R"(","requestor":"a","via":"controller"})");
  EXPECT_EQ(e.field(), "op");
  EXPECT_LT(std::string(e.what()).size(), 600u);
  EXPECT_TRUE(Contains(e.what(), "(1048576 bytes)"));
}

TEST(ScenarioBorder, ADirectoryIsNotAnEmptyScenario) {
  const test::TempDir tmp;
  const InputError e = expect_input_error([&] { load_scenario(tmp.dir()); });
  EXPECT_EQ(e.file(), tmp.dir());
  EXPECT_TRUE(Contains(e.what(), "is a directory"));
  EXPECT_FALSE(Contains(e.what(), "empty"));
}

TEST(InfoText, CommandLineValuesAreCheckedAsScenarioValues) {
  // A tool's KEY=VALUE arguments (`pmixflow request`) cross the same border.
  const InputError big =
      expect_input_error([] { info_from_text({"PMIX_ALLOC_NUM_NODES=18446744073709551616"}, "request"); });
  EXPECT_TRUE(Contains(big.what(), "out of range (0 to 18446744073709551615)"));
  const InputError time = expect_input_error([] { info_from_text({"PMIX_ALLOC_TIME=999999999:0:0:0"}, "request"); });
  EXPECT_TRUE(Contains(time.what(), "longer than PMIx can carry"));
  const InputError bytes = expect_input_error([] { info_from_text({"PMIX_ALLOC_QUEUE=q\xff"}, "request"); });
  EXPECT_TRUE(Contains(bytes.what(), "not valid UTF-8"));
  const InputError deep =
      expect_input_error([] { info_from_text({"PMIX_SESSION_RESOURCES=" + std::string(100000, '{')}, "request"); });
  EXPECT_LT(std::string(deep.what()).size(), 400u);
}

}  // namespace
}  // namespace pmixflow
