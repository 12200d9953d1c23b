#include "pmixflow/log/level.hpp"

namespace pmixflow::log {

std::optional<Level> parse_level(std::string_view text) {
  if (text == "all") return Level::All;
  if (text == "state") return Level::State;
  if (text == "none") return Level::None;
  return std::nullopt;
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::All: return "all";
    case Level::State: return "state";
    case Level::None: return "none";
  }
  return "all";
}

KindSet kinds_at(Level level) {
  switch (level) {
    case Level::All: return all_kinds_set();
    case Level::State: return all_kinds_set() & ~kind_set({EventKind::Send, EventKind::Recv});
    case Level::None: return {};
  }
  return all_kinds_set();
}

}  // namespace pmixflow::log
