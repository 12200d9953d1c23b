// Batsim's interval sets of resource ids: "0-3 7 9-12", ids in increasing order, runs of
// consecutive ids joined by '-', separated by spaces (what jobs.csv's allocated_resources
// holds and evalys reads).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow {

// From resource ids in any order, duplicates allowed.
std::string interval_set(std::vector<std::uint32_t> ids);

// How many ids an interval set holds. Throws InputError on text that is not one.
std::uint64_t interval_set_size(std::string_view set);

}  // namespace pmixflow
