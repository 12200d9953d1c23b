// How much of a run the event log keeps (`--events`): every hop, or only the state that
// `pmixflow report`, `diff` and the viewer rebuild a run from.
#pragma once

#include <optional>
#include <string_view>

#include "pmixflow/log/sink.hpp"

namespace pmixflow::log {

enum class Level {
  All,    // every event, each message's send and receipt included
  State,  // all but `send` and `recv`: what happened, not each hop that carried it
  None,   // no log file
};

std::optional<Level> parse_level(std::string_view text);  // "all", "state", "none"
std::string_view level_name(Level level);
KindSet kinds_at(Level level);

}  // namespace pmixflow::log
