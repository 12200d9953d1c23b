#include "pmixflow/vocab/hostlist.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/trim.hpp"

namespace pmixflow {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

bool is_host_name(std::string_view s) { return !s.empty() && std::ranges::all_of(s, is_name_char); }

// A count is plain digits from end to end, so that "4x" or "-1" is caught rather than
// silently truncated.
std::optional<std::uint32_t> parse_uint(std::string_view s) { return parse_whole<std::uint32_t>(s); }

// Where an error is reported: a list has no lines (line 0), a hostfile does.
struct Where {
  std::string file;
  std::size_t line = 0;
};

// The field is the entry as written, which may be as long as the line: cut as a value is.
[[noreturn]] void fail(const Where& at, std::string_view field, const std::string& what) {
  throw InputError(at.file, at.line, cut_value(field), what);
}

std::uint32_t positive_count(std::string_view digits, std::string_view field, const Where& at) {
  std::uint32_t n = 0;
  const NumberFault fault = read_whole(digits, n, 1u, UINT32_MAX);
  if (fault != NumberFault::None)
    fail(at, field,
         number_refusal(fault, digits, range_text<std::uint32_t>(1, UINT32_MAX)) +
             ": a slot count is a positive integer");
  return n;
}

std::string checked_name(std::string_view name, std::string_view field, const Where& at) {
  if (!is_host_name(name))
    fail(at, field, quote_value(field) + " is not a valid host name (letters, digits, '-', '_', '.')");
  return std::string(name);
}

// A name as written, expanded as Slurm expands it (the field names the whole entry).
std::vector<std::string> expanded(std::string_view names, std::string_view field, const Where& at,
                                  std::size_t already) {
  try {
    return expand_host_entry(names, at.file, already);
  } catch (const InputError& e) {
    fail(at, field, e.detail());
  }
}

// `name` or `name:N`, shared by lists and hostfiles so both refuse `:N` for an activation alike.
// The name may be a Slurm range: it expands before the count applies, to each host it names
// (n[01-02]:4 is n01:4,n02:4).
void parse_named(std::string_view entry, HostUse use, const Where& at, std::vector<HostEntry>& out) {
  const auto colon = entry.find(':');
  std::optional<std::uint32_t> slots;
  if (colon != std::string_view::npos) {
    if (use == HostUse::Activate)
      fail(at, entry,
           quote_value(entry) + ": activation cannot change slot counts, so ':N' is refused; name the node alone");
    slots = positive_count(entry.substr(colon + 1), entry, at);
  }
  for (const auto& name : expanded(entry.substr(0, colon), entry, at, out.size()))
    out.push_back(HostEntry{checked_name(name, entry, at), slots});
}

void parse_empty_nodes(std::string_view entry, HostUse use, HostSpec& spec, const Where& at) {
  if (use == HostUse::Activate)
    fail(at, entry,
         quote_value(entry) +
             " is refused for an activation: +e would pick nodes already in the DVM and start "
             "nothing");
  if (use == HostUse::NodeList) fail(at, entry, quote_value(entry) + " is not allowed in a node list (names only)");
  spec.empty = true;
  if (entry.size() == 2) return;
  if (entry[2] != ':') fail(at, entry, "unknown host form " + quote_value(entry));
  const auto n = parse_uint(entry.substr(3));
  if (!n || *n == 0) fail(at, entry, quote_value(entry) + ": +e:N needs a positive number of empty nodes");
  spec.empty_count = *n;
}

// The `+...` forms select allocated nodes by position rather than by name; a node list names
// concrete nodes for a session, so none of them apply there.
void parse_plus(std::string_view entry, HostUse use, HostSpec& spec, const Where& at) {
  if (entry.starts_with("+e")) return parse_empty_nodes(entry, use, spec, at);
  if (use == HostUse::NodeList) fail(at, entry, quote_value(entry) + " is not allowed in a node list (names only)");
  if (entry == "+all") {
    spec.all = true;
    return;
  }
  if (entry.starts_with("+n")) {
    const auto k = parse_uint(entry.substr(2));
    if (!k) fail(at, entry, quote_value(entry) + ": +nK needs a non-negative integer index K");
    spec.relative.push_back(*k);
    return;
  }
  fail(at, entry, "unknown host form " + quote_value(entry) + " (expected +all, +nK, +e or +e:N)");
}

std::string resolve_path(std::string_view path, const std::string& base_dir) {
  const std::filesystem::path p{path};
  if (base_dir.empty() || p.is_absolute()) return p.string();
  return (std::filesystem::path(base_dir) / p).string();
}

void parse_file_entry(std::string_view entry, HostUse use, const std::string& base_dir, HostSpec& spec,
                      const Where& at) {
  if (use == HostUse::NodeList) fail(at, entry, quote_value(entry) + " is not allowed in a node list (names only)");
  const auto path = trim(entry.substr(5));
  if (path.empty()) fail(at, entry, "'file=' needs a path");
  merge_host_specs(spec, with_own_exclusions(parse_hostfile(resolve_path(path, base_dir), use)));
}

void parse_list_entry(std::string_view entry, HostUse use, const std::string& base_dir, HostSpec& spec,
                      const Where& at) {
  if (entry.starts_with('+')) return parse_plus(entry, use, spec, at);
  if (entry.starts_with("file=")) return parse_file_entry(entry, use, base_dir, spec, at);
  parse_named(entry, use, at, spec.hosts);
}

// One hostfile line, comment already stripped and known non-blank. Its first word may name
// several hosts (n[01-04] slots=4): each gets the line's slot count.
void parse_hostfile_line(std::string_view line, HostUse use, HostSpec& spec, const Where& at) {
  std::istringstream tokens{std::string(line)};
  std::string first;
  tokens >> first;
  if (first.starts_with('^')) {
    if (use == HostUse::NodeList) fail(at, first, "'^' exclusions are not allowed in a node list (names only)");
    for (const auto& name : expanded(std::string_view(first).substr(1), first, at, spec.excluded.size()))
      spec.excluded.push_back(checked_name(name, first, at));
    if (std::string extra; tokens >> extra) fail(at, extra, "unexpected " + quote_value(extra) + " after an exclusion");
    return;
  }
  const std::size_t named_from = spec.hosts.size();
  parse_named(first, use, at, spec.hosts);
  std::optional<std::uint32_t> slots = spec.hosts[named_from].slots;
  for (std::string token; tokens >> token;) {
    const std::string_view t = token;
    if (t.starts_with("slots=")) {
      if (slots) fail(at, t, "slot count given twice for " + quote_value(first));
      slots = positive_count(t.substr(6), t, at);
    } else if (t.starts_with("max_slots=")) {
      positive_count(t.substr(10), t, at);  // validated for typos, but no use here
    } else {
      fail(at, t, "unknown token " + quote_value(token) + " (expected slots=N or max_slots=N)");
    }
  }
  // An activation starts daemons on nodes it already holds; their slot counts are fixed, so a
  // hostfile shared with --hostfile may carry slots= and they are simply not used.
  for (auto host = spec.hosts.begin() + static_cast<std::ptrdiff_t>(named_from); host != spec.hosts.end(); ++host) {
    host->slots = use == HostUse::Activate ? std::nullopt : slots;
    host->line = at.line;
  }
}

}  // namespace

