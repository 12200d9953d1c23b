// An empty value names nothing: `--scenario ''`, `--out ''` or `report ''` is what a script
// passing an unset variable gives, and reading it as the option left out (the built-in demo,
// no output directory) would turn a broken script into a false pass. Refused for every option
// and argument that takes a value, of every sub-command, in one place rather than per option.
#pragma once

#include <CLI/CLI.hpp>

namespace pmixflow::cli {

// Adds the refusal to every option and positional argument of `app` and its sub-commands that
// takes a value: "pmixflow sim: --scenario: an empty value names nothing". Call once every
// option is declared; the check runs before an option's own (a number's, a level's).
void refuse_empty_values(CLI::App& app);

}  // namespace pmixflow::cli
