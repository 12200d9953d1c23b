// A status PMIx gives no name to is written as the named unknown, read back by every reader,
// and counted: in summary.json and on the terminal, from the log alone.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "pmixflow/results/report.hpp"
#include "pmixflow/vocab/vocab.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using json = nlohmann::json;
using test::Contains;

constexpr const char* kHeader =
    R"({"format":"pmixflow-events","version":3,"env":"emul","seed":0,"inputs":{"scenario":"s.jsonl","platform":"p",)"
    R"("topology":"t","head":"head","nodes":1,"slots_per_node":8,"compute_nodes":"n01","policy":"fcfs"}})";

std::string log_with(const std::string& status) {
  return std::string(kHeader) + "\n" +
         R"({"t":1,"ev":"call","who":"requestor:a","corr":"a#1","what":"PMIX_ALLOC_NEW","via":"scheduler"})" + "\n" +
         R"({"t":1.5,"ev":"answer","who":"requestor:a","corr":"a#1","what":"PMIX_ALLOC_NEW","status":")" + status +
         R"(","info":[],"latency":0.5})" + "\n" +
         R"({"t":2,"ev":"log.end","who":"run","end":"quiescent","events":2,"stats":{}})" + "\n";
}

TEST(UnnamedStatuses, ACodeWithoutANameIsWrittenAsTheNamedUnknown) {
  EXPECT_EQ(status_name(static_cast<Status>(-4242)), "PMIX_STATUS_UNKNOWN(-4242)");
  EXPECT_FALSE(status_named(static_cast<Status>(-4242)));
  EXPECT_EQ(parse_status("PMIX_STATUS_UNKNOWN(-4242)"), static_cast<Status>(-4242));
  // -49, the bare number a call to a scheduler just killed was answered with, has its name.
  EXPECT_EQ(status_name(static_cast<Status>(-49)), "PMIX_ERR_COMM_FAILURE");
  EXPECT_TRUE(status_named(static_cast<Status>(-49)));
  for (const char* bad : {"PMIX_STATUS_UNKNOWN()", "PMIX_STATUS_UNKNOWN(-1x)", "PMIX_STATUS_UNKNOWN(-1", "UNKNOWN(-1)"})
    EXPECT_FALSE(parse_status(bad)) << bad;
}

TEST(UnnamedStatuses, TheReportCountsThemFromTheLog) {
  test::TempDir tmp("pmixflow_unnamed");
  const Report r = report_from_log(tmp.write("events.jsonl", log_with("PMIX_STATUS_UNKNOWN(-4242)")));
  const json summary = json::parse(r.summary_json);
  EXPECT_EQ(summary["unnamed_statuses"], json({{"PMIX_STATUS_UNKNOWN(-4242)", 1}})) << r.summary_json;
  EXPECT_TRUE(Contains(r.text, "  statuses PMIx has no name for: 1 PMIX_STATUS_UNKNOWN(-4242)\n")) << r.text;
  EXPECT_TRUE(Contains(r.text, "PMIX_STATUS_UNKNOWN(-4242) after 500 ms")) << r.text;
}

TEST(UnnamedStatuses, ALogWrittenWithABareNumberReadsAsTheNamedUnknown) {
  test::TempDir tmp("pmixflow_unnamed");
  const Report r = report_from_log(tmp.write("events.jsonl", log_with("-4242")));
  EXPECT_EQ(json::parse(r.summary_json)["unnamed_statuses"], json({{"PMIX_STATUS_UNKNOWN(-4242)", 1}}));
}

TEST(UnnamedStatuses, ARunWithEveryStatusNamedSaysNothingOfThem) {
  test::TempDir tmp("pmixflow_unnamed");
  const Report r = report_from_log(tmp.write("events.jsonl", log_with("PMIX_ERR_COMM_FAILURE")));
  EXPECT_FALSE(json::parse(r.summary_json).contains("unnamed_statuses")) << r.summary_json;
  EXPECT_FALSE(Contains(r.text, "no name")) << r.text;
  EXPECT_TRUE(Contains(r.text, "PMIX_ERR_COMM_FAILURE after 500 ms")) << r.text;
}

}  // namespace
}  // namespace pmixflow
