#include "pmixflow/trace/swf.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "pmixflow/vocab/errors.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

namespace fs = std::filesystem;

using test::Contains;
using test::expect_input_error;

class TraceDir : public test::TempDir {
 public:
  TraceDir() : test::TempDir("pmixflow_swf") {}
  std::string write_gz(const std::string& name, const std::string& content) const {
    auto file = (path() / name).string();
    gzFile out = gzopen(file.c_str(), "wb");
    EXPECT_NE(out, nullptr) << file;
    if (out == nullptr) return file;
    EXPECT_EQ(gzwrite(out, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
    EXPECT_EQ(gzclose(out), Z_OK);
    return file;
  }
};

// One job line; the fields a test does not care about are -1.
struct Line {
  std::string job = "1";
  std::string submit = "0";
  std::string wait = "-1";
  std::string run = "10";
  std::string allocated_procs = "-1";
  std::string avg_cpu = "-1";
  std::string used_memory = "-1";
  std::string requested_procs = "1";
  std::string requested_time = "-1";
  std::string requested_memory = "-1";
  std::string status = "1";
  std::string user = "-1";
  std::string group = "-1";
  std::string executable = "-1";
  std::string queue = "-1";
  std::string partition = "-1";
  std::string preceding_job = "-1";
  std::string think_time = "-1";

  std::string text() const {
    return job + " " + submit + " " + wait + " " + run + " " + allocated_procs + " " + avg_cpu + " " + used_memory +
           " " + requested_procs + " " + requested_time + " " + requested_memory + " " + status + " " + user + " " +
           group + " " + executable + " " + queue + " " + partition + " " + preceding_job + " " + think_time + "\n";
  }
};

Line job(std::string id, std::string submit, std::string run, std::string procs) {
  Line line;
  line.job = std::move(id);
  line.submit = std::move(submit);
  line.run = std::move(run);
  line.requested_procs = std::move(procs);
  return line;
}

std::size_t skips(const SwfTrace& trace, SwfSkip reason) {
  const auto it = trace.skipped.find(reason);
  return it == trace.skipped.end() ? 0 : it->second;
}

std::string shared_trace() { return std::string(PMIXFLOW_SHARED_DIR) + "/data/traces/KTH-SP2-1996-2.1-cln.swf.gz"; }

// ---------------------------------------------------------------------------------------------
// Header

TEST(SwfHeader, KeysValuesAndOptionals) {
  TraceDir tmp;
  const std::string path = tmp.write("header.swf",
                                     "; Version: 2.2\n"
                                     "; Computer: Test machine\n"
                                     "; Information: http://example.org/\n"
                                     ";              http://www.cs.huji.ac.il/labs/parallel/\n"
                                     "; StartTime: Mon Sep 23 14:00:31 CEST 1996\n"
                                     ";  MaxNodes :   100   \n"
                                     "; MaxProcs: 128\n"
                                     "; UnixStartTime: 828334864\n"
                                     "; Note: first note\n"
                                     "; Note: second note\n"
                                     "; a comment without a colon\n"
                                     ";\n"
                                     "; free text, with a colon: not a one-word key\n"
                                     "\n" +
                                         job("1", "0", "10", "1").text());
  const SwfTrace trace = read_swf(path);
  EXPECT_EQ(trace.path, path);
  const std::map<std::string, std::string> expected = {
      {"Version", "2.2"},
      {"Computer", "Test machine"},
      {"Information", "http://example.org/"},
      {"StartTime", "Mon Sep 23 14:00:31 CEST 1996"},
      {"MaxNodes", "100"},
      {"MaxProcs", "128"},
      {"UnixStartTime", "828334864"},
      {"Note", "first note\nsecond note"},
  };
  EXPECT_EQ(trace.header, expected);
  EXPECT_EQ(trace.max_nodes, 100);
  EXPECT_EQ(trace.max_procs, 128);
  EXPECT_EQ(trace.unix_start_time, 828334864);
  EXPECT_EQ(trace.jobs.size(), 1u);
}

TEST(SwfHeader, NonNumericOptionalsStayInTheHeaderOnly) {
  TraceDir tmp;
  const std::string path = tmp.write("header.swf",
                                     "; MaxNodes: unknown\n"
                                     "; MaxProcs: -1\n"
                                     "; UnixStartTime: 12 o'clock\n" +
                                         job("1", "0", "10", "100000").text());
  const SwfTrace trace = read_swf(path);
  EXPECT_EQ(trace.header.at("MaxNodes"), "unknown");
  EXPECT_EQ(trace.header.at("MaxProcs"), "-1");
  EXPECT_EQ(trace.header.at("UnixStartTime"), "12 o'clock");
  EXPECT_FALSE(trace.max_nodes.has_value());
  EXPECT_FALSE(trace.max_procs.has_value());  // -1 is SWF's "unknown"
  EXPECT_FALSE(trace.unix_start_time.has_value());
  ASSERT_EQ(trace.jobs.size(), 1u);  // no MaxProcs: nothing is too large
  EXPECT_EQ(trace.jobs[0].procs, 100000u);
}

TEST(SwfHeader, NoHeaderAtAll) {
  TraceDir tmp;
  const SwfTrace trace = read_swf(tmp.write("bare.swf", job("1", "5", "10", "2").text()));
  EXPECT_TRUE(trace.header.empty());
  EXPECT_FALSE(trace.max_nodes || trace.max_procs || trace.unix_start_time);
  EXPECT_EQ(trace.jobs.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Jobs

TEST(SwfJobs, EveryFieldMapped) {
  TraceDir tmp;
  const std::string path =
      tmp.write("fields.swf", "; Comment\n\n7 100.5 20 30 4 25.5 1024 8 3600 2048 5 42 43 44 45 46 6 12.5\n");
  const SwfTrace trace = read_swf(path);
  ASSERT_EQ(trace.jobs.size(), 1u);
  const SwfJob& j = trace.jobs[0];
  const SwfRecord& r = j.record;
  EXPECT_EQ(r.job, 7);
  EXPECT_EQ(r.submit, 100.5);
  EXPECT_EQ(r.wait, 20);
  EXPECT_EQ(r.run, 30);
  EXPECT_EQ(r.allocated_procs, 4);
  EXPECT_EQ(r.avg_cpu, 25.5);
  EXPECT_EQ(r.used_memory, 1024);
  EXPECT_EQ(r.requested_procs, 8);
  EXPECT_EQ(r.requested_time, 3600);
  EXPECT_EQ(r.requested_memory, 2048);
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.user, 42);
  EXPECT_EQ(r.group, 43);
  EXPECT_EQ(r.executable, 44);
  EXPECT_EQ(r.queue, 45);
  EXPECT_EQ(r.partition, 46);
  EXPECT_EQ(r.preceding_job, 6);
  EXPECT_EQ(r.think_time, 12.5);
  EXPECT_EQ(r.line, 3u);
  EXPECT_EQ(j.procs, 8u);  // field 8 wins over field 5
  EXPECT_EQ(j.runtime, 30);
  EXPECT_EQ(j.estimate, 3600);
  EXPECT_EQ(j.submit, 0);
  EXPECT_EQ(trace.first_submit, 100.5);
  EXPECT_TRUE(trace.skipped.empty());
}

TEST(SwfJobs, DecimalsSignsExponentsAndTabs) {
  TraceDir tmp;
  const std::string path = tmp.write("decimals.swf",
                                     "1\t1e3\t-1.00\t+30.25\t4.00\t-1.00\t-1.00\t-1.00\t3600.50\t-1.00\t1.0\t"
                                     "-1\t-1\t-1\t-1\t-1\t-1\t-1\n"
                                     "  9223372036854775807 1001 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17  \n");
  const SwfTrace trace = read_swf(path);
  ASSERT_EQ(trace.jobs.size(), 2u);
  const SwfJob& j = trace.jobs[0];
  EXPECT_EQ(j.record.submit, 1000);
  EXPECT_EQ(j.record.wait, -1);
  EXPECT_EQ(j.record.run, 30.25);
  EXPECT_EQ(j.record.allocated_procs, 4);
  EXPECT_EQ(j.record.requested_procs, -1);
  EXPECT_EQ(j.record.status, 1);
  EXPECT_EQ(j.procs, 4u);
  EXPECT_EQ(j.estimate, 3600.5);
  EXPECT_EQ(trace.jobs[1].record.job, INT64_MAX);  // every digit of a large integer kept
  EXPECT_EQ(trace.jobs[1].record.line, 2u);
}

TEST(SwfJobs, ProcsFallBackToAllocatedWhenRequestedIsUnknown) {
  TraceDir tmp;
  Line requested_unknown = job("1", "0", "10", "-1");
  requested_unknown.allocated_procs = "16";
  Line allocated_unknown = job("2", "0", "10", "2");
  allocated_unknown.allocated_procs = "-1";
  Line both = job("3", "0", "10", "3");
  both.allocated_procs = "64";
  const SwfTrace trace =
      read_swf(tmp.write("procs.swf", requested_unknown.text() + allocated_unknown.text() + both.text()));
  ASSERT_EQ(trace.jobs.size(), 3u);
  EXPECT_EQ(trace.jobs[0].procs, 16u);
  EXPECT_EQ(trace.jobs[1].procs, 2u);
  EXPECT_EQ(trace.jobs[2].procs, 3u);
}

TEST(SwfJobs, EstimateRules) {
  TraceDir tmp;
  Line unknown = job("1", "0", "100", "1");
  unknown.requested_time = "-1";
  Line smaller = job("2", "0", "100", "1");
  smaller.requested_time = "50";
  Line larger = job("3", "0", "100", "1");
  larger.requested_time = "200";
  Line equal = job("4", "0", "100", "1");
  equal.requested_time = "100";
  Line zero_run = job("5", "0", "0", "1");
  zero_run.requested_time = "-1";
  const SwfTrace trace = read_swf(
      tmp.write("estimates.swf", unknown.text() + smaller.text() + larger.text() + equal.text() + zero_run.text()));
  ASSERT_EQ(trace.jobs.size(), 5u);
  EXPECT_EQ(trace.jobs[0].estimate, 100);  // -1: the runtime
  EXPECT_EQ(trace.jobs[1].estimate, 100);  // smaller than the runtime: the runtime
  EXPECT_EQ(trace.jobs[2].estimate, 200);  // larger: the user's estimate
  EXPECT_EQ(trace.jobs[3].estimate, 100);
  EXPECT_EQ(trace.jobs[4].estimate, 0);
  EXPECT_EQ(trace.jobs[4].runtime, 0);  // a runtime of 0 is kept
  for (const SwfJob& j : trace.jobs) EXPECT_EQ(j.runtime, j.record.run);
}

TEST(SwfJobs, EachSkipReasonCountedOnceInOrder) {
  TraceDir tmp;
  Line no_procs_either = job("3", "0", "10", "-1");
  no_procs_either.allocated_procs = "-1";
  Line requested_zero = job("4", "0", "10", "0");  // field 8 is not -1: no fallback
  requested_zero.allocated_procs = "4";
  const std::string content = "; MaxProcs: 64\n" + job("1", "0", "-1", "0").text() +  // runtime and processors
                              job("2", "0", "-5", "100").text() +                     // runtime and MaxProcs
                              no_procs_either.text() +                                //
                              requested_zero.text() +                                 //
                              job("5", "0", "10", "65").text() +                      // over MaxProcs
                              job("6", "0", "10", "64").text() +                      // at MaxProcs: kept
                              job("7", "0", "0", "1").text();                         // runtime 0: kept
  const SwfTrace trace = read_swf(tmp.write("skips.swf", content));
  ASSERT_EQ(trace.jobs.size(), 2u);
  EXPECT_EQ(trace.jobs[0].record.job, 6);
  EXPECT_EQ(trace.jobs[1].record.job, 7);
  EXPECT_EQ(skips(trace, SwfSkip::NegativeRuntime), 2u);
  EXPECT_EQ(skips(trace, SwfSkip::NoProcessors), 2u);
  EXPECT_EQ(skips(trace, SwfSkip::MoreThanMaxProcs), 1u);
  EXPECT_EQ(skips(trace, SwfSkip::Malformed), 0u);
}

TEST(SwfJobs, MaxProcsAppliesWhereverTheHeaderLineIs) {
  TraceDir tmp;
  const SwfTrace trace = read_swf(
      tmp.write("late.swf", job("1", "0", "10", "8").text() + job("2", "5", "10", "2").text() + "; MaxProcs: 4\n"));
  ASSERT_EQ(trace.jobs.size(), 1u);
  EXPECT_EQ(trace.jobs[0].record.job, 2);
  EXPECT_EQ(skips(trace, SwfSkip::MoreThanMaxProcs), 1u);
  EXPECT_EQ(trace.first_submit, 5);  // the first *kept* job
  EXPECT_EQ(trace.jobs[0].submit, 0);
}

TEST(SwfJobs, WithoutMaxProcsNothingIsTooLarge) {
  TraceDir tmp;
  const SwfTrace trace = read_swf(tmp.write("nomax.swf", job("1", "0", "10", "5000").text()));
  ASSERT_EQ(trace.jobs.size(), 1u);
  EXPECT_EQ(skips(trace, SwfSkip::MoreThanMaxProcs), 0u);
}

TEST(SwfJobs, SubmitRelativeToTheFirstKeptJob) {
  TraceDir tmp;
  const SwfTrace trace =
      read_swf(tmp.write("submit.swf", job("1", "1000", "-1", "1").text() +  // skipped: not the reference
                                           job("2", "1500", "10", "1").text() + job("3", "1600", "10", "1").text() +
                                           job("4", "1650.5", "10", "1").text()));
  ASSERT_EQ(trace.jobs.size(), 3u);
  EXPECT_EQ(trace.first_submit, 1500);
  EXPECT_EQ(trace.jobs[0].submit, 0);
  EXPECT_EQ(trace.jobs[1].submit, 100);
  EXPECT_EQ(trace.jobs[2].submit, 150.5);  // out of submit order: swf_order_test.cpp
  EXPECT_EQ(trace.jobs[2].record.submit, 1650.5);
}

TEST(SwfJobs, EmptyFileAndCommentsOnly) {
  TraceDir tmp;
  for (const std::string& content : {std::string(), std::string("; MaxProcs: 4\n\n;\n")}) {
    const SwfTrace trace = read_swf(tmp.write("empty.swf", content));
    EXPECT_TRUE(trace.jobs.empty());
    EXPECT_TRUE(trace.skipped.empty());
    EXPECT_EQ(trace.first_submit, 0);
  }
}

TEST(SwfJobs, LineEndingsAndLongLines) {
  TraceDir tmp;
  // CRLF, a line far longer than any read buffer, and no newline at the very end.
  std::string wide = "9";
  for (int field = 1; field < 18; ++field) wide += std::string(10000, ' ') + "2";
  const std::string content = "; MaxNodes: 8\r\n" + job("1", "0", "10", "1").text() + "\r\n" + wide + "\n" +
                              "3 7 -1 10 -1 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1";
  const SwfTrace trace = read_swf(tmp.write("endings.swf", content));
  EXPECT_EQ(trace.max_nodes, 8);
  EXPECT_EQ(trace.header.at("MaxNodes"), "8");
  ASSERT_EQ(trace.jobs.size(), 3u);
  EXPECT_EQ(trace.jobs[1].record.job, 9);
  EXPECT_EQ(trace.jobs[1].procs, 2u);
  EXPECT_EQ(trace.jobs[1].record.line, 4u);
  EXPECT_EQ(trace.jobs[2].record.job, 3);
  EXPECT_EQ(trace.jobs[2].record.line, 5u);
  EXPECT_EQ(trace.jobs[2].procs, 4u);
}

// ---------------------------------------------------------------------------------------------
// gzip

TEST(SwfGzip, SameResultAsPlainDetectedByContent) {
  TraceDir tmp;
  Line a = job("1", "100", "10", "2");
  a.requested_time = "60";
  const std::string content = "; MaxNodes: 10\n; MaxProcs: 20\n; UnixStartTime: 5\n\n" + a.text() +
                              job("2", "150", "-1", "2").text() + job("3", "170", "30", "40").text() +
                              job("4", "180", "5", "3").text();
  const std::vector<std::string> paths = {
      tmp.write("plain.swf", content),
      tmp.write_gz("packed.swf.gz", content),
      tmp.write_gz("packed_without_suffix.swf", content),  // the name says nothing
      tmp.write("plain_named.swf.gz", content),
  };
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const SwfTrace trace = read_swf(path);
    EXPECT_EQ(trace.max_nodes, 10);
    EXPECT_EQ(trace.max_procs, 20);
    EXPECT_EQ(trace.unix_start_time, 5);
    EXPECT_EQ(trace.header.size(), 3u);
    ASSERT_EQ(trace.jobs.size(), 2u);
    EXPECT_EQ(trace.jobs[0].record.job, 1);
    EXPECT_EQ(trace.jobs[0].record.line, 5u);
    EXPECT_EQ(trace.jobs[0].estimate, 60);
    EXPECT_EQ(trace.jobs[1].record.job, 4);
    EXPECT_EQ(trace.jobs[1].record.line, 8u);
    EXPECT_EQ(trace.jobs[1].submit, 80);
    EXPECT_EQ(skips(trace, SwfSkip::NegativeRuntime), 1u);
    EXPECT_EQ(skips(trace, SwfSkip::MoreThanMaxProcs), 1u);
  }
}

TEST(SwfGzip, ErrorsNameTheLineOfTheUncompressedText) {
  TraceDir tmp;
  const std::string path = tmp.write_gz("bad.swf.gz", "; c\n" + job("1", "0", "10", "1").text() + "1 2 3\n");
  const InputError e = expect_input_error([&] { read_swf(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.field(), "fields");
}

TEST(SwfGzip, TruncatedArchiveIsAnError) {
  TraceDir tmp;
  std::string content;
  std::mt19937 random(7);
  for (int i = 1; i <= 20000; ++i) {
    content +=
        job(std::to_string(i), std::to_string(i), std::to_string(random() % 100000), std::to_string(1 + random() % 64))
            .text();
  }
  const std::string path = tmp.write_gz("cut.swf.gz", content);
  fs::resize_file(path, fs::file_size(path) / 2);
  const InputError e = expect_input_error([&] { read_swf(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_TRUE(Contains(e.what(), "cannot read")) << e.what();
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(SwfErrors, WrongFieldCountNamesFileLineAndCount) {
  TraceDir tmp;
  const std::string good = job("1", "0", "10", "1").text();
  const std::string short_line = "1 0 -1 10 -1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1\n";
  const std::string long_line = "1 0 -1 10 -1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 99\n";
  {
    const std::string path = tmp.write("short.swf", "; header\n\n" + good + short_line + good);
    const InputError e = expect_input_error([&] { read_swf(path); });
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 4u);
    EXPECT_EQ(e.field(), "fields");
    EXPECT_TRUE(Contains(e.detail(), "found 17")) << e.detail();
    EXPECT_TRUE(Contains(e.what(), path + ":4")) << e.what();
  }
  {
    const std::string path = tmp.write("long.swf", long_line);
    const InputError e = expect_input_error([&] { read_swf(path); });
    EXPECT_EQ(e.line(), 1u);
    EXPECT_EQ(e.field(), "fields");
    EXPECT_TRUE(Contains(e.detail(), "found 19")) << e.detail();
  }
}

TEST(SwfErrors, NonNumericFieldNamedBySwfName) {
  TraceDir tmp;
  struct Case {
    int field;  // 1-based
    std::string text;
    std::string name;
    std::string why;
  };
  const std::vector<Case> cases = {
      {9, "abc", "requested_time (field 9)", "not a number"},
      {1, "12abc", "job (field 1)", "not a number"},
      {2, "nan", "submit (field 2)", "not a finite number"},
      {4, "inf", "run (field 4)", "not a finite number"},
      {4, "-infinity", "run (field 4)", "not a finite number"},
      {5, "2.5", "allocated_procs (field 5)", "not a whole number"},
      {8, "0x10", "requested_procs (field 8)", "not a number"},
      {10, "1.2.3", "requested_memory (field 10)", "not a number"},
      {11, "1e999", "status (field 11)", "out of range"},
      {18, "1e999", "think_time (field 18)", "out of range"},
      {17, "-", "preceding_job (field 17)", "not a number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<std::string> fields = {"1",  "0", "-1", "10", "-1", "-1", "-1", "1",  "-1",
                                       "-1", "1", "-1", "-1", "-1", "-1", "-1", "-1", "-1"};
    fields[static_cast<std::size_t>(c.field - 1)] = c.text;
    std::string line;
    for (const std::string& f : fields) line += f + " ";
    const std::string path = tmp.write("field.swf", "; MaxProcs: 4\n" + line + "\n");
    const InputError e = expect_input_error([&] { read_swf(path); });
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.field(), c.name);
    EXPECT_TRUE(Contains(e.detail(), "'" + c.text + "'")) << e.detail();
    EXPECT_TRUE(Contains(e.detail(), c.why)) << e.detail();
  }
}

TEST(SwfErrors, LenientCountsMalformedLinesAndKeepsTheRest) {
  TraceDir tmp;
  Line non_numeric = job("3", "0", "10", "1");
  non_numeric.requested_time = "soon";
  const std::string content = job("1", "10", "10", "1").text() + "1 2 3\n" + non_numeric.text() +
                              job("4", "20", "10", "1").text() + job("5", "30", "-1", "1").text();
  const std::string path = tmp.write("lenient.swf", content);
  EXPECT_EQ(expect_input_error([&] { read_swf(path); }).line(), 2u);

  const SwfTrace trace = read_swf(path, SwfOptions{.lenient = true});
  ASSERT_EQ(trace.jobs.size(), 2u);
  EXPECT_EQ(trace.jobs[0].record.job, 1);
  EXPECT_EQ(trace.jobs[1].record.job, 4);
  EXPECT_EQ(trace.jobs[1].submit, 10);
  EXPECT_EQ(skips(trace, SwfSkip::Malformed), 2u);
  EXPECT_EQ(skips(trace, SwfSkip::NegativeRuntime), 1u);
}

TEST(SwfErrors, MissingFile) {
  TraceDir tmp;
  const std::string path = tmp.dir() + "/no_such.swf";
  for (const bool lenient : {false, true}) {
    const InputError e = expect_input_error([&] { read_swf(path, SwfOptions{.lenient = lenient}); });
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 0u);
    EXPECT_TRUE(Contains(e.detail(), "No such file")) << e.detail();
  }
}

TEST(SwfErrors, DirectoryIsUnreadable) {
  TraceDir tmp;
  const InputError e = expect_input_error([&] { read_swf(tmp.dir()); });
  EXPECT_EQ(e.file(), tmp.dir());
  EXPECT_EQ(e.line(), 0u);
}

TEST(SwfErrors, BinaryDataRefused) {
  TraceDir tmp;
  constexpr char kBytes[] = "; ok\nBZh91AY&SY\0\x01\x02 junk\nmore\n";  // a NUL on line 2
  const std::string path = tmp.write("binary.swf", std::string(kBytes, sizeof kBytes - 1));
  const InputError e = expect_input_error([&] { read_swf(path, SwfOptions{.lenient = true}); });
  EXPECT_EQ(e.line(), 2u);
  EXPECT_TRUE(Contains(e.detail(), "binary")) << e.detail();
}

TEST(SwfSkipName, EveryReason) {
  EXPECT_EQ(swf_skip_name(SwfSkip::NegativeRuntime), "runtime < 0");
  EXPECT_EQ(swf_skip_name(SwfSkip::NoProcessors), "processors <= 0");
  EXPECT_EQ(swf_skip_name(SwfSkip::MoreThanMaxProcs), "processors > MaxProcs");
  EXPECT_EQ(swf_skip_name(SwfSkip::Malformed), "malformed line");
}

// ---------------------------------------------------------------------------------------------
// The real archive trace

// Job lines counted independently of read_swf: not blank, not starting with ';'.
std::size_t count_job_lines(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr) return 0;
  std::size_t count = 0;
  bool line_start = true;
  bool counted = false;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) {
    for (int i = 0; i < n; ++i) {
      const char c = buffer[i];
      if (c == '\n') {
        line_start = true;
        counted = false;
      } else if (line_start && !counted && c != ' ' && c != '\t' && c != '\r') {
        if (c != ';') ++count;
        counted = true;
        line_start = false;
      }
    }
  }
  gzclose(in);
  return count;
}

TEST(SwfArchive, KthSp2) {
  const std::string path = shared_trace();
  if (!fs::exists(path)) GTEST_SKIP() << "../shared/data not found: skipping test that needs the shared data set";

  const auto start = std::chrono::steady_clock::now();
  const SwfTrace trace = read_swf(path);
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;

  EXPECT_EQ(trace.max_nodes, 100);
  EXPECT_EQ(trace.max_procs, 100);
  EXPECT_EQ(trace.unix_start_time, 843480031);
  EXPECT_EQ(trace.header.at("Computer"), "IBM SP2");
  EXPECT_EQ(trace.jobs.size(), 27992u);

  std::size_t skipped = 0;
  std::cout << "[ KTH-SP2  ] " << trace.jobs.size() << " jobs kept in " << took.count() << " ms\n";
  for (const SwfSkip reason :
       {SwfSkip::NegativeRuntime, SwfSkip::NoProcessors, SwfSkip::MoreThanMaxProcs, SwfSkip::Malformed}) {
    std::cout << "[ KTH-SP2  ] skipped, " << swf_skip_name(reason) << ": " << skips(trace, reason) << "\n";
    skipped += skips(trace, reason);
  }
  EXPECT_EQ(skipped + trace.jobs.size(), count_job_lines(path));

  ASSERT_FALSE(trace.jobs.empty());
  EXPECT_EQ(trace.jobs.front().submit, 0);
  EXPECT_EQ(trace.first_submit, trace.jobs.front().record.submit);
  for (const SwfJob& j : trace.jobs) {
    EXPECT_GT(j.procs, 0u);
    EXPECT_LE(j.procs, 100u);
    EXPECT_GE(j.runtime, 0);
    EXPECT_GE(j.estimate, j.runtime);
    EXPECT_GE(j.submit, 0);
  }
}

}  // namespace
}  // namespace pmixflow
