// Every reader of runs - report, outcomes, diff, compare - on the same damaged run: the same
// refusal (exit 2) with the same message, naming the file and the line; none of them waits on a
// named pipe or reads a line that never ends into memory. The viewer's side is in
// tests/view/view_model_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "damaged_run.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

// Long enough for a reader that works, and the end of a reader that would wait forever.
constexpr int kDeadline_s = 60;

class RunReaders : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(scratch_dir("readers"));
    const auto r = run_pmixflow({"sim", "--out", (*dir_ / "good").string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static fs::path good() { return *dir_ / "good"; }
  static fs::path bad() { return *dir_ / "bad"; }

  // What `pmixflow COMMAND ARGS` said on standard error, its "pmixflow COMMAND: " taken off,
  // once it has exited 2.
  static std::string refusal(const std::string& command, std::vector<std::string> args) {
    args.insert(args.begin(), command);
    const auto r = run_pmixflow(args, "", kDeadline_s);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    const std::string prefix = "pmixflow " + command + ": ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    return r.err.substr(std::min(prefix.size(), r.err.size()));
  }

  static fs::path* dir_;
};

fs::path* RunReaders::dir_ = nullptr;

TEST_F(RunReaders, EveryReaderRefusesADamagedRunWithTheSameMessage) {
  for (const auto& [damage, name] : all_damages()) {
    SCOPED_TRACE(name);
    const std::size_t line = damage_run(good(), bad(), damage);
    const std::string log = (bad() / "events.jsonl").string();
    const std::string named = line ? log + ":" + std::to_string(line) + ": " : log + ": ";
    const std::string report = refusal("report", {bad().string(), "--out", (*dir_ / "report-out").string()});
    EXPECT_EQ(report.rfind(named, 0), 0u) << report;
    EXPECT_EQ(refusal("outcomes", {bad().string()}), report);
    EXPECT_EQ(refusal("diff", {good().string(), bad().string()}), report);
    EXPECT_EQ(refusal("compare", {bad().string()}), report);
    EXPECT_FALSE(fs::exists(*dir_ / "report-out" / "summary.json"));
  }
}

TEST_F(RunReaders, EachRefusalSaysWhatIsWrong) {
  const std::pair<Damage, std::string> said[] = {
      {Damage::EndlessLine, "longer than 16 MiB, the longest line a log may hold"},
      {Damage::Fifo, "is a named pipe (FIFO)"},
      {Damage::Directory, "is a directory, not an event log"},
      {Damage::SymlinkLoop, "a loop of symbolic links"},
      {Damage::NulByte, "a NUL byte at column"},
      {Damage::NodeWithoutField, "field 'sessions': missing: node always has it"},
      {Damage::HugeTime, "field 't': a time of 1e308 s"},
      {Damage::NegativeTime, "field 't': a time of -1 s"}};
  for (const auto& [damage, words] : said) {
    damage_run(good(), bad(), damage);
    const std::string report = refusal("report", {bad().string(), "--out", (*dir_ / "report-out").string()});
    EXPECT_NE(report.find(words), std::string::npos) << report;
  }
}

// --partial takes a log that stops early, never one with a bad line in it.
TEST_F(RunReaders, PartialTakesACutLogButNotABadLine) {
  damage_run(good(), bad(), Damage::NodeWithoutField);
  EXPECT_FALSE(refusal("report", {bad().string(), "--partial", "--out", (*dir_ / "p").string()}).empty());
  EXPECT_FALSE(refusal("diff", {"--partial", good().string(), bad().string()}).empty());
  auto lines = lines_of(slurp(good() / "events.jsonl"));
  lines.resize(lines.size() / 2);
  fs::remove_all(bad());
  fs::create_directories(bad());
  write_lines(bad() / "events.jsonl", lines);
  const auto r = run_pmixflow({"report", bad().string(), "--partial", "--quiet"}, "", kDeadline_s);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << " " << r.err;  // 1: an expectation unmet
}

}  // namespace
}  // namespace pmixflow::test
