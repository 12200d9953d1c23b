#include <string>
#include <vector>

#include "commands.hpp"

namespace pmixflow::cli {

std::string short_usage(const CLI::App& app) {
  std::string commands;
  for (const CLI::App* sub : app.get_subcommands({})) commands += (commands.empty() ? "" : ", ") + sub->get_name();
  return "usage: pmixflow COMMAND [OPTIONS]\n"
         "commands: " +
         commands +
         "\n"
         "pmixflow sim runs the built-in demo; pmixflow --help (or pmixflow help COMMAND) says more.\n";
}

std::vector<std::string> help_as_option(const CLI::App& app, int argc, char** argv) {
  // CLI11 reads its arguments from the back of the vector it is given.
  std::vector<std::string> args;
  for (int i = argc - 1; i > 0; --i) args.emplace_back(argv[i]);
  if (args.empty() || args.back() != "help") return args;
  args.pop_back();
  // A word that is no command stays one, to be refused with the nearest command rather than
  // answered with the general help.
  bool known = args.empty();
  for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->get_name() == args.back();
  if (known) args.insert(args.begin(), "--help");
  return args;
}

}  // namespace pmixflow::cli
