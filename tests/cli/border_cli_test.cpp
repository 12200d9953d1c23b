// Bad input at the border, as a user of `pmixflow` meets it: numeric options refused naming the
// option and the range in plain numbers, unknown options with the nearest known one, a
// directory named as one, and no message saying stoul or echoing a megabyte. Exit status 2.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

void expect_refused(const std::vector<std::string>& args, const std::string& says) {
  SCOPED_TRACE(args.at(1) + " " + args.at(2));
  const auto r = run_pmixflow(args);
  EXPECT_EQ(r.exit_code, 2);
  // Named by its sub-command when one was recognised ("simm" is not one).
  const std::string command = args.at(0) == "sim" ? "pmixflow sim: " : "pmixflow: ";
  EXPECT_EQ(r.err.rfind(command, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 400u) << r.err;  // never a double's 309 digits
}

TEST(BorderCli, NumericOptionsAreCheckedAgainstTheirRange) {
  // A seed of -1 would be 2^64 - 1, NaN passes every comparison, 2^32 + 1 nodes would be one.
  expect_refused({"sim", "--seed", "-1"}, "--seed: '-1' is out of range (0 to 18446744073709551615)");
  expect_refused({"sim", "--via-daemon", "nan"}, "--via-daemon: 'nan' is not a finite number");
  expect_refused({"sim", "--via-daemon", "1.5"}, "--via-daemon: '1.5' is out of range (0 to 1)");
  expect_refused({"sim", "--batch-delay", "inf"}, "--batch-delay: 'inf' is not a finite number");
  expect_refused({"sim", "--nodes", "4294967297"}, "--nodes: '4294967297' is out of range (1 to 4294967295)");
  expect_refused({"sim", "--jitter", "-0.1"}, "--jitter: '-0.1' is out of range (0 to 1000)");
  expect_refused({"sim", "--idle-actors", "many"}, "--idle-actors: 'many' is not a number");
  expect_refused({"sim", "--queue-priority", "gold=99999999999"},
                 "the priority of 'gold': '99999999999' is out of range (-2147483648 to 2147483647)");
  expect_refused({"sim", "--daemon-startup", "1e999"}, "--daemon-startup: '1e999' is out of range (0 to 4294967295)");
}

// A mean time between failures or to repair is a positive number of seconds: 0 would be
// failures without end, and is refused with the rest.
TEST(BorderCli, FailureRatesAreMoreThanZeroAndFinite) {
  const std::string trace = source_path("traces/golden.swf");
  const std::string range = "(more than 0 and at most 4294967295)";
  for (const char* option : {"--node-mtbf", "--node-mttr"}) {
    const std::string o = option;
    auto args = [&](const std::string& value) {
      std::vector<std::string> a{"sim", o, value, "--trace", trace};
      if (o == "--node-mttr") a.insert(a.end(), {"--node-mtbf", "100"});
      return a;
    };
    expect_refused(args("0"), o + ": '0' is out of range " + range);
    expect_refused(args("-5"), o + ": '-5' is out of range " + range);
    expect_refused(args("1e999"), o + ": '1e999' is out of range " + range);
    expect_refused(args("nan"), o + ": 'nan' is not a finite number");
    expect_refused(args("inf"), o + ": 'inf' is not a finite number");
    expect_refused(args("soon"), o + ": 'soon' is not a number");
  }
}

TEST(BorderCli, ANearMissOptionIsSuggested) {
  expect_refused({"sim", "--sead", "3"}, "unknown option --sead (did you mean --seed?)");
  expect_refused({"simm", "--seed", "3"}, "unexpected argument simm (did you mean sim?)");
}

TEST(BorderCli, ADirectoryIsNamedAsOne) {
  const auto dir = scratch_dir("dir");
  for (const char* option : {"--scenario", "--trace", "--platform", "--topology"}) {
    const auto r = run_pmixflow({"sim", option, dir.string()});
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_NE(r.err.find(dir.string() + ": is a directory"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("empty"), std::string::npos) << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(BorderCli, ALaunchFailureOnANodeTheMachineLacksIsRefusedByLine) {
  // A name that is not a compute node here would silently never fail.
  const auto dir = scratch_dir("fail-launch");
  std::ofstream(dir / "s.jsonl") << R"({"format":"pmixflow-scenario","version":1})"
                                    "\n"
                                 << R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"NEW",)"
                                    R"("info":{"PMIX_ALLOC_NUM_NODES":1},"app":{"cmd":"sleep","argv":["1"],"np":1,)"
                                    R"("fail_launch":["n42"]}})"
                                    "\n";
  const auto r = run_pmixflow({"sim", "--scenario", (dir / "s.jsonl").string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("s.jsonl:2: field 'app.fail_launch': no compute node 'n42' on this machine"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "events.jsonl"));
  std::filesystem::remove_all(dir);
}

TEST(BorderCli, AnOversizedValueIsNamedAndCut) {
  const auto dir = scratch_dir("big");
  const auto file = dir / "s.jsonl";
  const std::string header = R"({"format":"pmixflow-scenario","version":1})"
                             "\n";
  std::ofstream(file) << header << R"({"at":1,"op":"alloc","requestor":"a","via":"controller","directive":"NEW",)"
                      << R"("app":{"cmd":"sleep","argv":["1"],"np":4294967297}})"
                      << "\n";
  auto r = run_pmixflow({"sim", "--scenario", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.jsonl:2: field 'app.np': '4294967297' is out of range (0 to 4294967295)"), std::string::npos)
      << r.err;
  for (const char* word : {"stoul", "stoi", "stod"}) EXPECT_EQ(r.err.find(word), std::string::npos) << r.err;
  // A megabyte where a word is meant is quoted by its first 80 characters and its size.
  std::ofstream(file) << header << R"({"at":2,"op":")" << std::string(1 << 20, 'x')
                      << R"(","requestor":"a","via":"controller"})"
                      << "\n";
  r = run_pmixflow({"sim", "--scenario", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(1048576 bytes)"), std::string::npos) << r.err.substr(0, 400);
  EXPECT_LT(r.err.size(), 600u);
  std::filesystem::remove_all(dir);
}

TEST(BorderCli, DeepJsonIsRefusedNotACrash) {
  const auto dir = scratch_dir("deep");
  const auto file = dir / "s.jsonl";
  std::ofstream(file) << R"({"format":"pmixflow-scenario","version":1,"name":)" << std::string(200000, '[') << "\n";
  const auto r = run_pmixflow({"sim", "--scenario", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.jsonl:1: field 'name"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nested deeper than 64 levels"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 400u);
  std::filesystem::remove_all(dir);
}

TEST(BorderCli, AFileNameThatIsNotUtf8LeavesEveryOutputStrictJson) {
  // Linux does not ask file names to be UTF-8; the outputs that name the input still must be.
  const auto dir = scratch_dir("bytes");
  const auto trace = dir / "t\xfe.swf";
  std::ofstream(trace) << "; MaxNodes: 2\n; MaxProcs: 2\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
  const auto r = run_pmixflow({"sim", "--trace", trace.string(), "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(json::accept(slurp(dir / "out" / "summary.json")));  // nlohmann refuses bad UTF-8
  std::ifstream events(dir / "out" / "events.jsonl");
  for (std::string line; std::getline(events, line);) EXPECT_TRUE(json::accept(line)) << line;
  EXPECT_NE(slurp(dir / "out" / "summary.json").find("t\u00fe.swf"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
