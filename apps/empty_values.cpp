#include "empty_values.hpp"

#include <string>

namespace pmixflow::cli {
namespace {

// Without a description: the options' help is unchanged.
CLI::Validator not_empty() {
  return CLI::Validator(
      [](const std::string& value) {
        return value.empty() ? std::string("an empty value names nothing") : std::string();
      },
      "", "not empty");
}

}  // namespace

void refuse_empty_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options({}))
    // First of its checks (transform() puts it first; it changes nothing): "--format: an empty
    // value names nothing" rather than "--format: '' not in {text,csv,json}".
    if (option->get_expected_max() > 0) option->transform(not_empty());
  for (CLI::App* sub : app.get_subcommands({})) refuse_empty_values(*sub);
}

}  // namespace pmixflow::cli
