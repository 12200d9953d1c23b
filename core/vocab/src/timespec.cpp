#include "pmixflow/vocab/timespec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/trim.hpp"

namespace pmixflow {
namespace {

constexpr std::string_view kField = "PMIX_ALLOC_TIME";
constexpr std::string_view kForm = "months:days:hours:minutes:seconds";

// Seconds per field, rightmost first: seconds, minutes, hours, days, months (of 30 days).
constexpr std::array<double, 5> kUnit = {1.0, 60.0, 3600.0, 86400.0, 30.0 * 86400.0};

[[noreturn]] void refuse(std::string_view origin, std::string_view text, std::string_view why) {
  throw InputError(std::string(origin), 0, std::string(kField),
                   "invalid time " + quote_value(text) + ": " + std::string(why) + " (expected " + std::string(kForm) +
                       ", read from the right)");
}

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (auto colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', start)) {
    fields.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  fields.push_back(text.substr(start));
  return fields;
}

// As PRRTE's prte_pmix_server_parse_session_time() reads a field with strtol(): blanks before
// it and a sign are taken, then digits to the field's end. A negative value is refused, so
// `-0` is 0. Nothing else: strtod would take "1e3" or "inf", which no time string may hold.
std::uint64_t field_value(std::string_view field, std::string_view origin, std::string_view text) {
  if (field.empty()) refuse(origin, text, "empty field");
  std::size_t at = 0;
  while (at < field.size() && (field[at] == ' ' || (field[at] >= '\t' && field[at] <= '\r'))) ++at;
  const bool negative = at < field.size() && field[at] == '-';
  if (at < field.size() && (field[at] == '+' || field[at] == '-')) ++at;
  const std::string_view digits = field.substr(at);
  if (digits.empty() || !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; }))
    refuse(origin, text, quote_value(field) + " is not a whole number (blanks before it and a sign are allowed)");
  std::uint64_t value = 0;
  if (read_whole(digits, value) != NumberFault::None) refuse(origin, text, quote_value(field) + " is too large");
  if (negative && value != 0) refuse(origin, text, quote_value(field) + " is negative");
  return value;
}

std::string two_digits(std::int64_t n) { return (n < 10 ? "0" : "") + std::to_string(n); }

}  // namespace

double parse_alloc_time(std::string_view text, std::string_view origin) {
  // Not trimmed: PRRTE takes blanks before a field and refuses any after one.
  if (trim(text).empty()) refuse(origin, text, "empty");
  const auto fields = split_fields(text);
  if (fields.size() > kUnit.size()) refuse(origin, text, "more than five fields");
  double seconds = 0;
  for (std::size_t i = 0; i < fields.size(); ++i)
    seconds += static_cast<double>(field_value(fields[fields.size() - 1 - i], origin, text)) * kUnit[i];
  // A limit is carried on as PMIx 4.2.2's uint32 of seconds and written back as a time string:
  // a longer one would wrap there, and could not be written here.
  if (seconds > kMaxSeconds)
    throw InputError(std::string(origin), 0, std::string(kField),
                     "time " + quote_value(text) + " is longer than PMIx can carry: at most 4294967295 seconds (" +
                         format_alloc_time(kMaxSeconds) + ")");
  return seconds;
}

std::string format_alloc_time(double seconds) {
  // Callers pass computed durations, so tiny float noise is rounded away; anything that does not
  // round to a representable non-negative count is a bug upstream, not bad user input.
  const double rounded = std::round(seconds);
  if (!std::isfinite(rounded) || rounded < 0 ||
      rounded >= static_cast<double>(std::numeric_limits<std::int64_t>::max()))
    throw std::invalid_argument("format_alloc_time: not a non-negative duration");
  const auto total = static_cast<std::int64_t>(rounded);
  const std::int64_t days = total / 86400;
  const std::int64_t hours = total / 3600 % 24;
  const std::int64_t minutes = total / 60 % 60;
  const std::int64_t secs = total % 60;
  // Months are not written: a month is a parse-side convenience, and days round-trip exactly.
  if (days > 0)
    return std::to_string(days) + ":" + two_digits(hours) + ":" + two_digits(minutes) + ":" + two_digits(secs);
  if (hours > 0) return std::to_string(hours) + ":" + two_digits(minutes) + ":" + two_digits(secs);
  if (minutes > 0) return std::to_string(minutes) + ":" + two_digits(secs);
  return std::to_string(secs);
}

}  // namespace pmixflow
