// PMIX_ALLOC_TIME: `months:days:hours:minutes:seconds`, read from the right ("2" is two
// seconds, "1:00:00" one hour). A month counts as 30 days.
#pragma once

#include <string>
#include <string_view>

namespace pmixflow {

// Seconds; throws InputError (field "PMIX_ALLOC_TIME", origin as file) on anything else:
// empty fields, signs, non-digits, more than five fields, more than kMaxSeconds (numbers.hpp:
// what 4.2.2's uint32 of seconds carries).
double parse_alloc_time(std::string_view text, std::string_view origin = "PMIX_ALLOC_TIME");

// The shortest `days:hh:mm:ss` spelling of a whole number of seconds ("90" -> "1:30"); months
// are never written. Fractions are rounded; a negative or non-finite value is a caller bug
// and throws std::invalid_argument. Round-trips through parse_alloc_time.
std::string format_alloc_time(double seconds);

}  // namespace pmixflow
