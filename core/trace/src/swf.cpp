#include "pmixflow/trace/swf.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/input_file.hpp"
#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/trim.hpp"

namespace pmixflow {
namespace {

constexpr std::size_t kFields = 18;

// The name an error gives each field: the SwfRecord member and the 1-based field number.
constexpr std::array<std::string_view, kFields> kFieldName = {
    "job (field 1)",
    "submit (field 2)",
    "wait (field 3)",
    "run (field 4)",
    "allocated_procs (field 5)",
    "avg_cpu (field 6)",
    "used_memory (field 7)",
    "requested_procs (field 8)",
    "requested_time (field 9)",
    "requested_memory (field 10)",
    "status (field 11)",
    "user (field 12)",
    "group (field 13)",
    "executable (field 14)",
    "queue (field 15)",
    "partition (field 16)",
    "preceding_job (field 17)",
    "think_time (field 18)",
};

// gzgets() reads this much at most per call; longer lines are put together in a string.
constexpr int kChunk = 64 * 1024;
// zlib's own input and output buffers (its default is 8 KiB).
constexpr unsigned kZlibBuffer = 256 * 1024;

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// The line as an error quotes it (quote_value: at most 80 characters).
std::string quote(std::string_view line) { return quote_value(trim(line)); }

// The times a replay uses (submit, run, estimate) become simulated seconds and PMIx's uint32
// PMIX_ALLOC_TIME: within kMaxSeconds either way (SWF's -1 is "unknown"). The other fields
// are only carried: any finite number of their type.
constexpr double kLowest = -std::numeric_limits<double>::max();
constexpr double kHighest = std::numeric_limits<double>::max();

struct RealRange {
  double min, max;
};
constexpr RealRange kAnyReal{kLowest, kHighest};
constexpr RealRange kSeconds{-kMaxSeconds, kMaxSeconds};

// SWF writers may put a '+' before a number.
std::string_view drop_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  return text;
}

// A malformed job line: where it is and what is wrong with it.
struct Malformed {
  std::string field;
  std::string what;
};

// Parses one job line into `record`; returns false and fills `error` when it is malformed.
bool parse_job(std::string_view line, SwfRecord& record, Malformed& error) {
  std::array<std::string_view, kFields> token;
  std::size_t count = 0;
  const char* p = line.data();
  const char* const end = p + line.size();
  while (true) {
    while (p != end && is_space(*p)) ++p;
    if (p == end) break;
    const char* const start = p;
    while (p != end && !is_space(*p)) ++p;
    if (count < kFields) token[count] = std::string_view(start, static_cast<std::size_t>(p - start));
    ++count;
  }
  if (count != kFields) {
    error = {"fields", "expected " + std::to_string(kFields) + " whitespace-separated fields, found " +
                           std::to_string(count) + ": " + quote(line)};
    return false;
  }

  std::size_t index = 0;
  auto refused = [&](NumberFault fault, const std::string& range) {
    error = {std::string(kFieldName[index]), number_refusal(fault, token[index], range)};
    ++index;
    return false;
  };
  auto int_field = [&](std::int64_t& out) {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    const NumberFault fault = read_whole(drop_plus(token[index]), out, kMin, kMax);
    if (fault != NumberFault::None) return refused(fault, range_text(kMin, kMax));
    ++index;
    return true;
  };
  auto double_field = [&](double& out, RealRange range = kAnyReal) {
    const NumberFault fault = read_real(drop_plus(token[index]), out, range.min, range.max);
    if (fault != NumberFault::None) return refused(fault, range_text(range.min, range.max));
    ++index;
    return true;
  };
  return int_field(record.job) && double_field(record.submit, kSeconds) && double_field(record.wait) &&
         double_field(record.run, kSeconds) && int_field(record.allocated_procs) && double_field(record.avg_cpu) &&
         double_field(record.used_memory) && int_field(record.requested_procs) &&
         double_field(record.requested_time, kSeconds) && double_field(record.requested_memory) &&
         int_field(record.status) && int_field(record.user) && int_field(record.group) &&
         int_field(record.executable) && int_field(record.queue) && int_field(record.partition) &&
         int_field(record.preceding_job) && double_field(record.think_time);
}

// "; Key: value". The key is one word before the first colon; a colon that starts a URL
// ("http://...", as on the indented continuation lines of some headers) is not a label.
void parse_comment(std::string_view text, SwfTrace& trace, std::size_t line) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view key = trim(text.substr(0, colon));
  const std::string_view rest = text.substr(colon + 1);
  if (key.empty() || std::any_of(key.begin(), key.end(), is_space)) return;
  if (rest.starts_with("//")) return;
  const std::string_view value = trim(rest);

  auto [it, inserted] = trace.header.try_emplace(std::string(key), value);
  if (!inserted) {  // a repeated label ("Note") keeps every value, one a line
    it->second += '\n';
    it->second += value;
  }

