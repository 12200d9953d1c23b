#include <algorithm>
#include <regex>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "pmixflow/vocab/near_miss.hpp"

namespace pmixflow::cli {
namespace {

// The command whose options were being read: the deepest sub-command given.
const CLI::App* command_of(const CLI::App* app) {
  for (const CLI::App* sub : app->get_subcommands({}))
    if (sub->parsed()) return command_of(sub);
  return app;
}

// The option of `command` nearest to `word` when it is a near miss: "--sead" -> "--seed".
std::string nearest_option(const CLI::App* command, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command->get_options({}))
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return did_you_mean(word.substr(0, word.find('=')), names);
}

// The sub-command of `command` nearest to `word` when it is a near miss: "simm" -> "sim".
std::string nearest_command(const CLI::App* command, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command->get_subcommands({})) names.push_back(sub->get_name());
  return did_you_mean(word, names);
}

// "unknown option --sead (did you mean --seed?); unexpected argument 3": what CLI11 lists as
// not expected (last first), in the order given.
std::string unexpected(const CLI::App* app, const std::string& message) {
  std::vector<std::string> words;
  std::istringstream in(message.substr(message.find(':') + 1));
  for (std::string word; in >> word;) words.insert(words.begin(), word);
  std::string out;
  for (const std::string& word : words) {
    out += out.empty() ? "" : "; ";
    if (!word.starts_with("-"))
      out += "unexpected argument " + word + nearest_command(command_of(app), word);
    else
      out += "unknown option " + word + nearest_option(command_of(app), word);
  }
  return out;
}

// CLI11's "--seed: 1 required UINT missing" as a person says it: "--seed: needs a value (UINT)".
std::string missing_value(const std::string& message) {
  static const std::regex kMissing("^(.*): [0-9]+ required (.*) missing$");
  std::smatch m;
  if (!std::regex_match(message, m, kMissing)) return message;
  return m[1].str() + ": needs a value (" + m[2].str() + ")";
}

}  // namespace

std::string parse_failure(const CLI::App* app, const CLI::Error& e) {
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  const std::string command = command_of(app) == app ? "" : command_of(app)->get_name();
  const std::string out = message_prefix(command) + (extras ? unexpected(app, e.what()) : missing_value(e.what()));
  return out + "\n(pmixflow " + (command.empty() ? "" : command + " ") + "--help lists the options)\n";
}

}  // namespace pmixflow::cli
