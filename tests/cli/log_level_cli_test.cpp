// How much the event log keeps (--events all|state|none) and how it is stored (--gzip-events,
// --events-to FILE.gz): a smaller log that report, diff and every reader take as they take the
// whole one, and the same jobs and summary whatever the log keeps.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

const std::string kGolden = std::string(PMIXFLOW_SOURCE_DIR) + "/traces/golden.swf";

RunResult replay(const fs::path& out, std::vector<std::string> extra) {
  std::vector<std::string> args{"sim", "--quiet", "--trace", kGolden, "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_pmixflow(args);
}

bool is_gzip(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char magic[2] = {};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in && magic[0] == 0x1f && magic[1] == 0x8b;
}

class LogLevels : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir("levels");
    ASSERT_EQ(replay(dir_ / "all", {}).exit_code, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LogLevels, AtStateTheLogKeepsNoHopsButTheSameRun) {
  const auto r = replay(dir_ / "state", {"--events", "state"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto all = read_events(dir_ / "all" / "events.jsonl");
  const auto state = read_events(dir_ / "state" / "events.jsonl");
  std::size_t hops = 0;
  for (const auto& e : all) hops += e.value("ev", "") == "send" || e.value("ev", "") == "recv";
  ASSERT_GT(hops, 0u);
  EXPECT_EQ(state.size(), all.size() - hops);
  for (const auto& e : state) EXPECT_TRUE(e.value("ev", "") != "send" && e.value("ev", "") != "recv") << e.dump();
  EXPECT_EQ(state[0]["inputs"]["events"], "state");                        // a reader knows the hops were not kept
  EXPECT_EQ(state.back()["events"].get<std::size_t>(), state.size() - 2);  // counts what it holds
  EXPECT_EQ(slurp(dir_ / "state" / "jobs.csv"), slurp(dir_ / "all" / "jobs.csv"));
  const auto rebuilt = run_pmixflow({"report", (dir_ / "state").string()});
  EXPECT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_NE(rebuilt.out.find("148 jobs"), std::string::npos) << rebuilt.out;
  const auto d = run_pmixflow({"diff", (dir_ / "all").string(), (dir_ / "state").string()});
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("kept at different levels"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("identical where both logs keep them (A has " + std::to_string(all.size()) + " lines, B has " +
                       std::to_string(state.size()) + ")"),
            std::string::npos)
      << d.out;
}

TEST_F(LogLevels, ACompressedLogIsReadAsThePlainOne) {
  const auto r = replay(dir_ / "gz", {"--gzip-events"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto log = dir_ / "gz" / "events.jsonl.gz";
  ASSERT_TRUE(is_gzip(log));
  EXPECT_FALSE(fs::exists(dir_ / "gz" / "events.jsonl"));
  EXPECT_LT(fs::file_size(log) * 4, fs::file_size(dir_ / "all" / "events.jsonl"));
  const auto d = run_pmixflow({"diff", (dir_ / "all").string(), (dir_ / "gz").string()});
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("events: identical"), std::string::npos) << d.out;
  EXPECT_EQ(run_pmixflow({"report", log.string()}).exit_code, 0);
  const auto to = dir_ / "elsewhere.jsonl.gz";
  ASSERT_EQ(replay(dir_ / "to", {"--events-to", to.string()}).exit_code, 0);
  EXPECT_TRUE(is_gzip(to));
  EXPECT_EQ(run_pmixflow({"diff", (dir_ / "all" / "events.jsonl").string(), to.string()}).exit_code, 0);
}

TEST_F(LogLevels, AnEarlierCompressedLogGoesWhenTheNextRunKeepsNone) {
  ASSERT_EQ(replay(dir_ / "again", {"--gzip-events"}).exit_code, 0);
  ASSERT_EQ(replay(dir_ / "again", {"--events", "none"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "again" / "events.jsonl.gz"));  // never taken for this run's log
  EXPECT_TRUE(fs::exists(dir_ / "again" / "summary.json"));
}

TEST(LogLevelOptions, ContradictionsAreRefusedWithTheReason) {
  const auto bogus = run_pmixflow({"sim", "--events", "hops"});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("all, state or none"), std::string::npos) << bogus.err;
  EXPECT_NE(bogus.err.find("--events-to"), std::string::npos) << bogus.err;  // the old meaning, pointed to
  const auto none_to = run_pmixflow({"sim", "--events", "none", "--events-to", "/tmp/never.jsonl"});
  EXPECT_EQ(none_to.exit_code, 2);
  EXPECT_NE(none_to.err.find("--events none"), std::string::npos) << none_to.err;
  EXPECT_EQ(run_pmixflow({"sim", "--gzip-events"}).exit_code, 2);                     // no DIR to write it in
  EXPECT_EQ(run_pmixflow({"sim", "--no-events", "--events", "state"}).exit_code, 2);  // which one?
}

}  // namespace
}  // namespace pmixflow::test
