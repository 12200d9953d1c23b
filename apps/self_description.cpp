#include "self_description.hpp"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "pmixflow/policies/policy.hpp"
#include "version.hpp"

namespace pmixflow::cli {
namespace {

std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App*) { return true; });
}

std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> words;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(separator, from)) != std::string::npos; from = at + separator.size())
    words.push_back(text.substr(from, at - from));
  words.push_back(text.substr(from));
  return words;
}

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : separator) + w;
  return line;
}

// The values an option takes when they are a closed set, as its help shows them: a
// validator's "{cores,pus}" or a type name "all|state|none". --policy also takes a library's
// path, so its built-in names are completed beside file names.
std::vector<std::string> closed_values(const CLI::Option& option) {
  if (option.get_lnames() == std::vector<std::string>{"policy"}) return split(builtin_policy_names(), ", ");
  const std::string type = option.get_type_name();
  if (const auto open = type.find('{'), close = type.find('}'); open != std::string::npos && close > open)
    return split(type.substr(open + 1, close - open - 1), ",");
  if (type.find('|') != std::string::npos && type.find_first_of(" :") == std::string::npos) return split(type, "|");
  return {};
}

struct CompletedOption {
  std::vector<std::string> names;   // "--seed", "-h"
  bool takes_value = false;         // the next word is its value (a file unless `values`)
  std::vector<std::string> values;  // a closed set, when it is one
};

std::vector<CompletedOption> visible_options(const CLI::App& app) {
  std::vector<CompletedOption> options;
  for (const CLI::Option* o : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
    CompletedOption c;
    for (const auto& l : o->get_lnames()) c.names.push_back("--" + l);
    for (const auto& s : o->get_snames()) c.names.push_back("-" + s);
    if (c.names.empty()) continue;  // a positional argument
    c.takes_value = o->get_expected_max() > 0;
    c.values = closed_values(*o);
    options.push_back(std::move(c));
  }
  return options;
}

// The case arm completing a value: `sub` is the sub-command's name ("" for pmixflow itself).
void value_arms(std::ostream& out, const std::string& sub, const std::vector<CompletedOption>& options) {
  for (const auto& o : options) {
    if (!o.takes_value) continue;
    for (const auto& name : o.names) {
      out << "    '" << sub << ' ' << name << "')";
      if (o.values.empty())
        out << " return ;;\n";  // a file, a number: bash's default completion (file names)
      else
        out << " COMPREPLY=($(compgen -W '" << joined(o.values) << "' -- \"$cur\")"
            << (o.names.front() == "--policy" ? " $(compgen -f -- \"$cur\")" : "") << "); return ;;\n";
    }
  }
}

std::string option_words(const std::vector<CompletedOption>& options) {
  std::vector<std::string> words;
  for (const auto& o : options) words.insert(words.end(), o.names.begin(), o.names.end());
  return joined(words);
}

void print_bash_completion(CLI::App& app, std::ostream& out) {
  std::vector<std::string> names;
  for (const CLI::App* sub : subcommands_of(app)) names.push_back(sub->get_name());
  out << "# bash completion of pmixflow, made by `pmixflow --completion bash` from its option tables\n"
      << "# (" << version::version_line("pmixflow") << "). Installed as share/bash-completion/completions/pmixflow.\n"
      << "_pmixflow() {\n  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub='' i\n"
      << "  for ((i = 1; i < COMP_CWORD; i++)); do\n    case ${COMP_WORDS[i]} in\n      " << joined(names, "|")
      << ") sub=${COMP_WORDS[i]}; break ;;\n    esac\n  done\n  case \"$sub $prev\" in\n";
  value_arms(out, "", visible_options(app));
  for (CLI::App* sub : subcommands_of(app)) value_arms(out, sub->get_name(), visible_options(*sub));
  out << "  esac\n  local words\n  case $sub in\n    '') words='" << option_words(visible_options(app)) << "' ;;\n";
  for (CLI::App* sub : subcommands_of(app))
    out << "    " << sub->get_name() << ") words='" << option_words(visible_options(*sub)) << "' ;;\n";
  out << "  esac\n  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      << "  elif [[ -z $sub ]]; then\n    COMPREPLY=($(compgen -W '" << joined(names) << "' -- \"$cur\"))\n"
      << "  fi\n}\ncomplete -o bashdefault -o default -F _pmixflow pmixflow\n";
}

// pmixflow's --help, then each sub-command's under a heading of its own, its usage: what
// help2man turns into one page, every option of every sub-command in it. The exit statuses,
// the same for all, are said once.
void print_help_all(CLI::App& app, std::ostream& out) {
  out << app.help();
  for (CLI::App* sub : subcommands_of(app)) {
    sub->footer("");
    std::istringstream help(sub->help());
    std::string line;
    std::string description;
    while (std::getline(help, line) && line.rfind("Usage: ", 0) != 0) description += line + " ";
    const std::string usage = line.substr(7);  // "sim [OPTIONS]", or with its parent's name
    out << '\n' << (usage.rfind("pmixflow ", 0) == 0 ? "" : "pmixflow ") << usage << ":\n  " << description << '\n';
    while (std::getline(help, line))
      if (line.empty() || line.front() == ' ') out << line << '\n';  // not the "Options:" headings
  }
}

}  // namespace

void add_self_description(CLI::App& app) {
  // Its usage lines say `pmixflow`, however it was started (the man page is made from a build path).
  app.name("pmixflow");
  app.set_version_flag("--version", version::version_text("pmixflow"), "Print the version and what it was built with.");
  app.add_flag_callback("--help-all",
                        [&app] {
                          print_help_all(app, std::cout);
                          throw CLI::Success();
                        })
      ->group("");
  app.add_option_function<std::string>("--completion",
                                       [&app](const std::string& shell) {
                                         if (shell != "bash")
                                           throw CLI::ValidationError("--completion",
                                                                      "only bash is supported, not '" + shell + "'");
                                         print_bash_completion(app, std::cout);
                                         throw CLI::Success();
                                       })
      ->group("");
}

}  // namespace pmixflow::cli
