// A replay's log is of version 3: each recv that carries what its send did is written short,
// and what pmixflow computes from the log is what it computed from the run itself; the same
// log written as version 2 had it reads the same, and diff tells the two apart only by a note.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow/log/reader.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

// The summary without what the wall clock says.
json comparable_summary(const fs::path& file) {
  json s = json::parse(slurp(file));
  for (const char* wall : {"wall_s", "events_per_s", "messages_per_s"}) s.erase(wall);
  return s;
}

// `log` as version 2 wrote it: each recv whole, from the reader.
void write_as_version_2(const fs::path& log, const fs::path& to) {
  std::ifstream in(log);
  std::string header;
  std::getline(in, header);
  const auto v = header.find(R"("version":3)");
  ASSERT_NE(v, std::string::npos) << header;
  header.replace(v, 11, R"("version":2)");
  std::ofstream out(to);
  out << header << "\n";
  log::LogReader r(log.string());
  while (r.next()) out << r.text() << "\n";
  ASSERT_TRUE(r.complete());
}

TEST(ShortRecvLog, AReplaysRecvsAreShortAndItsOutputsComeBackFromTheLogAlone) {
  const auto dir = scratch_dir("short-recv");
  const auto run = run_pmixflow({"sim", "--quiet", "--trace", std::string(PMIXFLOW_SOURCE_DIR) + "/traces/golden.swf",
                                 "--out", (dir / "a").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto log = dir / "a" / "events.jsonl";
  std::size_t recvs = 0, short_recvs = 0;
  {
    std::ifstream in(log);
    for (std::string l; std::getline(in, l);) {
      if (l.find(R"("ev":"recv")") == std::string::npos) continue;
      ++recvs;
      short_recvs += l.find(R"("msg":)") == std::string::npos;
    }
  }
  ASSERT_GT(recvs, 100u);
  EXPECT_GT(short_recvs * 10, recvs * 8) << short_recvs << " of " << recvs << " recv lines short";

  // Every recv comes back with its message.
  for (const auto& e : read_events(log)) {
    if (e.value("ev", "") != "recv") continue;
    EXPECT_TRUE(e.contains("msg") && e.contains("bytes")) << e.dump();
  }

  const auto again = run_pmixflow({"report", (dir / "a").string(), "--out", (dir / "again").string()});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(slurp(dir / "again" / "jobs.csv"), slurp(dir / "a" / "jobs.csv"));
  EXPECT_EQ(comparable_summary(dir / "again" / "summary.json"), comparable_summary(dir / "a" / "summary.json"));

  // The same run's log as version 2 wrote it: the same events, the versions noted.
  fs::create_directories(dir / "v2");
  write_as_version_2(log, dir / "v2" / "events.jsonl");
  EXPECT_GT(fs::file_size(dir / "v2" / "events.jsonl"), fs::file_size(log));
  const auto d = run_pmixflow({"diff", log.string(), (dir / "v2" / "events.jsonl").string()});
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("events: identical"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("versions 3 (A) and 2 (B)"), std::string::npos) << d.out;
  const auto old = run_pmixflow({"report", (dir / "v2").string(), "--out", (dir / "v2-again").string()});
  ASSERT_EQ(old.exit_code, 0) << old.out << old.err;
  EXPECT_EQ(slurp(dir / "v2-again" / "jobs.csv"), slurp(dir / "a" / "jobs.csv"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
