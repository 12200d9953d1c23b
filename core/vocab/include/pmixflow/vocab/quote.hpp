// Values quoted in messages. An input can hold anything - a megabyte on one line, control
// characters, bytes that are not UTF-8 - and a message quoting it must stay one readable line:
// every message that quotes a value quotes it through here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pmixflow {

// How many characters of a value a message shows.
inline constexpr std::size_t kQuotedChars = 80;

// The value between single quotes: at most kQuotedChars characters of it, then
// "…(N bytes)" with the whole value's size; control characters and bytes that are not UTF-8
// written \xNN.
std::string quote_value(std::string_view value);

// The same without the quotes, for text that carries its own (a JSON value as written).
std::string cut_value(std::string_view value);

}  // namespace pmixflow
