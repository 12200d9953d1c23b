// What pmixflow says about itself: --version.
#pragma once

#include <CLI/CLI.hpp>

namespace pmixflow::cli {

// Call once every sub-command has been added.
void add_self_description(CLI::App& app);

}  // namespace pmixflow::cli
