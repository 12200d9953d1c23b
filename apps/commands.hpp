// The sub-commands of `pmixflow`, one file each: each adds its options to the command line
// and runs from what was parsed. Exit status: 0 success, 1 a run's or a comparison's "no"
// (an expectation failed, two runs differ), 2 bad input.
#pragma once

#include <CLI/CLI.hpp>

namespace pmixflow::cli {

inline constexpr int kBadInput = 2;

class Command {
 public:
  virtual ~Command() = default;
  virtual int run() = 0;
};

std::unique_ptr<Command> add_sim(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_report(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_diff(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_compare(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_events(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_outcomes(CLI::App& app, CLI::App*& sub);
// A study of many sim runs, here or on a Slurm cluster (sweep_*.cpp).
std::unique_ptr<Command> add_sweep(CLI::App& app, CLI::App*& sub);
#ifdef PMIXFLOW_HAVE_EMUL
std::unique_ptr<Command> add_emul(CLI::App& app, CLI::App*& sub);
// Requestors by hand, against a running emulation (tool_commands.cpp).
std::unique_ptr<Command> add_request(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_session(CLI::App& app, CLI::App*& sub);
std::unique_ptr<Command> add_spawn(CLI::App& app, CLI::App*& sub);
#endif

// CLI11's refusal of a command line, worded as the project's own: "pmixflow sim: --seed: '-1'
// is out of range (0 to 18446744073709551615)", an unknown option with the nearest known one.
std::string parse_failure(const CLI::App* app, const CLI::Error& e);

// What `pmixflow` alone prints (on standard error, exit 2): the usage line, the sub-commands
// and where to read more, in a few lines rather than the whole help.
std::string short_usage(const CLI::App& app);

// The arguments for CLI11 (last first), `pmixflow help [COMMAND]` read as `[COMMAND] --help`,
// as git reads `git help COMMAND`.
std::vector<std::string> help_as_option(const CLI::App& app, int argc, char** argv);

// "pmixflow sim: ": how every message of the sub-command `command` begins.
std::string message_prefix(const std::string& command);

// Runs `command`'s `body`, turning bad input into a message and exit status 2. An InputError
// about an option (its file or field "--policy", no line) is worded as a refused option:
// "pmixflow sim: --policy: unknown policy 'eazy' ...".
int guarded(const std::string& command, const std::function<int()>& body);

}  // namespace pmixflow::cli
