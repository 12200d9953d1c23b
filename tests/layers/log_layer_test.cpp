// What a viewer or a user's own tool links to read a log: the vocabulary and the log layer,
// nothing else - no roles, no SimGrid, no PMIx. This test links exactly those two targets
// (tests/CMakeLists.txt), so a dependency crept into them breaks its build.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/log/reader.hpp"

namespace pmixflow::log {
namespace {

TEST(LogLayer, AToolReadsALogWithTheReaderAlone) {
  const auto path = std::filesystem::temp_directory_path() / ("pmixflow-log-layer-" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    out << R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{}})"
        << "\n"
        << R"({"t":1.5,"ev":"job.start","who":"controller","nspace":"job-1.1","session":1,"corr":"a#1","code":"PMIX_EVENT_JOB_START"})"
        << "\n"
        << R"({"t":2,"ev":"log.end","who":"run","end":"quiescent","events":1,"stats":{}})"
        << "\n";
  }
  ReadOptions strict;
  strict.strict = true;
  LogReader reader(path.string(), strict);
  EXPECT_EQ(reader.header().env, "sim");
  const EventView* e = reader.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, EventKind::JobStart);
  EXPECT_EQ(e->t, 1.5);
  EXPECT_EQ(e->str(Field::nspace), "job-1.1");
  EXPECT_EQ(e->status(Field::code), Status::EventJobStart);
  ASSERT_NE(reader.next(), nullptr);  // the closing line
  EXPECT_EQ(reader.next(), nullptr);
  EXPECT_TRUE(reader.complete());
  EXPECT_FALSE(reader.problem().has_value());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace pmixflow::log
