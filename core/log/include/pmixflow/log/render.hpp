// Events as lines of JSON, the log's format: {"t":T,"ev":KIND,"who":PARTY,...fields}, fields
// in the catalogue's order, absent ones left out; numbers in their shortest round-trip
// spelling, so that the same run always writes the same bytes.
#pragma once

#include <string>

#include "pmixflow/log/record.hpp"

namespace pmixflow::log {

// Appends the whole line, newline included.
void render_line(std::string& out, const EventView& e);
// Appends only the fields: `,"key":value` for each one present.
void render_fields(std::string& out, const EventView& e);

}  // namespace pmixflow::log
