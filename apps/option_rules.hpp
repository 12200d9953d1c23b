// Options that apply only with another, or not with another, refused after the command line is
// parsed with the reason kept beside the option's definition: "pmixflow sim: --lenient applies
// only with --trace: a scenario's lines are never skipped". One wording for every such refusal,
// whatever the option, rather than CLI11's "--lenient requires --trace" for some and a check in
// a command's run for others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pmixflow::cli {

class OptionRules {
 public:
  // Each rule ends the option's help with it ("Only with --trace."), as CLI11's own "Needs:"
  // did, so that --help still says what goes with what.

  // `option` given without `needed`: "<option> applies only with <needed>: <why>".
  void needs(CLI::Option* option, const CLI::Option* needed, std::string why);
  // `option` given with `other`: "<option> does not apply with <other>: <why>".
  void excludes(CLI::Option* option, const CLI::Option* other, std::string why);
  // `option` given while `holds()` (read once every value is parsed): "<option> does not apply
  // with <condition>: <why>".
  void excludes_when(CLI::Option* option, std::function<bool()> holds, std::string condition, std::string why);

  // Checks the rules once `command` is parsed, before it runs: the first broken one is refused
  // as CLI11 refuses a command line (CLI::ValidationError), so that it is worded as the rest.
  // The rules must outlive the parse.
  void check_after_parsing(CLI::App& command);

  // The first rule the parsed command line breaks, as its refusal; empty when none is.
  std::string broken() const;

 private:
  struct Rule {
    const CLI::Option* option;
    std::function<bool()> refused;
    std::string refusal;
  };
  std::vector<Rule> rules_;
};

}  // namespace pmixflow::cli