  std::optional<std::int64_t>* slot = nullptr;
  bool positive = false;  // SWF writes -1 for "unknown"; a machine of <= 0 processors is that
  if (key == "MaxNodes") {
    slot = &trace.max_nodes;
    positive = true;
  } else if (key == "MaxProcs") {
    slot = &trace.max_procs;
    positive = true;
  } else if (key == "UnixStartTime") {
    slot = &trace.unix_start_time;
  }
  if (slot == nullptr || slot->has_value()) return;  // the first usable value wins
  std::int64_t number = 0;
  if (read_whole(drop_plus(value), number) != NumberFault::None) return;
  if (positive && number <= 0) return;
  // A machine's size becomes a node count and a slot count (uint32): refused, not wrapped.
  if (positive && number > std::int64_t{UINT32_MAX})
    throw InputError(trace.path, line, std::string(key),
                     number_refusal(NumberFault::OutOfRange, value, range_text<std::uint32_t>(1, UINT32_MAX)));
  *slot = number;
}

struct GzClose {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzClose>;

// zlib's message without the "path: " it starts with (InputError names the file already).
std::string gz_error_text(gzFile file, const std::string& path, int saved_errno) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(saved_errno != 0 ? saved_errno : errno);
  std::string_view message = text != nullptr ? text : "";
  if (const std::string prefix = path + ": "; message.starts_with(prefix)) message.remove_prefix(prefix.size());
  return message.empty() ? "read error" : std::string(message);
}

}  // namespace

std::string_view swf_repair_name(SwfRepair repair) {
  switch (repair) {
    case SwfRepair::OutOfOrder: return "out of submit order, sorted";
    case SwfRepair::DuplicateId: return "duplicate job number, renumbered";
  }
  return "unknown repair";
}

std::string_view swf_skip_name(SwfSkip reason) {
  switch (reason) {
    case SwfSkip::NegativeRuntime: return "runtime < 0";
    case SwfSkip::NoProcessors: return "processors <= 0";
    case SwfSkip::MoreThanMaxProcs: return "processors > MaxProcs";
    case SwfSkip::Malformed: return "malformed line";
  }
  return "unknown reason";
}

namespace {

// The lines of a plain or gzip-compressed file, whole whatever their length.
class SwfLines {
 public:
  explicit SwfLines(const std::string& path)
      : path_(path), file_(open(path)), chunk_(std::make_unique<char[]>(kChunk)) {
    gzbuffer(file_.get(), kZlibBuffer);
  }
  std::size_t number() const { return number_; }

  // The next line; nothing at the end of the file (or at a read error, which finish() reports).
  std::optional<std::string_view> next() {
    errno = 0;
    if (gzgets(file_.get(), chunk_.get(), kChunk) == nullptr) return std::nullopt;
    ++number_;
    std::size_t size = std::strlen(chunk_.get());
    std::string_view line(chunk_.get(), size);
    if (!line.ends_with('\n') && size == static_cast<std::size_t>(kChunk) - 1) {
      // Longer than a chunk: gather the rest of it.
      long_line_.assign(line);
      while (!long_line_.ends_with('\n') && gzgets(file_.get(), chunk_.get(), kChunk) != nullptr) {
        size = std::strlen(chunk_.get());
        long_line_.append(chunk_.get(), size);
        if (size != static_cast<std::size_t>(kChunk) - 1) break;
      }
      line = long_line_;
    }
    if (line.ends_with('\n')) return line;
    // The last line, or a read error (a truncated .gz gives back what it could decompress:
    // never parse that half line), or a NUL byte, for gzgets() stops only at a newline or at
    // the end of the data: then this is no text (an .xz, .bz2 or .zip file, say).
    int code = Z_OK;
    gzerror(file_.get(), &code);
    if (code != Z_OK) return std::nullopt;  // reported by finish()
    if (gzeof(file_.get()) == 0)
      throw InputError(path_, number_, "", "binary data (a NUL byte): not a plain or gzip-compressed SWF file");
    return line;
  }

  void finish() {
    int code = Z_OK;
    gzerror(file_.get(), &code);
    if (code == Z_OK) return;
    const int saved = errno;
    throw InputError(path_, number_, "", "cannot read SWF file: " + gz_error_text(file_.get(), path_, saved));
  }

 private:
  static GzFile open(const std::string& path) {
    errno = 0;
    GzFile file(gzopen(path.c_str(), "rb"));
    if (file) return file;
    const int saved = errno;
    throw InputError(path, 0, "",
                     std::string("cannot open SWF file: ") + (saved != 0 ? std::strerror(saved) : "out of memory"));
  }

