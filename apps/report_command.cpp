// `pmixflow report RUN`: a run's outputs rebuilt from its event log alone.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "pmixflow/results/report.hpp"

namespace pmixflow::cli {
namespace {

class ReportCommand final : public Command {
 public:
  explicit ReportCommand(CLI::App& report) {
    report.add_option("RUN", run_, "A run directory (its events.jsonl) or an event log.")->required();
    report.add_option("--out", out_,
                      "Write jobs.csv, summary.json (and recorded.csv) here (default: beside the event log).");
    report.add_flag("--partial", partial_,
                    "Report on a log without its closing line (a run stopped, or still going) as far as it goes; "
                    "summary.json then says \"partial\": true.");
    report.add_flag("--quiet", quiet_, "Print nothing but errors.");
  }
  int run() override {
    return guarded("report", [&] {
      const Report report = report_from_log(run_, ReportOptions{partial_});
      namespace fs = std::filesystem;
      std::error_code ec;
      const std::string dir = !out_.empty()                ? out_
                              : fs::is_directory(run_, ec) ? run_
                                                           : fs::path(run_).parent_path().string();
      fs::create_directories(dir.empty() ? "." : dir, ec);
      const std::string written = write_report(report, dir.empty() ? "." : dir);
      if (!quiet_) std::cout << report.text << "  outputs: " << written << "\n" << report.failures_text;
      return report.expectations_held ? 0 : 1;
    });
  }

 private:
  std::string run_, out_;
  bool partial_ = false;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> add_report(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("report",
                           "Rebuild a run's jobs.csv, summary.json and recorded.csv from its event log alone. Exit "
                           "status 0, or 1 when an expectation of the scenario failed, 2 on bad input or a cut log.");
  return std::make_unique<ReportCommand>(*sub);
}

}  // namespace pmixflow::cli
