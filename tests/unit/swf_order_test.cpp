// SWF traces whose jobs are not in submit order, repeat a job number or hold numbers past
// their field's range: refused naming the file, the line and the field, or with --lenient
// sorted and renumbered, and counted.
#include <gtest/gtest.h>

#include <string>

#include "pmixflow/trace/swf.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using test::Contains;
using test::expect_input_error;

// A job line: number, submit time, run time, processors; the other fields unknown.
std::string swf_line(const std::string& id, const std::string& submit, const std::string& run = "10",
                     const std::string& procs = "1") {
  return id + " " + submit + " -1 " + run + " -1 -1 -1 " + procs + " -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
}

std::size_t repair_count(const SwfTrace& trace, SwfRepair repair) {
  const auto it = trace.repaired.find(repair);
  return it == trace.repaired.end() ? 0 : it->second;
}

TEST(SwfOrder, AJobBeforeAnEarlierLineIsAnError) {
  const test::TempDir tmp;
  const std::string path = tmp.write("order.swf", "; MaxProcs: 4\n" + swf_line("1", "100") + swf_line("2", "200") +
                                                      swf_line("3", "50") + swf_line("4", "300"));
  const InputError e = expect_input_error([&] { read_swf(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.field(), "submit (field 2)");
  EXPECT_TRUE(Contains(e.detail(), "submitted at 50 s, before the job on line 3 (200 s)")) << e.detail();
  EXPECT_TRUE(Contains(e.detail(), "--lenient sorts them")) << e.detail();
}

TEST(SwfOrder, LenientSortsAndCounts) {
  const test::TempDir tmp;
  const std::string path = tmp.write("order.swf", swf_line("1", "100") + swf_line("2", "200") + swf_line("3", "50") +
                                                      swf_line("4", "200") + swf_line("5", "150"));
  const SwfTrace trace = read_swf(path, SwfOptions{.lenient = true});
  ASSERT_EQ(trace.jobs.size(), 5u);
  std::vector<std::int64_t> order;
  for (const SwfJob& j : trace.jobs) order.push_back(j.record.job);
  // Jobs of one second keep their file order (2 before 4).
  EXPECT_EQ(order, (std::vector<std::int64_t>{3, 1, 5, 2, 4}));
  EXPECT_EQ(trace.first_submit, 50);
  EXPECT_EQ(trace.jobs.front().submit, 0);  // never a negative submit time
  EXPECT_EQ(repair_count(trace, SwfRepair::OutOfOrder), 2u);
  EXPECT_EQ(swf_repair_name(SwfRepair::OutOfOrder), "out of submit order, sorted");
}

TEST(SwfOrder, ARepeatedJobNumberIsAnError) {
  const test::TempDir tmp;
  const std::string path = tmp.write("dup.swf", swf_line("7", "0") + swf_line("8", "1") + swf_line("7", "2"));
  const InputError e = expect_input_error([&] { read_swf(path); });
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.field(), "job (field 1)");
  EXPECT_TRUE(Contains(e.detail(), "job 7 is already on line 1")) << e.detail();
}

TEST(SwfOrder, LenientRenumbersPastTheLargest) {
  const test::TempDir tmp;
  const std::string path =
      tmp.write("dup.swf", swf_line("7", "0") + swf_line("9", "1") + swf_line("7", "2") + swf_line("7", "3"));
  const SwfTrace trace = read_swf(path, SwfOptions{.lenient = true});
  ASSERT_EQ(trace.jobs.size(), 4u);
  EXPECT_EQ(trace.jobs[0].record.job, 7);
  EXPECT_EQ(trace.jobs[2].record.job, 10);
  EXPECT_EQ(trace.jobs[3].record.job, 11);
  EXPECT_EQ(repair_count(trace, SwfRepair::DuplicateId), 2u);
}

TEST(SwfOrder, SkippedLinesNeitherOrderNorNumber) {
  // A line the replay leaves out (runtime < 0) takes no part in either check.
  const test::TempDir tmp;
  const std::string path =
      tmp.write("skip.swf", swf_line("1", "100") + swf_line("1", "500", "-1") + swf_line("2", "200"));
  const SwfTrace trace = read_swf(path);
  EXPECT_EQ(trace.jobs.size(), 2u);
  EXPECT_TRUE(trace.repaired.empty());
}

TEST(SwfNumbers, OutOfRangeValuesAreRefusedNotWrapped) {
  const test::TempDir tmp;
  struct Case {
    std::string line, field, says;
  };
  const std::vector<Case> cases = {
      {swf_line("1", "1e300"), "submit (field 2)", "out of range (-4294967295 to 4294967295)"},
      {swf_line("1", "0", "5e9"), "run (field 4)", "out of range"},
      {swf_line("99999999999999999999", "0"), "job (field 1)", "out of range"},
      {swf_line("1", "nan"), "submit (field 2)", "'nan' is not a finite number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    const std::string path = tmp.write("range.swf", c.line);
    const InputError e = expect_input_error([&] { read_swf(path); });
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.field(), c.field);
    EXPECT_TRUE(Contains(e.detail(), c.says)) << e.detail();
  }
  // A machine of 2^32 + 1 nodes would be one node.
  const std::string path = tmp.write("nodes.swf", "; MaxNodes: 4294967297\n" + swf_line("1", "0"));
  const InputError e = expect_input_error([&] { read_swf(path, SwfOptions{.lenient = true}); });
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.field(), "MaxNodes");
  EXPECT_TRUE(Contains(e.detail(), "out of range (1 to 4294967295)")) << e.detail();
}

TEST(SwfNumbers, ADirectoryIsNamedAsOne) {
  const test::TempDir tmp;
  const InputError e = expect_input_error([&] { read_swf(tmp.dir()); });
  EXPECT_TRUE(Contains(e.detail(), "is a directory, not an SWF trace")) << e.detail();
}

}  // namespace
}  // namespace pmixflow
