// The command line as its own: every refusal begins "pmixflow SUB:", an option that does not
// apply says why in one wording, a near-miss value is suggested, and `pmixflow` alone is a
// usage error with a short usage rather than the whole help.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "commands.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test::command_line_cli_tests {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Refused with exit 2, the message starting with `prefix` and saying `says`.
void expect_refusal(const std::vector<std::string>& args, const std::string& prefix, const std::string& says) {
  std::string line;
  for (const auto& a : args) line += a + " ";
  SCOPED_TRACE(line);
  const RunResult r = run_pmixflow(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, says)) << r.err;
  EXPECT_FALSE(contains(r.err, "error:")) << r.err;   // "pmixflow sim: ...", never "pmixflow: error: ..."
  EXPECT_FALSE(contains(r.err, "field '")) << r.err;  // an option is named as one, not as a file's field
}

TEST(CommandLine, AloneItPrintsAShortUsageAndIsAUsageError) {
  const RunResult r = run_pmixflow({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("usage: pmixflow COMMAND", 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, "sim, ")) << r.err;
  EXPECT_TRUE(contains(r.err, "pmixflow --help")) << r.err;
  const auto lines = std::count(r.err.begin(), r.err.end(), '\n');
  EXPECT_GE(lines, 3);
  EXPECT_LE(lines, 8);
}

TEST(CommandLine, HelpAsACommandIsTheHelpOption) {
  const RunResult help = run_pmixflow({"help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out, run_pmixflow({"--help"}).out);
  const RunResult sim = run_pmixflow({"help", "sim"});
  EXPECT_EQ(sim.exit_code, 0);
  EXPECT_TRUE(contains(sim.out, "--scenario")) << sim.out;
  EXPECT_EQ(sim.out, run_pmixflow({"sim", "--help"}).out);
  expect_refusal({"help", "simm"}, "pmixflow: ", "unexpected argument simm (did you mean sim?)");
}

// One row per kind of refusal: an option that needs another, one that excludes another, one
// that does not apply with a value of another, in sim and in sweep.
TEST(CommandLine, AnOptionThatDoesNotApplyIsRefusedWithItsReason) {
  const std::string demo = source_path("traces/demo.jsonl");
  const std::string swf = source_path("traces/golden.swf");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"sim", "--scenario", demo, "--lenient"}, "--lenient applies only with --trace: a scenario's lines"},
      {{"sim", "--compare-recorded"}, "--compare-recorded applies only with --trace: "},
      {{"sim", "--via-daemon", "0.5"}, "--via-daemon applies only with --trace: "},
      {{"sim", "--node-mtbf", "3600"}, "--node-mtbf applies only with --trace: "},
      {{"sim", "--trace", swf, "--node-mttr", "60"}, "--node-mttr applies only with --node-mtbf: "},
      {{"sim", "--scenario", demo, "--preemptible", "all"}, "--preemptible applies only with --trace: "},
      {{"sim", "--gzip-events"}, "--gzip-events applies only with --out: "},
      {{"sim", "--out", "x", "--events-to", "y", "--gzip-events"}, "--gzip-events does not apply with --events-to: "},
      {{"sim", "--events", "none", "--events-to", "log"}, "--events-to does not apply with --events none"},
      {{"sim", "--no-events", "--events-to", "log"}, "--events-to does not apply with --events none or --no-events"},
      {{"sim", "--no-events", "--events", "all"}, "--no-events does not apply with --events: "},
      {{"sim", "--platform", demo, "--network", "star"}, "--network does not apply with --platform: "},
      {{"sim", "--scenario", demo, "--trace", swf}, "--trace does not apply with --scenario: "},
  };
  for (const Case& c : cases) expect_refusal(c.args, "pmixflow sim: ", c.says);
  // The help says so before anyone is refused.
  const std::string help = run_pmixflow({"sim", "--help"}).out;
  EXPECT_TRUE(contains(help, "instead of stopping at the first. Only with --trace.")) << help;
  EXPECT_TRUE(contains(help, "Not with --platform.")) << help;
  expect_refusal({"sweep", "spec.txt", "--poll", "3"}, "pmixflow sweep: ", "--poll applies only with --slurm: ");
  expect_refusal({"sweep", "spec.txt", "--slurm", "--jobs", "2"},
                 "pmixflow sweep: ", "--jobs does not apply with --slurm: ");
  expect_refusal({"sweep", "spec.txt", "--task", "0", "--only", "r1"},
                 "pmixflow sweep: ", "--only does not apply with --task: ");
  expect_refusal({"sweep", "spec.txt", "--", "--partition=debug"},
                 "pmixflow sweep: ", "SBATCH_OPTIONS applies only with --slurm: ");
}

