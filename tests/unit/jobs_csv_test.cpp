// jobs.csv is handed to its file a block at a time, so that a trace of a million jobs is never
// one string in memory; the blocks put together are the file, row for row.
#include <gtest/gtest.h>

#include <sstream>

#include "pmixflow/results/outcomes.hpp"

namespace pmixflow::test::jobs_csv_tests {
namespace {

JobOutcomes ran_jobs(std::size_t n) {
  JobOutcomes jobs;
  for (std::size_t i = 0; i < n; ++i) {
    JobOutcome j;
    j.job_id = std::to_string(i + 1);
    j.profile = "reservation";
    j.submitted = static_cast<double>(i);
    j.requested = 8;
    j.started = static_cast<double>(i) + 0.5;
    j.finished = static_cast<double>(i) + 60.5;
    j.final_state = "COMPLETED_SUCCESSFULLY";
    j.allocated = "0-7";
    j.allocated_count = 8;
    jobs.push_back(j);
  }
  return jobs;
}

TEST(JobsCsv, ALargeRunIsWrittenInBlocksOfWholeRowsThatMakeUpTheWholeFile) {
  const auto jobs = ran_jobs(40000);  // several MB of rows
  std::vector<std::string> blocks;
  write_jobs_csv(jobs, "w", [&](std::string_view block) { blocks.emplace_back(block); });
  EXPECT_GT(blocks.size(), 2u);
  std::string joined;
  for (const auto& b : blocks) {
    EXPECT_LT(b.size(), (1u << 20) + 4096);
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(b.back(), '\n');  // a row is never cut between two blocks
    joined += b;
  }
  std::istringstream rows(joined);
  std::string line;
  ASSERT_TRUE(std::getline(rows, line));
  EXPECT_EQ(line.rfind("job_id,workload_name,", 0), 0u);
  std::size_t id = 0;
  while (std::getline(rows, line)) {
    ++id;
    ASSERT_EQ(line.rfind(std::to_string(id) + ",w,reservation,", 0), 0u) << "row " << id << ": " << line;
  }
  EXPECT_EQ(id, jobs.size());  // every job once, in order
}

TEST(JobsCsv, ASmallRunIsOneBlockWithItsHeader) {
  std::vector<std::string> blocks;
  write_jobs_csv(ran_jobs(2), "w", [&](std::string_view block) { blocks.emplace_back(block); });
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].rfind("job_id,workload_name,profile,", 0), 0u);
  EXPECT_NE(blocks[0].find("\n2,w,reservation,1,8,0,1,COMPLETED_SUCCESSFULLY,1.5,60,61.5,"), std::string::npos);
}

}  // namespace
}  // namespace pmixflow::test::jobs_csv_tests
