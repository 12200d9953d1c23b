// Node shapes from hwloc XML topologies, read with hwloc's own API.
#pragma once

#include <string>

namespace pmixflow::sim {

enum class SlotUnit { Cores, Pus };

struct NodeShape {
  std::string source;  // the XML file it came from ("" for the built-in default)
  unsigned packages = 0;
  unsigned numa_nodes = 0;
  unsigned cores = 0;
  unsigned pus = 0;
  unsigned slots = 0;  // cores or PUs, as the SlotUnit says
};

// Loads `path` with hwloc_topology_set_xml. Throws pmixflow::InputError naming the file on
// a missing or unreadable file or a topology with no cores.
NodeShape load_topology(const std::string& path, SlotUnit unit);

}  // namespace pmixflow::sim
