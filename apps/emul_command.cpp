// `pmixflow emul`: a scenario or a trace on real OpenPMIx processes of this machine. What the
// run is comes from RunOptions, shared with `pmixflow sim`; the emulated machine and the
// emulation's own knobs are this command's. `pmixflow party` is the process each party runs
// (started by `pmixflow emul`, never by hand).
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "pmixflow/emul/emulation.hpp"
#include "pmixflow/emul/party.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "run_options.hpp"

namespace pmixflow::cli {
namespace {

// A user by name or number.
uid_t user_id(const std::string& who) {
  if (const auto n = parse_whole<uid_t>(who)) return *n;
  if (const passwd* p = ::getpwnam(who.c_str())) return p->pw_uid;
  throw InputError("--allow-user", 0, "--allow-user", "no user '" + who + "' on this machine");
}

class EmulCommand final : public Command {
 public:
  explicit EmulCommand(CLI::App& emul) {
    run_.add_to(emul);
    add_machine(emul);
    add_emulation(emul);
  }

  int run() override {
    return guarded([&] {
      options_.machine.node_shape = shape_.finish();
      for (const auto& u : allow_) options_.allow.push_back(user_id(u));
      const auto self = std::filesystem::read_symlink("/proc/self/exe");
      options_.program = self.string();
      options_.payload = (self.parent_path() / "pmixflow-job").string();
      if (!std::filesystem::is_regular_file(options_.payload))
        throw InputError(options_.payload, 0, "", "the job payload is not beside pmixflow (build target pmixflow-job)");
      return emul::run_emulation(run_.finish(), options_, std::cout, std::cerr);
    });
  }

 private:
  void add_machine(CLI::App& emul) {
    emul.add_option("--nodes", options_.machine.nodes,
                    "Emulated compute nodes n01...: one daemon process each when in the DVM (default 8, or a "
                    "replayed trace's MaxNodes).")
        ->check(CLI::PositiveNumber);
    shape_.add_to(emul, "emulated node");
  }

  void add_emulation(CLI::App& emul) {
    emul.add_option("--speed", options_.speed,
                    "Scenario seconds per second of wall time: at 10, a job of 30 s runs 3 s and a request at t=5 "
                    "is made 0.5 s into the run. The log is written in scenario seconds.")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    emul.add_flag("--hold", options_.hold,
                  "Stay up once the scenario is done, for requestors attached by hand (pmixflow request, session, "
                  "spawn); prints how to attach. Ctrl-C ends it.");
    emul.add_option("--timeout", options_.timeout_s,
                    "Wall seconds after which a run still going is cut (exit 3); 0: no limit.")
        ->check(CLI::NonNegativeNumber);
    emul.add_option("--allow-user", allow_,
                    "A user (name or uid) whose tools may attach to this emulation's servers besides yours "
                    "(repeatable). They may ask for resources; they may not control, extend or release sessions "
                    "they do not own.");
  }

  RunOptions run_;
  emul::EmulOptions options_;
  NodeShapeOptions shape_;
  std::vector<std::string> allow_;
};

class PartyCommand final : public Command {
 public:
  explicit PartyCommand(CLI::App& party) {
    party.add_option("--as", name_, "The party's name (for people reading ps).");
    party.add_option("--control-fd", fd_, "The party's control line.")->capture_default_str();
    party.add_flag("--fail-start", fail_start_, "Fail before the wire-up (a daemon the scenario makes fail).");
  }
  int run() override { return emul::run_party(fd_, fail_start_); }

 private:
  std::string name_;
  int fd_ = 3;
  bool fail_start_ = false;
};

}  // namespace

std::unique_ptr<Command> add_emul(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("emul",
                           "Run a scenario on real OpenPMIx processes of this machine (no arguments: the built-in "
                           "demo).");
  return std::make_unique<EmulCommand>(*sub);
}

std::unique_ptr<Command> add_party(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("party", "One party of an emulation (started by pmixflow emul).");
  sub->group("");  // not for people: hidden from the help
  return std::make_unique<PartyCommand>(*sub);
}

}  // namespace pmixflow::cli
