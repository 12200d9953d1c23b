#include "pmixflow/vocab/numbers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow {
namespace {

constexpr double kLowest = -std::numeric_limits<double>::max();
constexpr double kHighest = std::numeric_limits<double>::max();

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Digits with an optional '-': one too large for 64 bits, or negative for an unsigned field,
// is out of range rather than "not a number".
bool looks_whole(std::string_view s) { return all_digits(s.starts_with('-') ? s.substr(1) : s); }

// "nan", "-inf", "Infinity": what strtod and printf spell, which a user may paste.
bool names_non_finite(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  const auto is = [s](std::string_view word) {
    return s.size() == word.size() && std::equal(s.begin(), s.end(), word.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == b;
           });
  };
  return is("nan") || is("inf") || is("infinity");
}

template <class Int>
NumberFault whole(std::string_view text, Int& out, Int min, Int max) {
  Int value{};
  const char* const last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  if (!text.empty() && end == last && ec == std::errc()) {
    if (value < min || value > max) return NumberFault::OutOfRange;
    out = value;
    return NumberFault::None;
  }
  if (looks_whole(text)) return NumberFault::OutOfRange;
  // A decimal without a fraction ("4.0", "1e3"), checked in long double, which holds every
  // 64-bit integer exactly.
  double real = 0;
  if (const NumberFault fault = read_real(text, real, kLowest, kHighest); fault != NumberFault::None) return fault;
  if (real != std::trunc(real)) return NumberFault::NotWhole;
  const long double v = real;
  if (v < static_cast<long double>(min) || v > static_cast<long double>(max)) return NumberFault::OutOfRange;
  out = static_cast<Int>(real);
  return NumberFault::None;
}

// As a user writes a number: whole ones in digits ("1000000", never "1e+06"), others in their
// shortest round-trip form ("0.001").
std::string plain(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::string out;
  json_number_into(out, v);
  return out;
}

// A bound at the end of a double's range is no bound: "at least 0" says it better.
std::string range_words(double min, double max) {
  if (max == std::numeric_limits<double>::max()) return "at least " + plain(min);
  if (min == std::numeric_limits<double>::lowest()) return "at most " + plain(max);
  return plain(min) + " to " + plain(max);
}

}  // namespace

NumberFault read_whole(std::string_view text, std::int64_t& out, std::int64_t min, std::int64_t max) {
  return whole(text, out, min, max);
}

NumberFault read_whole(std::string_view text, std::uint64_t& out, std::uint64_t min, std::uint64_t max) {
  return whole(text, out, min, max);
}

NumberFault read_real(std::string_view text, double& out, double min, double max) {
  if (names_non_finite(text)) return NumberFault::NotFinite;
  if (text.find_first_not_of("0123456789+-.eE") != std::string_view::npos ||
      text.find_first_of("0123456789") == std::string_view::npos)
    return NumberFault::NotANumber;
  const char* const last = text.data() + text.size();
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), last, value, std::chars_format::general);
  if (end != last || ec == std::errc::invalid_argument) return NumberFault::NotANumber;
  if (ec == std::errc::result_out_of_range) {
    // An underflow ("1e-400") is as good as zero; only an overflow is out of range.
    const auto e = text.find_first_of("eE");
    if (e == std::string_view::npos || !text.substr(e + 1).starts_with('-')) return NumberFault::OutOfRange;
    value = 0;
  }
  if (!std::isfinite(value) || value < min || value > max) return NumberFault::OutOfRange;
  out = value;
  return NumberFault::None;
}

std::string range_text(std::int64_t min, std::int64_t max) {
  return std::to_string(min) + " to " + std::to_string(max);
}

std::string range_text(std::uint64_t min, std::uint64_t max) {
  return std::to_string(min) + " to " + std::to_string(max);
}

std::string range_text(double min, double max) { return range_words(min, max); }

std::string number_refusal(NumberFault fault, std::string_view text, const std::string& range) {
  const std::string quoted = quote_value(text);
  switch (fault) {
    case NumberFault::NotANumber: return quoted + " is not a number";
    case NumberFault::NotFinite: return quoted + " is not a finite number";
    case NumberFault::NotWhole: return quoted + " is not a whole number";
    case NumberFault::OutOfRange: return quoted + " is out of range (" + range + ")";
    case NumberFault::None: break;
  }
  return quoted;
}

double checked_real(std::string_view text, const InputSite& at, double min, double max) {
  double out = 0;
  const NumberFault fault = read_real(text, out, min, max);
  if (fault != NumberFault::None) at.fail(number_refusal(fault, text, range_text(min, max)));
  return out;
}

}  // namespace pmixflow
