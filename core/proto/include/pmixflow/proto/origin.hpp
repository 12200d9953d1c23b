// Who waits for an answer: the party that called, its own handle of the call (echoed in the
// answer), and the user request the call serves. Every role that answers later keeps one.
#pragma once

#include <cstdint>
#include <string>

#include "pmixflow/proto/messages.hpp"

namespace pmixflow {

struct Origin {
  Address address;
  std::uint64_t id = 0;
  std::string corr;
};

}  // namespace pmixflow
