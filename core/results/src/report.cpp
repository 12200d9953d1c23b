#include "pmixflow/results/report.hpp"

#include <filesystem>

#include "pmixflow/log/reader.hpp"
#include "pmixflow/log/run_files.hpp"
#include "pmixflow/results/output_file.hpp"
#include "pmixflow/results/run_outcomes.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/json_input.hpp"
#include "report_parts.hpp"

namespace pmixflow {

log::KindSet ReportBuilder::kinds() const {
  if (with_assertions_ || (run_ && !run_->assertions.empty())) return log::all_kinds_set();
  return CallLedger::kinds() | AllocationLedger::kinds() | FailureLedger::kinds() | UnnamedStatuses::kinds() |
         log::kind_set({log::EventKind::LogEnd});
}

void ReportBuilder::begin(const log::LogHeader& header) {
  run_ = RunInfo::from_header(header, origin_);
  // A replay's outputs give no call's info nor any allocation's node list: its summary keeps
  // the aggregates, and jobs.csv the resources.
  calls_.keep_detail(run_->trace.empty());
  scheduler_.keep_detail(run_->trace.empty());
  if (!run_->assertions.empty()) assertions_.emplace(run_->assertions, run_->compute_nodes);
}

void ReportBuilder::event(const log::EventView& e) {
  calls_.apply(e);
  scheduler_.apply(e);
  failures_.apply(e);
  unnamed_.apply(e);
  if (assertions_) assertions_->apply(e);
}

void ReportBuilder::end(const log::EventView& closing) {
  Closing c;
  c.t = closing.t;
  c.how = std::string(closing.str(log::Field::end).value_or(""));
  c.events = closing.uint(log::Field::events).value_or(0);
  c.stats = nlohmann::json::parse(closing.json(log::Field::stats).value_or("{}"), nullptr, false);
  if (!c.stats.is_object()) c.stats = nlohmann::json::object();
  closing_ = std::move(c);
}

Report ReportBuilder::report() const {
  if (!run_) throw std::logic_error("ReportBuilder::report() before the log's header");
  const RunInfo& run = *run_;
  JobOutcomes outcomes = job_outcomes(run, calls_, scheduler_);
  const Metrics metrics = compute_metrics(outcomes, run.total_slots());
  std::optional<RecordedComparison> recorded;
  if (run.compare_recorded) recorded = compare_with_recording(outcomes, recorded_waits(run, calls_));
  report_detail::Expectations expectations = report_detail::check_expectations(calls_);
  const CallAccount account = account_calls(run, calls_);
  report_detail::check_account(account, expectations);
  if (assertions_) {
    AssertionChecker finished = *assertions_;  // report() may be asked again as the log goes on
    finished.finish();
    expectations.checked += finished.checked();
    for (const auto& f : finished.failures()) expectations.failures.push_back(f);
  }
  std::optional<report_detail::RunEnd> end;
  if (closing_) end = report_detail::RunEnd{closing_->how, closing_->events, closing_->stats};
  const report_detail::Pieces pieces{run,     calls_,       scheduler_, end,      metrics, failures_.figures(),
                                     expectations, account, recorded, unnamed_};
  Report r;
  // The inputs' file names need not be UTF-8 (Linux does not ask it): written as dump_utf8
  // writes them, never thrown on.
  r.summary_json = dump_utf8(report_detail::summary(pieces), 2) + "\n";
  if (run.compare_recorded) r.recorded_csv = recorded ? recorded->csv : "job_id,simulated_wait,recorded_wait\n";
  r.text = report_detail::summary_text(pieces);
  r.failures_text = report_detail::failures_text(expectations, run.scenario);
  r.jobs = std::move(outcomes);
  r.workload = run.workload();
  r.expectations_held = expectations.failures.empty();
  r.whole = closing_.has_value();
  return r;
}

nlohmann::json ReportBuilder::call_account() const {
  if (!run_) throw std::logic_error("ReportBuilder::call_account() before the log's header");
  return to_json(account_calls(*run_, calls_));
}

Report report_from_log(const std::string& path, const ReportOptions& options) {
  const std::string file = log::run_log_path(path);
  ReportBuilder builder(file);
  log::LogReader reader(file);
  builder.begin(reader.header());
  reader.only(builder.kinds());
  while (const log::EventView* e = reader.next()) {
    if (e->kind == log::EventKind::LogEnd)
      builder.end(*e);
    else
      builder.event(*e);
  }
  // A log that is not whole is refused: its outputs would look complete. Unless asked for.
  reader.check_whole(options.partial, "--partial reports on what is there");
  return builder.report();
}

std::string write_report(const Report& report, const std::string& dir) {
  OutputFile summary(dir + "/summary.json");
  summary.write(report.summary_json);
  OutputFile jobs(dir + "/jobs.csv");
  write_jobs_csv(report.jobs, report.workload, [&jobs](std::string_view block) { jobs.write(block); });
  std::optional<OutputFile> recorded;
  if (report.recorded_csv) {
    recorded.emplace(dir + "/recorded.csv");
    recorded->write(*report.recorded_csv);
  }
  jobs.commit();
  if (recorded) recorded->commit();
  summary.commit();
  return dir + "/jobs.csv, " + (recorded ? dir + "/recorded.csv, " : "") + dir + "/summary.json";
}

}  // namespace pmixflow