TEST(CommandLine, ANearMissValueIsSuggested) {
  expect_refusal({"sim", "--policy", "eazy"},
                 "pmixflow sim: --policy: ", "unknown policy 'eazy' (did you mean easy? built in: fcfs, easy");
  expect_refusal({"sim", "--events", "stat"}, "pmixflow sim: --events: ", "(did you mean state?)");
  expect_refusal({"sim", "--slots", "core"},
                 "pmixflow sim: --slots: ", "'core' is not a slot (did you mean cores?): cores or pus");
  expect_refusal({"sim", "--network", "fat-tre"}, "pmixflow sim: --network: ", "(did you mean fat-tree?)");
  expect_refusal({"sim", "--seeed", "1"}, "pmixflow sim: ", "unknown option --seeed (did you mean --seed?)");
  // The hand tools' directives, where pmixflow is built with the emulator.
  if (run_pmixflow({"request", "--help"}).exit_code == 0) {
    expect_refusal({"request", "--emulation", "/tmp", "EXTNED"},
                   "pmixflow request: ", "unknown directive 'EXTNED' (did you mean EXTEND?)");
    expect_refusal({"request", "--emulation", "/tmp", "PMIX_ALLOC_RELAESE"},
                   "pmixflow request: ", "(did you mean PMIX_ALLOC_RELEASE?)");
  }
  // Far from every known name: no guess.
  const RunResult r = run_pmixflow({"sim", "--policy", "random"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(contains(r.err, "did you mean")) << r.err;
}

// Ranges are plain numbers: a bound at a type's end is no bound and is not printed as one.
TEST(CommandLine, ARefusedNumberSaysItsRangeInPlainNumbers) {
  expect_refusal({"sim", "--nodes", "0"}, "pmixflow sim: --nodes: ", "'0' is out of range (1 to 4294967295)");
  expect_refusal({"sim", "--jitter", "-1"}, "pmixflow sim: --jitter: ", "'-1' is out of range (0 to 1000)");
  expect_refusal({"sim", "--batch-delay", "x"}, "pmixflow sim: --batch-delay: ", "'x' is not a number");
  expect_refusal({"sim", "--seed", "-1"}, "pmixflow sim: --seed: ", "'-1' is out of range (0 to 18446744073709551615)");
  expect_refusal({"sim", "--trace", source_path("traces/golden.swf"), "--node-mtbf", "0"},
                 "pmixflow sim: --node-mtbf: ", "'0' is out of range (more than 0 and at most 4294967295)");
  expect_refusal({"sweep", "spec.txt", "--jobs", "0"}, "pmixflow sweep: --jobs: ", "'0' is out of range (1 to 4096)");
  expect_refusal({"sweep", "spec.txt", "--slurm", "--poll", "0"},
                 "pmixflow sweep: --poll: ", "'0' is out of range (more than 0 and at most 3600)");
  for (const char* value : {"0", "-1", "1e999", "1e-300"}) {
    const RunResult r = run_pmixflow({"sim", "--batch-delay", value});
    EXPECT_FALSE(contains(r.err, "e+308")) << r.err;
    EXPECT_FALSE(contains(r.err, "0.000000")) << r.err;
  }
}

// What guarded() prints for an InputError thrown as `pmixflow sim` finishes its options.
std::string refusal_of(const InputError& e) {
  std::ostringstream err;
  auto* const saved = std::cerr.rdbuf(err.rdbuf());
  const int status = cli::guarded("sim", [&]() -> int { throw e; });
  std::cerr.rdbuf(saved);
  EXPECT_EQ(status, 2);
  return err.str();
}

TEST(CommandLine, AnOptionsValueIsRefusedAsAnOptionAndAFilesLineAsALine) {
  EXPECT_EQ(refusal_of(InputError("--policy", 0, "policy", "unknown policy 'x'")),
            "pmixflow sim: --policy: unknown policy 'x'\n");
  EXPECT_EQ(refusal_of(InputError("", 0, "--only", "'r9' is not a run")), "pmixflow sim: --only: 'r9' is not a run\n");
  EXPECT_EQ(refusal_of(InputError("/lib/p.so", 0, "--policy", "policy library not found")),
            "pmixflow sim: --policy: /lib/p.so: policy library not found\n");
  EXPECT_EQ(refusal_of(InputError("--network", 0, "fat-tree down", "got '4,x'")),
            "pmixflow sim: --network: fat-tree down: got '4,x'\n");
  EXPECT_EQ(refusal_of(InputError("s.jsonl", 3, "at", "bad")), "pmixflow sim: s.jsonl:3: field 'at': bad\n");
}

}  // namespace pmixflow::test::command_line_cli_tests
