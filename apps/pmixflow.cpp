// The pmixflow command line: thin. Each sub-command parses its options and hands over.
#include <iostream>
#include <memory>
#include <vector>

#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace pmixflow::cli;
  CLI::App app{"pmixflow: the PMIx allocation flow (RM <-> scheduler), simulated on SimGrid."};
  app.require_subcommand(0, 1);
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands(4);
  commands[0].second = add_sim(app, commands[0].first);
  commands[1].second = add_report(app, commands[1].first);
  commands[2].second = add_diff(app, commands[2].first);
  commands[3].second = add_events(app, commands[3].first);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }
  for (auto& [sub, command] : commands)
    if (*sub) return command->run();
  std::cout << app.help();
  return 0;
}
