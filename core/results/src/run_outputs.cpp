#include "pmixflow/results/run_outputs.hpp"

#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/human_text.hpp"

namespace pmixflow {
namespace {

log::LogHeader header_of(const RunInfo& run, log::Level level) {
  log::LogHeader h;
  h.env = run.env;
  h.seed = run.seed;
  h.inputs = run.inputs();
  // A reader tells a log without hops from one whose messages were all lost (docs/events.md).
  if (level == log::Level::State) h.inputs["events"] = std::string(log::level_name(level));
  return h;
}

std::string log_path(const OutputOptions& o) {
  if (o.events == log::Level::None) return {};
  if (!o.events_to.empty()) return o.events_to;
  return o.dir.empty() ? std::string() : o.dir + (o.gzip_events ? "/events.jsonl.gz" : "/events.jsonl");
}

}  // namespace

RunOutputs::RunOutputs(const OutputOptions& options, const RunInfo& run)
    : options_(options), log_(header_of(run, options.events)), report_("the event log", !run.assertions.empty()) {
  if (!options_.dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.dir, ec);
    if (ec) throw InputError(options_.dir, 0, "--out", "cannot create the output directory: " + ec.message());
    // An earlier run's outputs go before this run starts: none of them can be taken for this
    // run's, whether it completes or not (README, "Outputs").
    for (const char* earlier : {"summary.json", "jobs.csv", "recorded.csv", "events.jsonl", "events.jsonl.gz"}) {
      const auto path = std::filesystem::path(options_.dir) / earlier;
      if (std::filesystem::remove(path, ec); ec)
        throw InputError(path.string(), 0, "--out", "cannot remove an earlier run's output: " + ec.message());
    }
  }
  if (const std::string path = log_path(options_); !path.empty()) {
    try {
      file_ = std::make_unique<log::LineSink>(path, log::kinds_at(options_.events));
    } catch (const std::runtime_error& e) {
      throw InputError(path, 0, "", e.what());
    }
    log_.attach(*file_);
  }
  log_.attach(report_);
  log_.begin();
}

RunOutputs::~RunOutputs() = default;

int RunOutputs::finish(double end_time, const nlohmann::json& stats, std::ostream& out, std::ostream& err,
                       const std::string& stalled) {
  nlohmann::json closing = stats;
  closing["call_account"] = report_.call_account();
  log_.finish(end_time, stalled.empty() ? std::string("quiescent") : "stalled: " + stalled, closing.dump());
  if (file_ && !file_->failure().empty()) throw std::runtime_error(file_->failure());
  const Report report = report_.report();
  std::string written;
  if (!options_.dir.empty()) written = write_report(report, options_.dir);
  if (!options_.quiet) {
    std::ostream& to = options_.events_to == "-" ? err : out;  // standard output carries the log
    to << report.text;
    if (file_ || !written.empty()) {
      to << "  outputs: ";
      if (file_)
        to << (file_->path() == "-" ? "the event log on standard output" : file_->path()) << " ("
           << counted(log_.events(), "event") << ")" << (written.empty() ? "" : ", ");
      to << written << "\n";
    }
    to << report.failures_text;
  }
  if (!stalled.empty()) {
    err << "pmixflow: the run stopped progressing at t=" << end_time << " s with work outstanding: " << stalled << "\n";
    return 1;
  }
  return report.expectations_held ? 0 : 1;
}

}  // namespace pmixflow
