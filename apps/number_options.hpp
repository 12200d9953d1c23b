// Numeric options, read as every input's numbers are (pmixflow/vocab/numbers.hpp). CLI11's
// own conversion takes "-1" for an unsigned option as 2^64 - 1, "010" as octal 8, and "nan"
// and "inf" past any range check, and words its refusals with a double's full 309 digits:
// here each is refused naming the option and its range in plain numbers.
#pragma once

#include <concepts>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow::cli {

// The refusal a numeric option throws: "--seed: '-1' is out of range (0 to 18446744073709551615)".
[[noreturn]] void refuse_number(const std::string& option, NumberFault fault, const std::string& text,
                                const std::string& range);

// A whole number in [min, max] into `target`; its current value is shown as the default.
template <std::integral Int>
CLI::Option* add_whole(CLI::App& app, const std::string& name, Int& target, Int min, Int max, const std::string& help) {
  auto* option = app.add_option_function<std::string>(
      name,
      [&target, name, min, max](const std::string& text) {
        const NumberFault fault = read_whole(text, target, min, max);
        if (fault != NumberFault::None) refuse_number(name, fault, text, range_text(min, max));
      },
      help);
  return option->type_name(std::is_signed_v<Int> ? "INT" : "UINT");
}

// A finite number in [min, max]: never NaN or infinity.
CLI::Option* add_real(CLI::App& app, const std::string& name, double& target, double min, double max,
                      const std::string& help);
CLI::Option* add_real(CLI::App& app, const std::string& name, std::optional<double>& target, double min, double max,
                      const std::string& help);

// A finite number more than 0 and at most max (a mean time, a rate): 0 is refused with the rest.
CLI::Option* add_positive_real(CLI::App& app, const std::string& name, std::optional<double>& target, double max,
                               const std::string& help);

// The default a help text shows for a number: "0.05", "4096".
std::string number_text(double value);

}  // namespace pmixflow::cli
