// `pmixflow compare RUN...`: one table of the metrics of any number of runs (text, CSV, JSON).
#include <iostream>
#include <map>
#include <stdexcept>

#include "commands.hpp"
#include "pmixflow/results/compare.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::cli {
namespace {

class CompareCommand final : public Command {
 public:
  explicit CompareCommand(CLI::App& compare) {
    compare
        .add_option("RUN", paths_,
                    "A run: a directory written by `pmixflow sim --out` (or `emul`), its summary.json, or a sweep's "
                    "directory (each of its runs).")
        ->required();
    compare.add_option("--format", format_, "text (aligned, in human units), csv or json (raw numbers, in seconds).")
        ->check(CLI::IsMember({"text", "csv", "json"}))
        ->default_str("text");
    compare.add_option("--sort", sort_,
                       "Order the rows by this column (its CSV name: mean_wait_s, p90_bounded_slowdown, policy, run; "
                       "numbers ascending). Default: the runs' order on the command line.");
  }

  int run() override {
    return guarded("compare", [&] {
      std::vector<ComparedRun> runs;
      for (const auto& path : paths_)
        for (auto& r : load_compared_runs(path)) runs.push_back(std::move(r));
      name_uniquely(runs);
      const CompareTable table = table_of(runs);
      std::cout << (format_ == "csv"    ? render_compare_csv(table)
                    : format_ == "json" ? render_compare_json(table)
                                        : render_compare_text(table));
      return 0;
    });
  }

 private:
  CompareTable table_of(const std::vector<ComparedRun>& runs) const {
    try {
      return compare_runs(runs, sort_);
    } catch (const std::invalid_argument& e) {  // --sort naming no column: the user's, not a bug
      throw InputError("--sort", 0, "", e.what());
    }
  }

  // Two runs of one name (a/run and b/run) are told apart by their paths.
  static void name_uniquely(std::vector<ComparedRun>& runs) {
    std::map<std::string, int> seen;
    for (const auto& r : runs) ++seen[r.name];
    for (auto& r : runs)
      if (seen[r.name] > 1) r.name = r.path;
  }

  std::vector<std::string> paths_;
  std::string format_ = "text";
  std::string sort_;
};

}  // namespace

std::unique_ptr<Command> add_compare(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("compare",
                           "One table of the metrics of any number of runs, the inputs they differ in as columns: "
                           "jobs, utilization, makespan, wait and bounded slowdown (mean, p50, p90, p99, max).");
  return std::make_unique<CompareCommand>(*sub);
}

}  // namespace pmixflow::cli
