// Numbers read from text that people and files write. Every format (scenario files, SWF traces,
// PMIx values given as text, host lists and hostfiles, the event log, command-line options)
// reads its numbers here, so that each is checked against its field's range in one way: no
// silent wrap of an oversized integer, no NaN or infinity where a finite value is meant, and
// the same words for the same fault whatever the file.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

// The integer that is the whole of `text`, or nothing: std::from_chars alone stops at trailing
// junk ("4x" reads as 4) and leaves an empty text unreported. No '+', no spaces; a '-' only for
// signed types; a value out of Int's range is nothing too. (read_whole says why.)
template <std::integral Int>
std::optional<Int> parse_whole(std::string_view text) {
  Int value{};
  const char* const last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  if (text.empty() || ec != std::errc() || end != last) return std::nullopt;
  return value;
}

// Why a number was refused; None when it was not.
enum class NumberFault { None, NotANumber, NotFinite, NotWhole, OutOfRange };

// Seconds, wherever a duration or a time is read: what PMIx 4.2.2 carries in PMIX_ALLOC_TIME
// (a uint32 of seconds, about 136 years), so that every time an input gives can be written
// back as one, and simulated time never reaches where a double stops counting seconds.
inline constexpr double kMaxSeconds = 4294967295.0;

// The whole number `text` writes, in [min, max]: digits with an optional '-', or a decimal
// without a fraction ("4.0", "-1.00", "1e3"), as SWF writers and JSON allow. Digits too many
// for 64 bits, or a '-' where min is 0, are OutOfRange: never wrapped.
NumberFault read_whole(std::string_view text, std::int64_t& out, std::int64_t min, std::int64_t max);
NumberFault read_whole(std::string_view text, std::uint64_t& out, std::uint64_t min, std::uint64_t max);

// A finite decimal number in [min, max]: digits, a sign, a point and an exponent only. "nan"
// and "inf" are NotFinite; hexadecimal floats and trailing characters NotANumber; an overflow
// ("1e400") OutOfRange, an underflow zero.
NumberFault read_real(std::string_view text, double& out, double min, double max);

// "0 to 4294967295", and for reals "at least 0" when the top is a double's largest: plain
// numbers, as a user writes them.
std::string range_text(std::int64_t min, std::int64_t max);
std::string range_text(std::uint64_t min, std::uint64_t max);
std::string range_text(double min, double max);

// The sentence for a refused number: "'4294967297' is out of range (0 to 4294967295)",
// "'2.5' is not a whole number", "'nan' is not a finite number", "'x' is not a number". `text`
// is quoted as quote_value does.
std::string number_refusal(NumberFault fault, std::string_view text, const std::string& range);

// Any integer type, through the widest of its signedness.
template <std::integral Int>
NumberFault read_whole(std::string_view text, Int& out, Int min = std::numeric_limits<Int>::lowest(),
                       Int max = std::numeric_limits<Int>::max()) {
  using Wide = std::conditional_t<std::is_signed_v<Int>, std::int64_t, std::uint64_t>;
  Wide wide = 0;
  const NumberFault fault = read_whole(text, wide, static_cast<Wide>(min), static_cast<Wide>(max));
  if (fault == NumberFault::None) out = static_cast<Int>(wide);
  return fault;
}

template <std::integral Int>
std::string range_text(Int min, Int max) {
  using Wide = std::conditional_t<std::is_signed_v<Int>, std::int64_t, std::uint64_t>;
  return range_text(static_cast<Wide>(min), static_cast<Wide>(max));
}

// Where a value was read, for the InputError a refusal throws.
struct InputSite {
  std::string file;
  std::size_t line = 0;
  std::string field;
  [[noreturn]] void fail(const std::string& what) const { throw InputError(file, line, field, what); }
};

// The number, or InputError naming the site with number_refusal's sentence.
template <std::integral Int>
Int checked_whole(std::string_view text, const InputSite& at, Int min = std::numeric_limits<Int>::lowest(),
                  Int max = std::numeric_limits<Int>::max()) {
  Int out{};
  const NumberFault fault = read_whole(text, out, min, max);
  if (fault != NumberFault::None) at.fail(number_refusal(fault, text, range_text(min, max)));
  return out;
}

double checked_real(std::string_view text, const InputSite& at, double min, double max);

}  // namespace pmixflow
