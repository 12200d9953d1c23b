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
  }
  int run() override {
    return guarded("diff", [&] {
      const DiffReport report = diff_runs(run_a_, run_b_, DiffOptions{partial_});
      std::cout << (json_ ? render_diff_json(report) : render_diff_text(report));
      return report.equal() ? 0 : 1;
    });
  }

 private:
  std::string run_a_, run_b_;
  bool json_ = false;
  bool partial_ = false;
};

}  // namespace

std::unique_ptr<Command> add_diff(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("diff",
                           "Compare two runs (output directories or event logs): the first diverging event, each job's "
                           "start delta, the summary metrics' deltas. Exit status 0 when equal, 1 when not, 2 on bad "
                           "input.");
  return std::make_unique<DiffCommand>(*sub);
}

}  // namespace pmixflow::cli
