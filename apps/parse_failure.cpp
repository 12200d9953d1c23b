#include <algorithm>
#include <sstream>
#include <vector>

#include "commands.hpp"

namespace pmixflow::cli {
namespace {

// Edits (insert, delete, replace) between two option names.
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The command whose options were being read: the deepest sub-command given.
const CLI::App* command_of(const CLI::App* app) {
  for (const CLI::App* sub : app->get_subcommands({}))
    if (sub->parsed()) return command_of(sub);
  return app;
}

// The option of `command` nearest to `word` when it is a near miss (two edits at most, or a
// third for a long name): "--sead" -> "--seed".
std::string nearest(const CLI::App* command, const std::string& word) {
  std::string best;
  std::size_t best_distance = word.size() > 8 ? 3 : 2;
  for (const CLI::Option* option : command->get_options({}))
    for (const std::string& name : option->get_lnames()) {
      const std::string full = "--" + name;
      if (const std::size_t d = distance(word.substr(0, word.find('=')), full); d <= best_distance) {
        best = full;
        best_distance = d;
      }
    }
  return best;
}

// The sub-command of `command` nearest to `word` when it is a near miss: "simm" -> "sim".
std::string nearest_command(const CLI::App* command, const std::string& word) {
  std::string best;
  std::size_t best_distance = 2;
  for (const CLI::App* sub : command->get_subcommands({}))
    if (const std::size_t d = distance(word, sub->get_name()); d <= best_distance) {
      best = sub->get_name();
      best_distance = d;
    }
  return best;
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
    if (!word.starts_with("-")) {
      out += "unexpected argument " + word;
      if (const std::string near = nearest_command(command_of(app), word); !near.empty())
        out += " (did you mean " + near + "?)";
      continue;
    }
    out += "unknown option " + word;
    if (const std::string near = nearest(command_of(app), word); !near.empty()) out += " (did you mean " + near + "?)";
  }
  return out;
}

}  // namespace

std::string parse_failure(const CLI::App* app, const CLI::Error& e) {
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  const std::string out = "pmixflow: " + (extras ? unexpected(app, e.what()) : std::string(e.what()));
  return out + "\n(pmixflow " + std::string(command_of(app) == app ? "" : command_of(app)->get_name() + " ") +
         "--help lists the options)\n";
}

}  // namespace pmixflow::cli
