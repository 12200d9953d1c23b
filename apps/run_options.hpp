// What a run is, as the command line gives it - its workload, policy, seed and outputs - for
// any environment's sub-command: `pmixflow sim` today, the emulator's beside it. The
// environment's own knobs are its command's.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "option_rules.hpp"

#include "pmixflow/topology/topology.hpp"
#include "pmixflow/trace/run.hpp"

namespace pmixflow::cli {

class RunOptions {
 public:
  // `rules`: where the options that apply only with others say so; the caller checks them.
  void add_to(CLI::App& app, OptionRules& rules);
  // The inputs, once the command line is parsed: the demo without a scenario or a trace, the
  // queue options read. Throws InputError naming the option at fault.
  RunInputs& finish();

 private:
  CLI::Option* add_workload(CLI::App& app, OptionRules& rules);  // its --trace
  void add_estimates(CLI::App& app, OptionRules& rules, CLI::Option* trace);
  void add_failures(CLI::App& app, OptionRules& rules, CLI::Option* trace);
  void add_dvm_hosts(CLI::App& app);
  void add_policy(CLI::App& app, OptionRules& rules, CLI::Option* trace);
  void add_outputs(CLI::App& app, OptionRules& rules);

  RunInputs in_;
  std::vector<std::string> queue_priorities_;
  std::string preemptible_;
};

// --topology and --slots: what every compute node looks like, in any environment.
class NodeShapeOptions {
 public:
  NodeShapeOptions();
  // `nodes`: what the help calls the nodes ("compute node", "emulated node").
  void add_to(CLI::App& app, const std::string& nodes);
  NodeShapeChoice finish() const;

 private:
  std::string topology_;
  std::string slots_ = "cores";
  CLI::Option* topology_option_ = nullptr;
};

}  // namespace pmixflow::cli
