#include "self_description.hpp"

#include "version.hpp"

namespace pmixflow::cli {

void add_self_description(CLI::App& app) {
  // Its usage lines say `pmixflow`, however it was started.
  app.name("pmixflow");
  app.set_version_flag("--version", version::version_text("pmixflow"), "Print the version and what it was built with.");
}

}  // namespace pmixflow::cli
