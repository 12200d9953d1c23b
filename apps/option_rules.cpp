#include "option_rules.hpp"

#include <utility>

namespace pmixflow::cli {

namespace {

void add_to_help(CLI::Option* option, const std::string& sentence) {
  option->description(option->get_description() + " " + sentence);
}

}  // namespace

void OptionRules::needs(CLI::Option* option, const CLI::Option* needed, std::string why) {
  rules_.push_back({option, [needed] { return needed->count() == 0; },
                    option->get_name() + " applies only with " + needed->get_name() + ": " + why});
  add_to_help(option, "Only with " + needed->get_name() + ".");
}

void OptionRules::excludes(CLI::Option* option, const CLI::Option* other, std::string why) {
  rules_.push_back({option, [other] { return other->count() > 0; },
                    option->get_name() + " does not apply with " + other->get_name() + ": " + why});
  add_to_help(option, "Not with " + other->get_name() + ".");
}

void OptionRules::excludes_when(CLI::Option* option, std::function<bool()> holds, std::string condition,
                                std::string why) {
  rules_.push_back({option, std::move(holds), option->get_name() + " does not apply with " + condition + ": " + why});
  add_to_help(option, "Not with " + condition + ".");
}

void OptionRules::check_after_parsing(CLI::App& command) {
  command.final_callback([this] {
    if (const std::string refusal = broken(); !refusal.empty()) throw CLI::ValidationError(refusal);
  });
}

std::string OptionRules::broken() const {
  for (const Rule& rule : rules_)
    if (rule.option->count() > 0 && rule.refused()) return rule.refusal;
  return {};
}

}  // namespace pmixflow::cli
