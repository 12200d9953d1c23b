// JSON inputs: every JSON text pmixflow is given (scenario lines, PMIx values written as JSON
// on a command line, the event log's header, a summary.json read by `pmixflow diff`) is parsed
// through here, so that each is bounded and checked alike before nlohmann sees it: nesting no
// deeper than kMaxJsonDepth (a hundred thousand '[' would overflow the stack of every recursive
// walk of the value after), strings in UTF-8, and parse errors with the file, line and field
// instead of nlohmann's exception text. Numbers in a parsed value are read with json_whole and
// json_real, against their field's range.
//
// Header-only over nlohmann (whose JSON type, ordered or not, is the caller's): the vocabulary
// library itself stays free of it (its part is json_check.hpp).
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/json_check.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow {

// The JSON value `text` holds, or InputError naming `at` (its field prefixed to the member at
// fault).
template <class Json = nlohmann::json>
Json parse_json_input(std::string_view text, const InputSite& at) {
  if (auto problem = json_text_problem(text))
    throw InputError(at.file, at.line, join_field(at.field, problem->field), problem->what);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    at.fail("not valid JSON: " + json_error_text(e.what()));
  }
}

// A whole number in [min, max] held by a JSON value: 4, or 4.0 (JSON does not tell them apart
// for people). A string, a bool or anything else is NotANumber.
template <std::integral Int, class Json>
NumberFault json_whole(const Json& v, Int& out, Int min, Int max) {
  const auto fits = [&](auto x) {
    if (std::cmp_less(x, min) || std::cmp_greater(x, max)) return NumberFault::OutOfRange;
    out = static_cast<Int>(x);
    return NumberFault::None;
  };
  if (v.is_number_unsigned()) return fits(v.template get<std::uint64_t>());
  if (v.is_number_integer()) return fits(v.template get<std::int64_t>());
  if (!v.is_number_float()) return NumberFault::NotANumber;
  const double d = v.template get<double>();
  if (!std::isfinite(d)) return NumberFault::NotFinite;
  if (d != std::trunc(d)) return NumberFault::NotWhole;
  // long double holds every 64-bit integer exactly, so the bounds are compared as they are.
  const long double x = d;
  if (x < static_cast<long double>(min) || x > static_cast<long double>(max)) return NumberFault::OutOfRange;
  out = static_cast<Int>(d);
  return NumberFault::None;
}

template <class Json>
NumberFault json_real(const Json& v, double& out, double min, double max) {
  if (!v.is_number()) return NumberFault::NotANumber;
  const double d = v.template get<double>();
  if (!std::isfinite(d)) return NumberFault::NotFinite;
  if (d < min || d > max) return NumberFault::OutOfRange;
  out = d;
  return NumberFault::None;
}

// The sentence for a JSON value refused as a number of `range`: "expects a whole number (0 to
// 4294967295), got "4"", "'4294967297' is out of range (0 to 4294967295)".
template <class Json>
std::string json_number_refusal(NumberFault fault, const Json& v, const std::string& range, bool whole) {
  if (fault == NumberFault::NotANumber)
    return std::string(whole ? "expects a whole number" : "expects a number") + " (" + range + "), got " +
           cut_value(v.dump());
  return number_refusal(fault, v.dump(), range);
}

// The number, or InputError naming `at`.
template <std::integral Int, class Json>
Int checked_json_whole(const Json& v, const InputSite& at, Int min = std::numeric_limits<Int>::lowest(),
                       Int max = std::numeric_limits<Int>::max()) {
  Int out{};
  const NumberFault fault = json_whole(v, out, min, max);
  if (fault != NumberFault::None) at.fail(json_number_refusal(fault, v, range_text(min, max), true));
  return out;
}

template <class Json>
double checked_json_real(const Json& v, const InputSite& at, double min, double max) {
  double out = 0;
  const NumberFault fault = json_real(v, out, min, max);
  if (fault != NumberFault::None) at.fail(json_number_refusal(fault, v, range_text(min, max), false));
  return out;
}

// A copy whose strings and keys are UTF-8, as utf8_from_bytes makes them.
template <class Json>
Json with_utf8_strings(const Json& j) {
  if (j.is_string()) return Json(utf8_from_bytes(j.template get_ref<const typename Json::string_t&>()));
  if (!j.is_structured()) return j;
  Json out = j.is_array() ? Json::array() : Json::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (j.is_array())
      out.push_back(with_utf8_strings(*it));
    else
      out[utf8_from_bytes(it.key())] = with_utf8_strings(*it);
  }
  return out;
}

// The value's text for an output, never throwing on a string that is not UTF-8 (a file name,
// say, which Linux does not require to be): such a string is written as utf8_from_bytes has it.
template <class Json>
std::string dump_utf8(const Json& j, int indent = -1) {
  try {
    return j.dump(indent);
  } catch (const nlohmann::json::type_error&) {
    return with_utf8_strings(j).dump(indent);
  }
}

}  // namespace pmixflow
