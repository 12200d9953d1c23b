// A long list of host names written short, as `scontrol show hostlist` writes them: runs of
// names that differ only in a consecutive number become `first-last` ranges, and runs next to
// each other with the same prefix share one bracket ("n[01-04,07],login"). A run goes on across
// a change of width where the range reads back the same: n01 .. n100 is "n[01-100]", as Slurm
// pads every number of a range to its first bound's width. Used where a whole machine is
// written down (the log's header, summary.json); expand_host_names reads it back name for name.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow {

// Names that cannot be written so (holding ',', '[' or ']') are refused with std::invalid_argument.
std::string compress_host_names(const std::vector<std::string>& names);

// At most this many names come out of one list: a machine has fewer nodes, and a typo such as
// n[0-99999999999] would exhaust memory before anything said so.
inline constexpr std::size_t kMaxListedHosts = std::size_t{1} << 20;

// Slurm's host-list syntax, the one reader of it (docs/hostlists.md): comma-separated entries,
// each a plain name or names with bracketed ranges, "n[01-08,12],login,gpu[1-2]". Numbers keep
// the width of a range's first bound as written (n[08-10]: n08 n09 n10; n[8-10]: n8 n9 n10);
// several brackets in one name multiply out, the first varying slowest
// (rack[1-2]-n[1-2]: rack1-n1 rack1-n2 rack2-n1 rack2-n2). Throws InputError naming `origin`,
// the entry and what is wrong with it.
std::vector<std::string> expand_host_names(std::string_view text, std::string_view origin = "host names");
// The entries of a list split at its commas, leaving those inside brackets: "n[1,3],m" is
// "n[1,3]" and "m". Entries are as written (not trimmed, possibly empty).
std::vector<std::string_view> split_host_list(std::string_view text);
// One entry (no comma outside brackets) expanded. `already` names counted before it in the same
// list, so that the whole list stays under kMaxListedHosts.
std::vector<std::string> expand_host_entry(std::string_view entry, std::string_view origin = "host names",
                                           std::size_t already = 0);

// Natural order, as people number hosts: node-2 before node-10, n002 with n2.
bool natural_less(std::string_view a, std::string_view b);
// Natural order made total, for sorting: names of the same number (n2, n002) by their text.
inline bool host_order(std::string_view a, std::string_view b) {
  return natural_less(a, b) || (!natural_less(b, a) && a < b);
}

}  // namespace pmixflow
