// `pmixflow diff RUN_A RUN_B`: two runs compared (exit 0 equal, 1 different, 2 bad input).
#include <iostream>

#include "commands.hpp"
#include "pmixflow/results/diff.hpp"

namespace pmixflow::cli {
namespace {

class DiffCommand final : public Command {
 public:
  explicit DiffCommand(CLI::App& diff) {
    diff.add_option("RUN_A", run_a_, "The first run: a directory written by `pmixflow sim --out`, or an events.jsonl.")
        ->required();
    diff.add_option("RUN_B", run_b_, "The second run, compared with the first (deltas are B - A).")->required();
    diff.add_flag("--json", json_, "Print the report as JSON instead of text.");
    diff.add_flag("--partial", partial_,
                  "Compare an event log that has no closing line (a run stopped, or still going) as far as it goes, "
                  "instead of refusing it.");
    diff.add_option_function<std::string>(
            "--tolerance",
            [this](const std::string& text) {
              const auto seconds = parse_duration(text);
              if (!seconds)
                throw CLI::ValidationError("--tolerance", "'" + text +
                                                              "' is not a duration: a number of 0 or more and a unit "
                                                              "(ns, us, ms, s, min, h), such as 1ms, 500us, 2s, or 0");
              tolerance_ = *seconds;
            },
            "Times (event times, job starts and ends, summary times) at most this far apart count as equal: 1ms, "
            "500us, 2s; 0: exact. Default 1ms, below the flow's own message latencies.")
        ->type_name("DURATION");
  }
  int run() override {
    return guarded("diff", [&] {
      const DiffReport report = diff_runs(run_a_, run_b_, DiffOptions{partial_, tolerance_});
      std::cout << (json_ ? render_diff_json(report) : render_diff_text(report));
      return report.equal() ? 0 : 1;
    });
  }

 private:
  std::string run_a_, run_b_;
  bool json_ = false;
  bool partial_ = false;
  double tolerance_ = kDefaultDiffTolerance;
};

}  // namespace

std::unique_ptr<Command> add_diff(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("diff",
                           "Compare two runs (output directories or event logs): the inputs they differ in, the first "
                           "diverging event, each job's start delta, the summary metrics' deltas, times within "
                           "--tolerance counting as equal. Exit status 0 when equal, 1 when not, 2 on bad input.");
  return std::make_unique<DiffCommand>(*sub);
}

}  // namespace pmixflow::cli
