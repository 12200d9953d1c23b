// `pmixflow emul`: a scenario or a trace on real OpenPMIx processes of this machine. What the
// run is comes from RunOptions, shared with `pmixflow sim`; the emulated machine and the
// emulation's own knobs are this command's. Each party runs `pmixflow-party`, and each job
// process `pmixflow-job`, both found beside `pmixflow` or in PREFIX/libexec/pmixflow.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "install_layout.hpp"
#include "number_options.hpp"
#include "pmixflow/emul/emulation.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "run_options.hpp"

namespace pmixflow::cli {
namespace {

// A user by name or number.
uid_t user_id(const std::string& who) {
  if (const auto n = parse_whole<uid_t>(who)) return *n;
  if (const passwd* p = ::getpwnam(who.c_str())) return p->pw_uid;
  throw InputError("--allow-user", 0, "--allow-user", "no user " + quote_value(who) + " on this machine");
}

// A program shipped with `pmixflow`: beside it in the build tree, in PREFIX/libexec/pmixflow installed.
std::string shipped_program(const std::string& program, const char* what) {
  if (const auto found = find_program_file(program)) return found->string();
  const auto places = program_places(program);
  throw InputError(places.front().string(), 0, "",
                   std::string(what) + " is neither beside pmixflow nor in " + places.back().parent_path().string() +
                       " (build target " + program + ")");
}

class EmulCommand final : public Command {
 public:
  explicit EmulCommand(CLI::App& emul) {
    run_.add_to(emul, rules_);
    add_machine(emul);
    add_emulation(emul);
    rules_.check_after_parsing(emul);
  }

  int run() override {
    return guarded("emul", [&] {
      options_.machine.node_shape = shape_.finish();
      for (const auto& u : allow_) options_.allow.push_back(user_id(u));
      options_.program = shipped_program("pmixflow-party", "the parties' program");
      options_.payload = shipped_program("pmixflow-job", "the job payload");
      return emul::run_emulation(run_.finish(), options_, std::cout, std::cerr);
    });
  }

 private:
  void add_machine(CLI::App& emul) {
    add_whole<std::uint32_t>(emul, "--nodes", options_.machine.nodes, 1, UINT32_MAX,
                             "Emulated compute nodes n01...: one daemon process each when in the DVM (default 8, or a "
                             "replayed trace's MaxNodes).");
    shape_.add_to(emul, "emulated node");
  }

  void add_emulation(CLI::App& emul) {
    // Wall time is scenario time divided by the speed: zero would be forever.
    add_real(emul, "--speed", options_.speed, 0.001, 1e6,
             "Scenario seconds per second of wall time: at 10, a job of 30 s runs 3 s and a request at t=5 "
             "is made 0.5 s into the run. The log is written in scenario seconds.")
        ->default_str(number_text(options_.speed));
    emul.add_flag("--hold", options_.hold,
                  "Stay up once the scenario is done, for requestors attached by hand (pmixflow request, session, "
                  "spawn); prints how to attach. Ctrl-C ends it.");
    add_real(emul, "--timeout", options_.timeout_s, 0.0, kMaxSeconds,
             "Wall seconds after which a run still going is cut (exit 3); 0: no limit.");
    emul.add_option("--allow-user", allow_,
                    "A user (name or uid) whose tools may attach to this emulation's servers besides yours "
                    "(repeatable). They may ask for resources; they may not control, extend or release sessions "
                    "they do not own.");
  }

  OptionRules rules_;
  RunOptions run_;
  emul::EmulOptions options_;
  NodeShapeOptions shape_;
  std::vector<std::string> allow_;
};

}  // namespace

std::unique_ptr<Command> add_emul(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("emul",
                           "Run a scenario on real OpenPMIx processes of this machine (no arguments: the built-in "
                           "demo).");
  return std::make_unique<EmulCommand>(*sub);
}

}  // namespace pmixflow::cli
