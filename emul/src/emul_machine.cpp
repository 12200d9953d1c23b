#include "pmixflow/emul/emul_machine.hpp"

#include <unistd.h>

#include <vector>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::emul {
namespace {

std::uint32_t node_count(const MachineKnobs& k, const Workload& w) {
  if (k.nodes) return k.nodes;
  if (!w.trace) return 8;
  if (!w.trace_nodes)
    throw InputError(w.trace->path, 0, "MaxNodes", "the header has no MaxNodes: give the machine with --nodes");
  return *w.trace_nodes;
}

}  // namespace

EmulMachine::EmulMachine(const MachineKnobs& knobs, const Workload& workload)
    : shape_(run_node_shape(knobs.node_shape, workload.trace_slots)) {
  const std::uint32_t count = node_count(knobs, workload);
  std::vector<Node> nodes;
  nodes.push_back(Node{"head", shape_.slots, workload.head_computes});
  for (std::uint32_t i = 1; i <= count; ++i) nodes.push_back(Node{generated_node_name(i), shape_.slots, true});
  cluster_ = std::make_unique<Cluster>(std::move(nodes));
}

std::string EmulMachine::description() const {
  char host[256] = "this host";
  ::gethostname(host, sizeof host - 1);
  return "emulated, " + std::to_string(compute_nodes()) + (compute_nodes() == 1 ? " node on " : " nodes on ") + host;
}

}  // namespace pmixflow::emul
