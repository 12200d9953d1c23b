// The table a paper's results section needs: KTH SP2 under the four shipped policies, compared in
// one `pmixflow compare` (label scale: the whole archive trace, four times).
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test::compare_kth_tests {
namespace {

TEST(CompareKth, FourPoliciesOfKthMakeOneTableWithAPolicyColumn) {
  const std::string kth = shared_path("data/traces/KTH-SP2-1996-2.1-cln.swf.gz");
  if (!std::filesystem::exists(kth)) GTEST_SKIP() << kth << " is not there (../shared/data is not beside this clone)";
  const auto dir = scratch_dir("compare-kth");
  const std::vector<std::string> policies{"fcfs", "easy", "conservative", "priority-preempt"};
  std::vector<std::string> args{"compare", "--format", "json"};
  for (const auto& policy : policies) {
    const auto out = (dir / policy).string();
    const auto run =
        run_pmixflow({"sim", "--quiet", "--trace", kth, "--policy", policy, "--events", "none", "--out", out});
    ASSERT_EQ(run.exit_code, 0) << policy << ": " << run.err;
    args.push_back(out);
  }
  const auto r = run_pmixflow(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json table = json::parse(r.out);
  ASSERT_EQ(table["rows"].size(), 4u) << r.out;
  ASSERT_FALSE(table["columns"].empty());
  EXPECT_EQ(table["columns"][0]["key"], "policy") << "the only input the runs differ in";
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const json& row = table["rows"][i];
    EXPECT_EQ(row["run"], policies[i]);
    EXPECT_EQ(row["policy"], policies[i]);
    EXPECT_GT(row["jobs"].get<double>(), 27000) << row.dump();
    EXPECT_GT(row["mean_wait_s"].get<double>(), 0) << row.dump();
    // Nearest-rank percentiles: there, ordered, and within the maximum.
    ASSERT_FALSE(row["p50_wait_s"].is_null()) << row.dump();
    EXPECT_LE(row["p50_wait_s"].get<double>(), row["p90_wait_s"].get<double>());
    EXPECT_LE(row["p90_wait_s"].get<double>(), row["p99_wait_s"].get<double>());
    EXPECT_LE(row["p99_wait_s"].get<double>(), row["max_wait_s"].get<double>());
    EXPECT_LE(row["p50_bounded_slowdown"].get<double>(), row["p90_bounded_slowdown"].get<double>());
    EXPECT_LE(row["p90_bounded_slowdown"].get<double>(), row["p99_bounded_slowdown"].get<double>());
  }
  EXPECT_TRUE(table["lacking_percentiles"].empty()) << r.out;
  EXPECT_EQ(table["same_in_every_run"]["scenario"], "KTH-SP2-1996-2.1-cln.swf.gz");

  args[2] = "text";
  const auto text = run_pmixflow(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::istringstream lines(text.out);
  std::string heading;
  std::getline(lines, heading);
  EXPECT_EQ(heading.rfind("run ", 0), 0u) << text.out;
  EXPECT_NE(heading.find("policy"), std::string::npos) << text.out;
  EXPECT_NE(heading.find("p99 wait"), std::string::npos) << text.out;
  std::cout << text.out;  // the table itself, for whoever reads the test's log
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test::compare_kth_tests
