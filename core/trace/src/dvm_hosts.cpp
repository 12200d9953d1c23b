#include "pmixflow/trace/dvm_hosts.hpp"

#include <algorithm>
#include <optional>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/near_miss.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow {
namespace {

// Where a host list came from, so that each error names it as the user wrote it.
struct ListSource {
  std::string file;          // the scenario, the hostfile, or "--host"
  std::size_t line = 0;      // the scenario's header line
  std::string field;         // "controller.dvm"; empty: the entry at fault is the field
  std::string given;         // " (--hostfile)": a hostfile's error names the option as well
  bool entry_lines = false;  // `file` is the hostfile whose lines the entries name

  [[noreturn]] void fail(std::size_t entry_line, const std::string& entry, const std::string& what) const {
    throw InputError(file, entry_lines ? entry_line : line, field.empty() ? entry : field, what + given);
  }
};

// The node a mistyped name most likely meant: the same number written with other zeros (n001
// for n01, as machines of other sizes name them), else a name one or two edits away.
std::optional<std::string> nearest(const std::string& name, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (!natural_less(n, name) && !natural_less(name, n)) return n;
  if (auto near = nearest_word(name, names); !near.empty()) return near;
  return std::nullopt;
}

std::string unknown_node(const std::string& name, const Cluster& cluster) {
  const auto names = cluster.schedulable_names();
  std::string what = "no compute node " + quote_value(name) + " on this machine";
  if (cluster.find(name) == Cluster::kHead)
    what = quote_value(name) + " is the head node: the controller runs there and is always in the DVM";
  else if (const auto near = nearest(name, names))
    what += " (did you mean " + *near + "?)";
  return what + "; its compute nodes are " + cut_value(compress_host_names(names));
}

// A slot count is the node's own or refused: the machine (its topology, --slots) decides slots.
void check_slots(const HostEntry& host, const Node& node, const ListSource& from) {
  if (!host.slots || *host.slots == node.slots) return;
  from.fail(host.line, host.name,
            quote_value(host.name + ":" + std::to_string(*host.slots)) + ": " + host.name + " has " +
                std::to_string(node.slots) +
                " slots on this machine (its topology and --slots say so); a slot count here must be that "
                "number or left out");
}

// Every name of the list a compute node of the machine, with its own slots; `+e` refused.
void check_names(const HostSpec& spec, const Cluster& cluster, const ListSource& from) {
  if (spec.empty)
    from.fail(0, "+e",
              "'+e' picks the nodes a running DVM leaves empty, and at start-up there is none: name the "
              "nodes (n01,n[02-04]), or use +nK or +all");
  for (const auto& host : spec.hosts) {
    const auto id = cluster.find(host.name);
    if (!id || !cluster.node(*id).schedulable) from.fail(host.line, host.name, unknown_node(host.name, cluster));
    check_slots(host, cluster.node(*id), from);
  }
  for (const auto& name : spec.excluded)
    if (!cluster.find(name)) from.fail(0, "^" + name, unknown_node(name, cluster));
}

std::vector<NodeId> chosen_nodes(const HostSpec& spec, const Cluster& cluster, const ListSource& from) {
  check_names(spec, cluster, from);
  std::vector<std::string> chosen;
  try {
    chosen = resolve_hosts(spec, cluster.schedulable_names(), from.field.empty() ? from.file : from.field);
  } catch (const InputError& e) {
    from.fail(0, e.field(), e.detail());
  }
  std::vector<NodeId> out;
  for (const auto& n : chosen) out.push_back(*cluster.find(n));
  return out;
}

HostSpec host_option(const RunInputs& in) {
  try {
    return parse_host_list(in.dvm_host, HostUse::Host, "--host");
  } catch (const InputError& e) {
    // A file=PATH entry's error names its file and line; the list's own, the option.
    throw InputError(e.file(), e.line(), e.field(), e.detail() + (e.file() == "--host" ? "" : " (--host)"));
  }
}

std::vector<NodeId> hostfile_nodes(const RunInputs& in, const Cluster& cluster) {
  const ListSource from{in.dvm_hostfile, 0, "", " (--hostfile)", true};
  HostSpec spec;
  try {
    spec = parse_hostfile(in.dvm_hostfile, HostUse::Host);
  } catch (const InputError& e) {
    throw InputError(e.file(), e.line(), e.field(), e.detail() + from.given);
  }
  return chosen_nodes(spec, cluster, from);
}

// Both options, as prte reads them: the hostfile's hosts, filtered by --host (whose +nK and
// +all then count the file's hosts). A host of --host that the file does not list is refused.
std::vector<NodeId> filtered_by_host(const RunInputs& in, const Cluster& cluster) {
  const auto in_file = hostfile_nodes(in, cluster);
  const HostSpec spec = host_option(in);
  check_names(spec, cluster, ListSource{"--host", 0, "", "", false});
  std::vector<std::string> file_names;
  for (const auto id : in_file) file_names.push_back(cluster.node(id).name);
  const std::string among = ": with --hostfile, --host picks among the file's hosts, as prte's does (" +
                            in.dvm_hostfile + " lists " + cut_value(compress_host_names(file_names)) + ")";
  for (const auto& host : spec.hosts)
    if (std::find(file_names.begin(), file_names.end(), host.name) == file_names.end())
      throw InputError("--host", 0, host.name, quote_value(host.name) + " is not in the hostfile" + among);
  std::vector<std::string> chosen;
  try {
    chosen = resolve_hosts(spec, file_names, "--host");
  } catch (const InputError& e) {
    throw InputError("--host", 0, e.field(), e.detail() + among);
  }
  std::vector<NodeId> out;
  for (const auto& n : chosen) out.push_back(*cluster.find(n));
  return out;
}

std::vector<NodeId> from_command_line(const RunInputs& in, const Cluster& cluster) {
  if (!in.dvm_host.empty() && !in.dvm_hostfile.empty()) return filtered_by_host(in, cluster);
  if (!in.dvm_host.empty()) return chosen_nodes(host_option(in), cluster, ListSource{"--host", 0, "", "", false});
  return hostfile_nodes(in, cluster);
}

}  // namespace

std::vector<NodeId> initial_dvm(const Scenario& sc, const RunInputs& in, const Cluster& cluster) {
  if (!in.dvm_host.empty() || !in.dvm_hostfile.empty()) return from_command_line(in, cluster);
  if (sc.dvm == "head") return {};
  const ListSource from{sc.origin, 1, "controller.dvm", "", false};
  if (sc.dvm == "all") {
    HostSpec every;
    every.all = true;
    return chosen_nodes(every, cluster, from);
  }
  HostSpec spec;
  try {
    spec = parse_host_list(sc.dvm, HostUse::Host, "controller.dvm");
  } catch (const InputError& e) {
    from.fail(0, "", e.detail());
  }
  return chosen_nodes(spec, cluster, from);
}

}  // namespace pmixflow
