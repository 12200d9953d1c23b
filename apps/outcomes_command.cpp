// `pmixflow outcomes`: what a run did - each call's answer, each session's and each job's life,
// the expectations that did not hold - without times; with two runs, where they differ. The way
// to check that a scenario comes out the same in the simulator and the emulator.
#include <iostream>

#include "commands.hpp"
#include "pmixflow/results/flow_outcomes.hpp"

namespace pmixflow::cli {
namespace {

class OutcomesCommand final : public Command {
 public:
  explicit OutcomesCommand(CLI::App& outcomes) {
    outcomes.add_option("RUN", run_a_, "A run directory or its events.jsonl.")->required();
    outcomes.add_option("OTHER", run_b_, "A second run of the same scenario: print where the outcomes differ.");
  }
  int run() override {
    return guarded("outcomes", [&] {
      const FlowOutcomes a = flow_outcomes(run_a_);
      if (run_b_.empty()) {
        std::cout << to_text(a);
        return 0;
      }
      const auto differences = outcome_differences(a, flow_outcomes(run_b_));
      for (const auto& d : differences) std::cout << d << "\n";
      if (differences.empty()) std::cout << "same outcomes\n";
      return differences.empty() ? 0 : 1;
    });
  }

 private:
  std::string run_a_;
  std::string run_b_;
};

}  // namespace

std::unique_ptr<Command> add_outcomes(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("outcomes",
                           "What a run did, without times (answers, sessions, jobs, unmet expectations); with a "
                           "second run, where the two differ (exit 1). Compares a scenario's sim and emul runs.");
  return std::make_unique<OutcomesCommand>(*sub);
}

}  // namespace pmixflow::cli