  const std::string& path_;
  GzFile file_;
  std::unique_ptr<char[]> chunk_;
  std::string long_line_;  // only for lines longer than a chunk; its capacity is reused
  std::size_t number_ = 0;
};

// One line's contribution: a header comment, a job, or a job skipped with its reason.
void add_line(std::string_view text, std::size_t number, const std::string& path, const SwfOptions& options,
              SwfTrace& trace) {
  if (text.front() == ';') return parse_comment(text.substr(1), trace, number);
  SwfJob job;
  Malformed error;
  if (!parse_job(text, job.record, error)) {
    if (!options.lenient) throw InputError(path, number, std::move(error.field), error.what);
    ++trace.skipped[SwfSkip::Malformed];
    return;
  }
  job.record.line = number;
  const SwfRecord& r = job.record;
  if (r.run < 0) {
    ++trace.skipped[SwfSkip::NegativeRuntime];
    return;
  }
  const std::int64_t procs = r.requested_procs == -1 ? r.allocated_procs : r.requested_procs;
  if (procs <= 0) {
    ++trace.skipped[SwfSkip::NoProcessors];
    return;
  }
  job.procs = static_cast<std::uint64_t>(procs);
  job.runtime = r.run;
  job.estimate = r.requested_time;  // read by the EstimateRule once the jobs kept are known (apply_estimates)
  trace.jobs.push_back(job);
}

// A seconds value as a message writes it: "100", "2.5".
std::string seconds_text(double s) {
  std::string out;
  json_number_into(out, s);
  return out;
}

// Two lines with one job number would be one job in every output (its calls are named by
// it): an error, or with --lenient the later line renumbered past the file's largest number.
void check_job_ids(SwfTrace& trace, const SwfOptions& options) {
  std::unordered_map<std::int64_t, std::size_t> line_of;
  std::int64_t largest = 0;
  for (const SwfJob& job : trace.jobs) largest = std::max(largest, job.record.job);
  for (SwfJob& job : trace.jobs) {
    const auto [it, fresh] = line_of.emplace(job.record.job, job.record.line);
    if (fresh) continue;
    if (!options.lenient)
      throw InputError(trace.path, job.record.line, std::string(kFieldName[0]),
                       "job " + std::to_string(job.record.job) + " is already on line " + std::to_string(it->second) +
                           ": each job has its own number (--lenient renumbers it)");
    job.record.job = ++largest;
    ++trace.repaired[SwfRepair::DuplicateId];
  }
}

// A replay submits jobs in file order from the first one's time: a job listed after a later
// one would be submitted before time 0. An error, or with --lenient the jobs sorted by submit
// time (stably: jobs of one second keep their order).
void check_submit_order(SwfTrace& trace, const SwfOptions& options) {
  const SwfJob* latest = nullptr;
  std::size_t late = 0;
  for (const SwfJob& job : trace.jobs) {
    if (latest == nullptr || job.record.submit >= latest->record.submit) {
      latest = &job;
      continue;
    }
    if (!options.lenient)
      throw InputError(trace.path, job.record.line, std::string(kFieldName[1]),
                       "submitted at " + seconds_text(job.record.submit) + " s, before the job on line " +
                           std::to_string(latest->record.line) + " (" + seconds_text(latest->record.submit) +
                           " s): an SWF trace lists its jobs in submit order (--lenient sorts them)");
    ++late;
  }
  if (late == 0) return;
  std::ranges::stable_sort(trace.jobs, {}, [](const SwfJob& j) { return j.record.submit; });
  trace.repaired[SwfRepair::OutOfOrder] = late;
}

// A missing estimate (SWF's -1; 0 or less is no limit either) and one shorter than the run
// are counted, and raised to the run time or kept as the rule says.
void apply_estimates(SwfTrace& trace, EstimateRule rule) {
  for (SwfJob& job : trace.jobs) {
    const bool missing = job.estimate <= 0;
    const bool shorter = !missing && job.estimate < job.runtime;
    trace.estimates_missing += missing ? 1 : 0;
    trace.estimates_shorter += shorter ? 1 : 0;
    if (rule == EstimateRule::Raised && (missing || shorter))
      job.estimate = job.runtime;
    else if (missing)
      job.estimate = 0;
  }
}

}  // namespace

std::string_view estimate_rule_name(EstimateRule rule) {
  return rule == EstimateRule::Recorded ? "recorded" : "raised";
}

std::optional<EstimateRule> parse_estimate_rule(std::string_view text) {
  if (text == "raised") return EstimateRule::Raised;
  if (text == "recorded") return EstimateRule::Recorded;
  return std::nullopt;
}

SwfTrace read_swf(const std::string& path, SwfOptions options) {
  refuse_directory(path, "an SWF trace");
  SwfTrace trace;
  trace.path = path;
  SwfLines lines(path);
  while (const auto line = lines.next()) {
    const std::string_view text = trim(*line);
    if (!text.empty()) add_line(text, lines.number(), path, options, trace);
  }
  lines.finish();
  // MaxProcs may only be known once the whole header is read; it is checked last, as the
  // third reason, so a job counts once.
  if (trace.max_procs) {
    const auto max = static_cast<std::uint64_t>(*trace.max_procs);
    const auto removed = std::erase_if(trace.jobs, [max](const SwfJob& j) { return j.procs > max; });
    if (removed > 0) trace.skipped[SwfSkip::MoreThanMaxProcs] += removed;
  }
  check_job_ids(trace, options);
  check_submit_order(trace, options);
  apply_estimates(trace, options.estimates);
  if (!trace.jobs.empty()) {
    trace.first_submit = trace.jobs.front().record.submit;
    for (SwfJob& job : trace.jobs) job.submit = job.record.submit - trace.first_submit;
  }
  return trace;
}

}  // namespace pmixflow
