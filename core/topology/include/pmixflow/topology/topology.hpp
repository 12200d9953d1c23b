// Node shapes from hwloc XML topologies, read with hwloc's own API: what every compute node of
// a run offers, in the simulator and the emulator alike.
#pragma once

#include <optional>
#include <string>

namespace pmixflow {

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

// The shape of the shipped topologies/small-node.xml (2 packages x 4 cores), for a binary run
// away from its sources.
NodeShape builtin_shape();

// What a run is told of its nodes' shape, in every environment.
struct NodeShapeChoice {
  std::string topology_file;        // hwloc XML of every compute node; empty: the built-in shape
  bool topology_is_default = true;  // no topology given: a trace may size the nodes itself
  SlotUnit slot_unit = SlotUnit::Cores;
};

// The shape of every compute node of a run: a replay with no topology of its own gets the
// nodes it was recorded on (`trace_slots`, MaxProcs / MaxNodes), otherwise the topology file
// (the built-in shape when there is none).
NodeShape run_node_shape(const NodeShapeChoice& choice, std::optional<unsigned> trace_slots);

}  // namespace pmixflow
