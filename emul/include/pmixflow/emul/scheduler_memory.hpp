// The scheduler's saved state (roles/scheduler.hpp, SchedulerMemory) on disk: a restarted
// scheduler process takes back the allocations its earlier life granted, as the simulator's
// scheduler keeps them in its object. Written by the scheduler's process as it goes (at most every
// few tens of milliseconds, and as it stops), in the emulation's private directory.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pmixflow/roles/scheduler.hpp"

namespace pmixflow::emul {

std::string encode_memory(const SchedulerMemory& memory);
// Throws WireError on bytes encode_memory did not write.
SchedulerMemory decode_memory(std::string_view bytes);

// The file, replaced whole (written beside it, then renamed); nullopt when there is none.
void save_memory(const std::string& path, const std::string& bytes);
std::optional<std::string> load_memory(const std::string& path);

}  // namespace pmixflow::emul
