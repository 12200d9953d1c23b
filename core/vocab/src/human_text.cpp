#include "pmixflow/vocab/human_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pmixflow {
namespace {

// %.3g writes no exponent below 1000, and callers change unit before that.
std::string three_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

// `1 h 47 min`; the smaller unit left out when it rounds to nothing (`12 min`, not `12 min 0 s`).
std::string two_units(long long big, std::string_view big_unit, long long small, std::string_view small_unit) {
  std::string out = grouped(static_cast<std::uint64_t>(big)) + " " + std::string(big_unit);
  if (small > 0) out += " " + std::to_string(small) + " " + std::string(small_unit);
  return out;
}

// Each unit is left for the next one up where three digits would round to 1000 of it.
std::string below_a_second(double s) {
  if (s >= 0.9995e-3) return three_digits(s * 1e3) + " ms";
  if (s >= 0.9995e-6) return three_digits(s * 1e6) + " µs";
  return three_digits(s * 1e9) + " ns";
}

void strip_trailing_zeros(std::string& number) {
  if (number.find('.') == std::string::npos) return;
  while (number.back() == '0') number.pop_back();
  if (number.back() == '.') number.pop_back();
}

}  // namespace

std::string human_duration(double seconds) {
  if (!std::isfinite(seconds)) return std::to_string(seconds) + " s";
  if (seconds < 0) return "-" + human_duration(-seconds);
  if (seconds == 0) return "0 s";
  if (seconds < 0.9995) return below_a_second(seconds);
  if (seconds < 9.95) {
    char text[16];
    std::snprintf(text, sizeof text, "%.1f", seconds);
    std::string out = text;
    strip_trailing_zeros(out);
    return out + " s";
  }
  constexpr double kMinute = 60, kHour = 3600, kDay = 86400;
  // Beyond what a long long of hours holds nobody reads the hours.
  if (seconds > 1e15) return significant(seconds / kDay) + " d";
  // Rounded to the smaller unit first, so that 59.7 s is `1 min`, not `60 s`.
  if (const long long s = std::llround(seconds); s < 60) return std::to_string(s) + " s";
  if (const long long s = std::llround(seconds); s < 3600) return two_units(s / 60, "min", s % 60, "s");
  if (const long long m = std::llround(seconds / kMinute); m < 24 * 60) return two_units(m / 60, "h", m % 60, "min");
  const long long h = std::llround(seconds / kHour);
  return two_units(h / 24, "d", h % 24, "h");
}

std::string grouped(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string counted(std::uint64_t n, std::string_view singular, std::string_view plural) {
  std::string noun(singular);
  if (n != 1) noun = plural.empty() ? noun + "s" : std::string(plural);
  return grouped(n) + " " + noun;
}

std::string significant(double value, int digits) {
  if (!std::isfinite(value)) return std::to_string(value);
  if (value == 0) return "0";
  if (std::abs(value) >= 1e18) {  // past what a whole part of 64 bits groups
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    return text;
  }
  const double magnitude = std::floor(std::log10(std::abs(value)));
  // Capped: a value too small to show in 15 decimals is shown as 0.
  const int decimals = std::clamp(digits - 1 - static_cast<int>(magnitude), 0, 15);
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, std::abs(value));
  std::string number = text;
  strip_trailing_zeros(number);
  const std::size_t point = std::min(number.find('.'), number.size());
  std::string out = grouped(std::stoull(number.substr(0, point))) + number.substr(point);
  return value < 0 && out != "0" ? "-" + out : out;
}

}  // namespace pmixflow
