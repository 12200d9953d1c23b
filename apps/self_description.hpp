// What pmixflow says about itself, for people and for the install: --version, and two hidden
// options the build uses to make the man page and the shell completion from the real option
// tables (so neither can drift from the program): --help-all (every sub-command's --help, the
// man page's source, read by help2man) and --completion bash (the completion script).
#pragma once

#include <CLI/CLI.hpp>

namespace pmixflow::cli {

// Call once every sub-command has been added: the completion lists them.
void add_self_description(CLI::App& app);

}  // namespace pmixflow::cli
