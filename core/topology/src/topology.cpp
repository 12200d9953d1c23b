// Node shapes from hwloc XML topologies. hwloc reads the XML; we only count objects.
#include "pmixflow/topology/topology.hpp"

#include <hwloc.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <system_error>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/input_file.hpp"

namespace pmixflow {
namespace {

// Owns one hwloc topology for the lifetime of a load.
class Topology {
 public:
  Topology() {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) throw std::bad_alloc();
    handle_.reset(raw);
  }

  hwloc_topology_t get() const { return handle_.get(); }

 private:
  struct Destroy {
    void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
  };
  std::unique_ptr<hwloc_topology, Destroy> handle_;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(path, 0, "", what); }

unsigned count(const Topology& topo, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(topo.get(), type);
  return n > 0 ? static_cast<unsigned>(n) : 0U;  // -1 only for types hwloc spreads over several depths
}

void check_readable(const std::string& path) {
  refuse_directory(path, "an hwloc topology file");
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) fail(path, "hwloc topology file not found");
  if (!std::filesystem::is_regular_file(status)) fail(path, "hwloc topology path is not a regular file");
  if (!std::ifstream(path).is_open()) fail(path, "cannot read hwloc topology file");
}

}  // namespace

NodeShape load_topology(const std::string& path, SlotUnit unit) {
  check_readable(path);

  Topology topo;
  // Only the CPU and memory structure matters for a node shape: drop I/O devices and
  // instruction caches, which hwloc would otherwise keep from XML exported with them.
  hwloc_topology_set_io_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_NONE);

  if (hwloc_topology_set_xml(topo.get(), path.c_str()) != 0)
    fail(path, "not a valid hwloc XML topology (hwloc could not parse it)");
  if (hwloc_topology_load(topo.get()) != 0) fail(path, "hwloc could not load the topology from this XML");

  NodeShape shape;
  shape.source = path;
  shape.packages = count(topo, HWLOC_OBJ_PACKAGE);
  shape.numa_nodes = count(topo, HWLOC_OBJ_NUMANODE);
  shape.cores = count(topo, HWLOC_OBJ_CORE);
  shape.pus = count(topo, HWLOC_OBJ_PU);
  if (shape.cores == 0) fail(path, "hwloc topology has no cores");
  shape.slots = unit == SlotUnit::Cores ? shape.cores : shape.pus;
  return shape;
}

NodeShape builtin_shape() {
  NodeShape s;
  s.source = "built-in (2 packages x 4 cores)";
  s.packages = 2;
  s.numa_nodes = 1;
  s.cores = s.pus = s.slots = 8;
  return s;
}

NodeShape run_node_shape(const NodeShapeChoice& choice, std::optional<unsigned> trace_slots) {
  if (choice.topology_is_default && trace_slots) {
    NodeShape s;
    s.source = "trace header (MaxProcs / MaxNodes)";
    s.slots = s.cores = s.pus = *trace_slots;
    return s;
  }
  return choice.topology_file.empty() ? builtin_shape() : load_topology(choice.topology_file, choice.slot_unit);
}

}  // namespace pmixflow
