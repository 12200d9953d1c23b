// A hash for std::string keys that a string_view can look up without making a string: the
// readers look up every event's ids by the views the log reader hands them.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace pmixflow {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace pmixflow
