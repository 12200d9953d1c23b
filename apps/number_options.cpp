#include "number_options.hpp"

#include <limits>

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow::cli {

void refuse_number(const std::string& option, NumberFault fault, const std::string& text, const std::string& range) {
  throw CLI::ValidationError(option, number_refusal(fault, text, range));
}

namespace {

double read_option(const std::string& name, const std::string& text, double min, double max) {
  double value = 0;
  const NumberFault fault = read_real(text, value, min, max);
  if (fault != NumberFault::None) refuse_number(name, fault, text, range_text(min, max));
  return value;
}

}  // namespace

CLI::Option* add_real(CLI::App& app, const std::string& name, double& target, double min, double max,
                      const std::string& help) {
  auto* option = app.add_option_function<std::string>(
      name, [&target, name, min, max](const std::string& text) { target = read_option(name, text, min, max); }, help);
  return option->type_name("FLOAT");
}

CLI::Option* add_real(CLI::App& app, const std::string& name, std::optional<double>& target, double min, double max,
                      const std::string& help) {
  auto* option = app.add_option_function<std::string>(
      name, [&target, name, min, max](const std::string& text) { target = read_option(name, text, min, max); }, help);
  return option->type_name("FLOAT");
}

CLI::Option* add_positive_real(CLI::App& app, const std::string& name, std::optional<double>& target, double max,
                               const std::string& help) {
  auto* option = app.add_option_function<std::string>(
      name,
      [&target, name, max](const std::string& text) {
        const std::string range = "more than 0 and " + range_text(std::numeric_limits<double>::lowest(), max);
        double value = 0;
        NumberFault fault = read_real(text, value, 0.0, max);
        if (fault == NumberFault::None && value <= 0) fault = NumberFault::OutOfRange;
        if (fault != NumberFault::None) refuse_number(name, fault, text, range);
        target = value;
      },
      help);
  return option->type_name("FLOAT");
}

std::string number_text(double value) {
  std::string out;
  json_number_into(out, value);
  return out;
}

}  // namespace pmixflow::cli
