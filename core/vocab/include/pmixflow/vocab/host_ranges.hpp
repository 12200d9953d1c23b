// A long list of host names written short, as Slurm's host lists are: runs of names that
// differ only in a number of the same width become `prefix[first-last]` ("n[001-100],login").
// Used where a whole machine is written down (the log's header, summary.json).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmixflow {

// Names that cannot be written so (holding ',', '[' or ']') are refused with std::invalid_argument.
std::string compress_host_names(const std::vector<std::string>& names);
// The names again, in order. Throws InputError (naming `origin`) on a malformed list.
std::vector<std::string> expand_host_names(std::string_view text, std::string_view origin = "host names");

// Natural order, as people number hosts: node-2 before node-10, n002 with n2.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace pmixflow
