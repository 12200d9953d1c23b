// The catalogue for people: the reference part of docs/events.md is this text, generated from
// fields.def and events.def (`pmixflow events --markdown`), so that the page can never say
// other than what the log holds. A test compares the two.
#pragma once

#include <string>

namespace pmixflow::log {

// Markdown: every kind with its fields, then every field with the kinds that carry it.
std::string reference_markdown();
// Plain text for a terminal: one line per kind.
std::string reference_text();

}  // namespace pmixflow::log
