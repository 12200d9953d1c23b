// Where a run's events and results go: the event log (a file, standard output, or none), the
// report built from the same events as they happen, and at the end the outputs and the
// summary on the terminal. Every environment ends a run through this, so that its outputs
// are the log's and nothing else's.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pmixflow/log/sink.hpp"
#include "pmixflow/results/output_options.hpp"
#include "pmixflow/results/report.hpp"
#include "pmixflow/results/run_info.hpp"

namespace pmixflow {

class RunOutputs {
 public:
  // Creates the output directory and opens the log. Throws InputError when neither can be.
  RunOutputs(const OutputOptions& options, const RunInfo& run);
  ~RunOutputs();
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  // Every event of the run goes here.
  log::EventLog& log() { return log_; }

  // The run has ended at `end_time` with the environment's counters `stats` (an object): the
  // closing line, the report, the outputs, the summary on `out` (errors, and the summary when
  // the log goes to standard output, on `err`). Returns the run's exit status: 0 when every
  // expectation held, 1 otherwise. Throws std::runtime_error when the log could not be written.
  // `stalled`: the run stopped progressing with this outstanding; it failed (1), and its
  // closing line says so.
  int finish(double end_time, const nlohmann::json& stats, std::ostream& out, std::ostream& err,
             const std::string& stalled = {});

 private:
  OutputOptions options_;
  log::EventLog log_;
  std::unique_ptr<log::LineSink> file_;
  ReportBuilder report_;
};

}  // namespace pmixflow
