// Scenario assertions as a user meets them: the ones that hold pass, a wrong one fails the run
// (exit 1) naming the file, its line, what was expected and what was seen, and the report
// read back from the log alone checks them again.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

// A session on two nodes without daemons: the DVM grows, the job runs 30 s and the session is
// reclaimed; then assertions on each subject, at each moment.
const std::string kLifecycle =
    R"({"format":"pmixflow-scenario","version":1,"controller":{"dvm":"head"}})"
    "\n"
    R"({"at":1,"op":"alloc","requestor":"r","via":"scheduler","directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_NODES":2},"app":{"cmd":"sleep","argv":["30"],"np":16},"expect":{"status":"PMIX_SUCCESS"}})"
    "\n"
    R"({"op":"assert","after":"r#1","session_of":"r#1","exists":true,"nodes":"n02,n01"})"
    "\n"
    R"({"op":"assert","at":2,"node":"n02","daemon":"up","use":"busy"})"
    "\n"
    R"({"op":"assert","at":2,"node":"+n2","daemon":"none","use":"free"})"
    "\n"
    R"({"op":"assert","job_of":"r#1","ranks":"n01:0-7,n02:8-15"})"
    "\n"
    R"({"op":"assert","at":100,"session_of":"r#1","exists":false,"nodes":""})"
    "\n"
    R"({"op":"assert","count":{"ev":"session.complete"},"equals":1})"
    "\n"
    R"({"op":"assert","count":{"ev":"recv","who":"daemon:*","msg":"launch_procs"},"equals":2})"
    "\n";

RunResult run_scenario(const std::filesystem::path& dir, const std::string& body) {
  std::ofstream(dir / "s.jsonl") << body;
  return run_pmixflow({"sim", "--scenario", (dir / "s.jsonl").string(), "--out", (dir / "out").string()});
}

TEST(Assertions, ThoseThatHoldPassAndAreCounted) {
  const auto dir = scratch_dir("assert-hold");
  const auto r = run_scenario(dir, kLifecycle);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("expectations: 8 checked, 0 failed"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Assertions, AWrongOneFailsTheRunNamingItsLineAndWhatWasSeen) {
  const auto dir = scratch_dir("assert-wrong");
  std::string body = kLifecycle;
  body += R"({"op":"assert","after":"r#1","session_of":"r#1","nodes":"n01"})"
          "\n";
  body += R"({"op":"assert","count":{"ev":"session.complete"},"equals":2})"
          "\n";
  const auto r = run_scenario(dir, body);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string file = (dir / "s.jsonl").string();
  EXPECT_NE(r.out.find(file + ":10: assert session_of r#1: nodes expected n01, saw n01,n02"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(file + ":11: assert count session.complete: equals expected 2, saw 1"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("expectations: 10 checked, 2 failed"), std::string::npos) << r.out;

  // The log alone says the same: its header carries the assertions.
  const auto again = run_pmixflow({"report", (dir / "out").string(), "--out", (dir / "again").string()});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find(file + ":10: assert session_of r#1"), std::string::npos) << again.out;
  std::filesystem::remove_all(dir);
}

TEST(Assertions, AnAssertionNamingNoCallOfTheFileIsBadInput) {
  const auto dir = scratch_dir("assert-bad");
  const auto r = run_scenario(dir, kLifecycle + R"({"op":"assert","after":"r#2","node":"n01","daemon":"up"})"
                                                "\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.jsonl:10: field 'after': no call 'r#2' in this scenario"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "summary.json"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pmixflow::test
