// Standard Workload Format (Parallel Workloads Archive), plain or gzip-compressed: the 18
// fields of every job line and the header comments, turned into the jobs a replay submits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow {

// One job line, every field as the archive defines it (-1: unknown). Fields may be written as
// integers or decimals ("-1.00"); the integer fields take a decimal only without a fraction.
struct SwfRecord {
  std::int64_t job = -1;              // 1  job number
  double submit = -1;                 // 2  submit time, seconds
  double wait = -1;                   // 3  wait time, seconds (what the machine really did)
  double run = -1;                    // 4  run time, seconds
  std::int64_t allocated_procs = -1;  // 5  number of allocated processors
  double avg_cpu = -1;                // 6  average CPU time used
  double used_memory = -1;            // 7  used memory (KB per processor)
  std::int64_t requested_procs = -1;  // 8  requested number of processors
  double requested_time = -1;         // 9  requested time (the user's estimate)
  double requested_memory = -1;       // 10 requested memory
  std::int64_t status = -1;           // 11 status (1 completed, 0 failed, 5 cancelled, ...)
  std::int64_t user = -1;             // 12 user id
  std::int64_t group = -1;            // 13 group id
  std::int64_t executable = -1;       // 14 executable (application) number
  std::int64_t queue = -1;            // 15 queue number
  std::int64_t partition = -1;        // 16 partition number
  std::int64_t preceding_job = -1;    // 17 preceding job number
  double think_time = -1;             // 18 think time from preceding job
  std::size_t line = 0;               // where it was read (1-based, counting every line)
};

// A job as a replay submits it.
struct SwfJob {
  SwfRecord record;
  double submit = 0;        // relative to the first kept job's submit time
  std::uint64_t procs = 0;  // field 8, or field 5 when 8 is -1
  double runtime = 0;       // field 4
  double estimate = 0;      // field 9 as the EstimateRule reads it; 0: none (no time limit)
};

// What a replay does with an estimate (field 9) that is missing (-1, or any value <= 0) or
// shorter than the job's run time (field 4): the user's choice (--estimates), said in every
// output.
enum class EstimateRule {
  Raised,    // raised to the run time: every job runs to its end, as it did before the option
  Recorded,  // as the trace has it: a job past its limit is ended there (PMIX_ERR_TIMEOUT); none, no limit
};
std::string_view estimate_rule_name(EstimateRule rule);  // "raised", "recorded"
std::optional<EstimateRule> parse_estimate_rule(std::string_view text);

enum class SwfSkip { NegativeRuntime, NoProcessors, MoreThanMaxProcs, Malformed };
std::string_view swf_skip_name(SwfSkip reason);  // "runtime < 0", ...

// What --lenient put right rather than refused: lines listed after a later submission (sorted
// into submit order) and job numbers already used (renumbered past the file's largest).
enum class SwfRepair { OutOfOrder, DuplicateId };
std::string_view swf_repair_name(SwfRepair repair);  // "out of submit order, sorted", ...

struct SwfTrace {
  std::string path;
  // "MaxNodes" -> "100", from "; MaxNodes: 100": the key is the one word before the first
  // colon, key and value trimmed. A comment with no colon, with more than one word before it,
  // or whose colon starts a URL (the indented "; http://..." continuation lines of some
  // headers) is not a label. A repeated label ("Note") keeps every value, joined by '\n'.
  std::map<std::string, std::string> header;
  // The first numeric value of the label; a non-numeric value is only in `header`, and so is a
  // MaxNodes or MaxProcs <= 0 (SWF's -1: unknown).
  std::optional<std::int64_t> max_nodes;
  std::optional<std::int64_t> max_procs;  // wherever it is in the file, it applies to every job
  std::optional<std::int64_t> unix_start_time;
  double first_submit = 0;   // absolute submit time of the first kept job
  std::vector<SwfJob> jobs;  // kept, in file order (in submit order: it is checked, or sorted)
  // Never silent: every dropped job line is counted once, under the first reason that applies
  // (malformed, then runtime, processors, MaxProcs); kept + skipped = the job lines of the file.
  std::map<SwfSkip, std::size_t> skipped;
  // Jobs kept but changed (--lenient only): counted once per job line.
  std::map<SwfRepair, std::size_t> repaired;
  // Kept jobs whose estimate is missing, or shorter than their run time: what the
  // EstimateRule decided for (each job counted once; a missing one is not also shorter).
  std::size_t estimates_missing = 0;
  std::size_t estimates_shorter = 0;
};

struct SwfOptions {
  // A malformed line is skipped and counted, a job out of submit order sorted into place and
  // a repeated job number renumbered (each counted), instead of an error.
  bool lenient = false;
  EstimateRule estimates = EstimateRule::Raised;
};

// Reads a .swf or .swf.gz file (gzip is detected from the content, not the name). Throws
// InputError naming the file, the line and the field on a malformed line (unless lenient):
// field "fields" for other than 18 fields, "requested_time (field 9)" and the like for a value
// that is not a number or out of its range, "submit (field 2)" for a job listed after a later
// submission, "job (field 1)" for a job number already used. Throws, lenient or not, on a
// missing or unreadable file or a directory (line 0), on a truncated or corrupt .gz and on
// binary data (a NUL byte), and on a MaxNodes or MaxProcs past 4294967295. Each job's estimate
// is read by options.estimates.
SwfTrace read_swf(const std::string& path, SwfOptions options = {});

}  // namespace pmixflow
