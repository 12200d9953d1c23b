// The network cost of a message, for the simulated network: a fixed header plus the packed
// payload (pmix_info_t packing: key, type tag, payload), so that big requests cost more.
// The emulator's messages cost what they really cost; only the simulator needs a model.
#pragma once

#include <cstdint>
#include <span>

#include "pmixflow/proto/messages.hpp"

namespace pmixflow::sim {

std::uint64_t wire_size(const Message& m);
std::uint64_t wire_size(const InfoList& info);
std::uint64_t wire_size(const Value& v);
std::uint64_t wire_size(std::span<const App> apps);  // as a Value holding them

}  // namespace pmixflow::sim
