// A run's outputs, computed from its event log and nothing else: jobs.csv, summary.json,
// recorded.csv and the summary people read. The same code serves a run in progress (the
// ReportBuilder is one of its log's sinks) and `pmixflow report`, which reads a log back:
// there is one path from events to results, whatever the environment.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/log/sink.hpp"
#include "pmixflow/results/assertion_check.hpp"
#include "pmixflow/results/failures.hpp"
#include "pmixflow/results/ledger.hpp"
#include "pmixflow/results/outcomes.hpp"
#include "pmixflow/results/run_info.hpp"
#include "pmixflow/results/unnamed_statuses.hpp"

namespace pmixflow {

struct Report {
  JobOutcomes jobs;      // jobs.csv's rows (write_report writes them a block at a time)
  std::string workload;  // jobs.csv's workload_name, the same on every row
  std::string summary_json;
  std::optional<std::string> recorded_csv;  // when the run compared with the recording
  // For people: the run, its calls or its metrics, and the expectations; then, apart, one
  // line per failed expectation (the caller prints what it wrote in between).
  std::string text;
  std::string failures_text;
  bool expectations_held = true;  // and every call was answered
  bool whole = true;              // built from a log with its closing line
};

// Takes the events the outputs are computed from, as they are written or read back.
class ReportBuilder final : public log::EventSink {
 public:
  // `origin` names the log in errors about its header. A run with assertions needs every kind
  // (a count may name any): say so before the builder is attached, as kinds() is read then;
  // once the header is in, kinds() says it from the header.
  explicit ReportBuilder(std::string origin = "the event log", bool with_assertions = false)
      : origin_(std::move(origin)), with_assertions_(with_assertions) {}

  log::KindSet kinds() const override;
  void begin(const log::LogHeader& header) override;
  void event(const log::EventView& e) override;
  void end(const log::EventView& closing) override;

  // Everything received so far; `whole` is false when no closing line came.
  Report report() const;
  // The account of the calls so far (call_account.hpp), for the closing line.
  nlohmann::json call_account() const;

 private:
  struct Closing {
    double t = 0;
    std::string how;
    std::uint64_t events = 0;
    nlohmann::json stats;
  };
  std::string origin_;
  bool with_assertions_ = false;
  std::optional<RunInfo> run_;
  std::optional<AssertionChecker> assertions_;
  CallLedger calls_;
  AllocationLedger scheduler_;
  FailureLedger failures_;
  UnnamedStatuses unnamed_;
  std::optional<Closing> closing_;
};

struct ReportOptions {
  bool partial = false;  // report on a log without its closing line, as far as it goes
};

// Reads the log at `path` (an events.jsonl, or a directory holding one). Throws InputError
// for a log that cannot be read, that breaks the catalogue, or that is cut (unless partial),
// naming the file and its last good line.
Report report_from_log(const std::string& path, const ReportOptions& options = {});

// Writes jobs.csv, summary.json and recorded.csv (when there is one) into `dir`, each only
// once complete. Returns their paths, for people.
std::string write_report(const Report& report, const std::string& dir);

}  // namespace pmixflow
