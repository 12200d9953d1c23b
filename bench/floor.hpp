// The SimGrid floor every benchmark compares against, measured in the same run: the cheapest
// plain s4u exchange of as many messages (pingpong.cpp), timed as a whole process and as its
// simulation loop alone.
#pragma once

#include <cstdint>
#include <filesystem>

#include "measure.hpp"

namespace pmixflow::bench {

struct Floor {
  ProcessCost process;
  double loop_s = 0;  // engine.run() alone
  bool ok() const { return process.exit_status == 0 && loop_s > 0; }
};

Floor pingpong_floor(std::uint64_t messages, const std::filesystem::path& scratch);

}  // namespace pmixflow::bench
