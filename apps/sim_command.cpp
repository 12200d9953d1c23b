// `pmixflow sim`: a scenario or a trace on a simulated machine. What the run is comes from
// RunOptions; the simulated machine and SimGrid's knobs are this command's.
#include <cstdint>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "number_options.hpp"
#include "pmixflow/sim/run.hpp"
#include "pmixflow/vocab/near_miss.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "run_options.hpp"

namespace pmixflow::cli {
namespace {

class SimCommand final : public Command {
 public:
  explicit SimCommand(CLI::App& sim) {
    run_.add_to(sim, rules_);
    add_machine(sim);
    add_simgrid(sim);
    rules_.check_after_parsing(sim);
  }

  int run() override {
    return guarded("sim", [&] {
      knobs_.node_shape = shape_.finish();
      return sim::run_simulation(run_.finish(), knobs_, std::cout, std::cerr);
    });
  }

 private:
  void add_machine(CLI::App& sim) {
    auto* platform = sim.add_option(
        "--platform", knobs_.platform.platform_file,
        "SimGrid platform XML. Hosts named head, sched and login take those roles; otherwise the first three "
        "hosts do, and the rest are compute nodes. Without one, a cluster is generated (--nodes, --network).");
    add_whole<std::uint32_t>(
        sim, "--nodes", knobs_.platform.nodes, 1, UINT32_MAX,
        "Compute nodes: how many to generate (default 8), or how many of the platform's to use (default all).");
    auto* network =
        sim.add_option_function<std::string>(
               "--network",
               [this](const std::string& kind) {
                 // The parameters of fat-tree:... are read with the platform, which names what is wrong.
                 if (kind != "star" && kind != "fat-tree" && !kind.starts_with("fat-tree:"))
                   throw CLI::ValidationError("--network", quote_value(kind) + " is not a network" +
                                                               did_you_mean(kind, {"star", "fat-tree"}) +
                                                               ": star, fat-tree or fat-tree:LEVELS;DOWN;UP;COUNT");
                 knobs_.platform.network = kind;
               },
               "Generated network: star (a private 100 Gb/s link per host), fat-tree (two levels of 16-port "
               "switches), or fat-tree:LEVELS;DOWN;UP;COUNT as SimGrid's topo_parameters.")
            ->default_str(knobs_.platform.network);
    rules_.excludes(network, platform, "a platform file has its own network");
    shape_.add_to(sim, "compute node");
  }

  void add_simgrid(CLI::App& sim) {
    add_real(sim, "--daemon-startup", knobs_.daemon_startup_s, 0.0, kMaxSeconds,
             "Seconds a daemon takes to start on its node once its launch has crossed the network.")
        ->default_str(number_text(knobs_.daemon_startup_s));
    // A spread of more than a thousand times the start-up is no machine's.
    add_real(sim, "--jitter", knobs_.jitter, 0.0, 1000.0,
             "Relative spread of daemon and process start-up times, drawn from --seed: each takes up to this "
             "fraction longer, as on a real machine where no two start at the same instant. 0: exact.")
        ->default_str(number_text(knobs_.jitter));
    add_whole<std::size_t>(sim, "--idle-actors", knobs_.idle_actors, 0, SIZE_MAX,
                           "How many idle daemons keep their SimGrid actor, waiting for their next message; past "
                           "that, an idle daemon lets its actor go (less memory on a large machine, more time to "
                           "bring it back). A cost of the simulator only: the simulated results do not depend on it.")
        ->default_str(std::to_string(knobs_.idle_actors));
    sim.add_option("--contexts", knobs_.contexts,
                   "SimGrid context factory (thread, ucontext, boost, raw); default from $PMIXFLOW_SIM_CONTEXTS, else "
                   "SimGrid's own. Use thread under AddressSanitizer.");
    sim.add_option(
        "--cfg", knobs_.simgrid_cfg,
        "Extra SimGrid setting KEY:VALUE, as SimGrid's own --cfg (repeatable), e.g. contexts/stack-size:64.");
  }

  OptionRules rules_;
  RunOptions run_;
  sim::SimKnobs knobs_;
  NodeShapeOptions shape_;
};

}  // namespace

std::unique_ptr<Command> add_sim(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("sim", "Run a scenario on a simulated cluster (no arguments: the built-in demo).");
  return std::make_unique<SimCommand>(*sub);
}

}  // namespace pmixflow::cli
