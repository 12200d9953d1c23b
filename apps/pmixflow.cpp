// The pmixflow command line: thin. Each sub-command parses its options and hands over.
#include <iostream>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "empty_values.hpp"
#include "exit_status.hpp"
#include "self_description.hpp"

int main(int argc, char** argv) {
  using namespace pmixflow::cli;
  CLI::App app{
      "pmixflow: the PMIx allocation flow (RM <-> scheduler), simulated on SimGrid or emulated on real OpenPMIx."};
  app.require_subcommand(0, 1);
  app.footer(kExitStatusHelp);
  app.failure_message(parse_failure);  // before the sub-commands, which inherit it
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  auto add = [&](auto adder) {
    CLI::App* sub = nullptr;
    auto command = adder(app, sub);
    commands.emplace_back(sub, std::move(command));
  };
  add(add_sim);
#ifdef PMIXFLOW_HAVE_EMUL
  add(add_emul);
  add(add_request);
  add(add_session);
  add(add_spawn);
#endif
  add(add_report);
  add(add_diff);
  add(add_compare);
  add(add_outcomes);
  add(add_events);
  add(add_sweep);
  add_self_description(app);
  refuse_empty_values(app);
  try {
    app.parse(help_as_option(app, argc, argv));
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }
  for (auto& [sub, command] : commands)
    if (*sub) return command->run();
  std::cerr << short_usage(app);  // as git does: a command is the point, so none is a usage error
  return kBadInput;
}
