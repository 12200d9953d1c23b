// The host-list syntax shared by --host, --hostfile and PMIX_ALLOC_ACTIVATE (PMIX_HOST /
// PMIX_HOSTFILE), as PRRTE reads it. One parser, several uses: each use refuses what it
// must (an activation cannot change slot counts, so `:N` and `+e` are refused there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

enum class HostUse {
  Host,      // --host at DVM start-up: names, `name:N` slot counts, +nK, +all, +e[:N], file=PATH
  Activate,  // PMIX_ALLOC_ACTIVATE: names, +nK, +all, file=PATH; `:N` and `+e` refused
  NodeList,  // PMIX_ALLOC_NODE_LIST of a session: names with optional `:N` slots only
};

struct HostEntry {
  std::string name;
  std::optional<std::uint32_t> slots;  // from `name:N` or a hostfile's `slots=N`
  std::size_t line = 0;                // the hostfile line that named it; 0 in a list
  // Where a host was named is not what it names: the same host from a list and from a file.
  bool operator==(const HostEntry& other) const { return name == other.name && slots == other.slots; }
};

struct HostSpec {
  std::vector<HostEntry> hosts;              // named hosts, in the order given, files expanded in place
  bool all = false;                          // +all
  std::vector<std::uint32_t> relative;       // +nK, in the order given
  bool empty = false;                        // +e (Host use only)
  std::optional<std::uint32_t> empty_count;  // +e:N
  std::vector<std::string> excluded;         // `^host` lines of a hostfile
  bool operator==(const HostSpec&) const = default;
};

// Parses a comma-separated list. A name may be a Slurm range (n[01-04], expanded by
// expand_host_entry; a `:N` after it applies to each host). `file=PATH` entries are read as
// hostfiles (relative paths against `base_dir`). Throws InputError naming `origin` (or the
// hostfile and its line).
HostSpec parse_host_list(std::string_view text, HostUse use, std::string_view origin = "host list",
                         const std::string& base_dir = "");

// Parses a hostfile: one host (or one Slurm range of hosts) per line, `slots=N` /
// `max_slots=N` after it, `#` comments, blank lines, `^host` exclusions. For Activate, slots
// are read and ignored.
HostSpec parse_hostfile(const std::string& path, HostUse use);

// A hostfile's `^host` lines applied to that file's own hosts, and gone: as PRRTE's
// prte_util_add_hostfile_nodes() reads a file, they never drop a host that another entry of a
// list, or another file, names (docs/prrte-conformance.md R62).
HostSpec with_own_exclusions(HostSpec file);

// Merges `more` into `into` (a PMIX_HOST list plus a PMIX_HOSTFILE).
void merge_host_specs(HostSpec& into, const HostSpec& more);

// The host names a spec selects out of the ordered allocated nodes: named hosts, +nK (from
// zero), +all (every allocated node), minus exclusions; each name once, in first-mention
// order. A named host or +nK outside `allocated` throws InputError. `+e` is not resolved
// here (it depends on the DVM); callers that accept it handle `empty` themselves.
std::vector<std::string> resolve_hosts(const HostSpec& spec, const std::vector<std::string>& allocated,
                                       std::string_view origin = "host list");

// Writes a node list back in the `name:N,name:N` form (slots omitted where absent).
std::string format_host_list(const std::vector<HostEntry>& hosts);

}  // namespace pmixflow
