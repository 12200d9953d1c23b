// Events as lines of JSON, the log's format: {"t":T,"ev":KIND,"who":PARTY,...fields}, fields
// in the catalogue's order, absent ones left out; numbers in their shortest round-trip
// spelling, so that the same run always writes the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "pmixflow/log/record.hpp"

namespace pmixflow::log {

// Appends the whole line, newline included.
void render_line(std::string& out, const EventView& e);
// Appends the line's start, `{"t":T,"ev":KIND,"who":PARTY`, without closing it; T is
// `t_text` when given (the time rendered already).
void render_envelope(std::string& out, const EventView& e, std::string_view t_text = {});
// Appends only the fields, those of catalogue positions [first, last): `,"key":value` for
// each one present.
void render_fields(std::string& out, const EventView& e, std::size_t first = 0,
                   std::size_t last = std::numeric_limits<std::size_t>::max());
// Appends `,"key":v`.
void render_uint_field(std::string& out, Field f, std::uint64_t v);

}  // namespace pmixflow::log