HostSpec parse_host_list(std::string_view text, HostUse use, std::string_view origin, const std::string& base_dir) {
  const Where at{std::string(origin), 0};
  HostSpec spec;
  // Commas inside brackets belong to a range (n[01-08,12]), not to the list.
  for (const auto raw : split_host_list(text)) {
    const auto entry = trim(raw);
    if (entry.empty()) fail(at, "", "empty entry in host list " + quote_value(text));
    parse_list_entry(entry, use, base_dir, spec, at);
  }
  return spec;
}

HostSpec parse_hostfile(const std::string& path, HostUse use) {
  if (std::filesystem::is_directory(path))
    throw InputError(path, 0, "", "cannot read hostfile " + quote_value(path) + ": it is a directory");
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot read hostfile " + quote_value(path));
  HostSpec spec;
  Where at{path, 0};
  for (std::string raw; std::getline(in, raw);) {
    ++at.line;
    std::string_view line = raw;
    line = trim(line.substr(0, line.find('#')));
    if (!line.empty()) parse_hostfile_line(line, use, spec, at);
  }
  if (in.bad()) throw InputError(path, at.line, "", "error while reading hostfile " + quote_value(path));
  return spec;
}

HostSpec with_own_exclusions(HostSpec file) {
  if (file.excluded.empty()) return file;
  const std::unordered_set<std::string> gone(file.excluded.begin(), file.excluded.end());
  std::erase_if(file.hosts, [&](const HostEntry& host) { return gone.contains(host.name); });
  file.excluded.clear();
  return file;
}

void merge_host_specs(HostSpec& into, const HostSpec& more) {
  into.hosts.insert(into.hosts.end(), more.hosts.begin(), more.hosts.end());
  into.relative.insert(into.relative.end(), more.relative.begin(), more.relative.end());
  into.excluded.insert(into.excluded.end(), more.excluded.begin(), more.excluded.end());
  into.all = into.all || more.all;
  into.empty = into.empty || more.empty;
  if (more.empty_count) into.empty_count = more.empty_count;
}

std::vector<std::string> resolve_hosts(const HostSpec& spec, const std::vector<std::string>& allocated,
                                       std::string_view origin) {
  // Only a list that names hosts needs the allocation's names as a set.
  std::unordered_set<std::string> in_allocation;
  if (!spec.hosts.empty()) in_allocation.insert(allocated.begin(), allocated.end());
  std::vector<std::string> picked;
  std::unordered_set<std::string> seen;
  const auto pick = [&](const std::string& name) {
    if (seen.insert(name).second) picked.push_back(name);
  };

  for (const auto& host : spec.hosts) {
    if (!in_allocation.contains(host.name))
      throw InputError(std::string(origin), 0, host.name,
                       "node " + quote_value(host.name) + " is not in the allocation");
    pick(host.name);
  }
  for (const auto k : spec.relative) {
    if (k >= allocated.size()) {
      const auto n = std::to_string(allocated.size());
      const std::string range =
          allocated.empty() ? "there is none" : "+n0 to +n" + std::to_string(allocated.size() - 1);
      throw InputError(std::string(origin), 0, "+n" + std::to_string(k),
                       "+n" + std::to_string(k) + " is out of range: the allocation has " + n +
                           " node(s), counted from zero (" + range + ")");
    }
    pick(allocated[k]);
  }
  if (spec.all)
    for (const auto& name : allocated) pick(name);

  if (!spec.excluded.empty()) {
    const std::unordered_set<std::string> excluded(spec.excluded.begin(), spec.excluded.end());
    std::erase_if(picked, [&](const std::string& name) { return excluded.contains(name); });
  }
  return picked;
}

std::string format_host_list(const std::vector<HostEntry>& hosts) {
  std::string out;
  for (const auto& host : hosts) {
    if (!out.empty()) out += ',';
    out += host.name;
    if (host.slots) out += ':' + std::to_string(*host.slots);
  }
  return out;
}

}  // namespace pmixflow
