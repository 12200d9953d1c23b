#include "pmixflow/sim/sim_machine.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>

#include <simgrid/s4u.hpp>

#include "pmixflow/vocab/errors.hpp"

namespace sg4 = simgrid::s4u;

namespace pmixflow::sim {
namespace {

// What SimGrid is told on its own command line: quiet, small actor stacks (an idle daemon
// should cost almost nothing), and the context factory (threads under the sanitizers).
// Every daemon starting at once needs its own stack: past ~16k of them, guard pages would
// exceed the kernel's mapping limit (vm.max_map_count), so very large machines run with
// smaller stacks and no guard pages.
std::vector<std::string> engine_args(const SimKnobs& k, std::size_t compute_nodes) {
  std::vector<std::string> args{"pmixflow", "--log=root.thres:critical"};
  std::string contexts = k.contexts;
  if (contexts.empty())
    if (const char* env = std::getenv("PMIXFLOW_SIM_CONTEXTS")) contexts = env;
  if (!contexts.empty()) args.push_back("--cfg=contexts/factory:" + contexts);
  constexpr std::size_t kGuardedNodes = 16384;
  if (compute_nodes > kGuardedNodes && contexts != "thread") {
    args.push_back("--cfg=contexts/stack-size:64");
    args.push_back("--cfg=contexts/guard-size:0");
  } else {
    args.push_back("--cfg=contexts/stack-size:256");
  }
  for (const auto& extra : k.simgrid_cfg) args.push_back("--cfg=" + extra);
  return args;
}

// A trace run without a machine of its own gets the one it was recorded on.
PlatformOptions platform_for(const SimKnobs& k, const Workload& w) {
  PlatformOptions p = k.platform;
  if (w.trace && p.platform_file.empty() && p.nodes == 0) {
    if (!w.trace_nodes)
      throw InputError(w.trace->path, 0, "MaxNodes",
                       "the header has no MaxNodes: give the machine with --nodes or --platform");
    p.nodes = *w.trace_nodes;
  }
  return p;
}

// SimGrid allocates each actor's stack zeroed (calloc). glibc serves a block that size from
// its heap once its mmap threshold has grown past it, which it does as soon as a stack is
// freed: on a large machine, where thousands of daemons start at once, every stack then stays
// resident for the rest of the run. Fixed at 64 KiB (which also stops it growing), a stack is
// a mapping of its own, handed back whole when its actor ends. On a small machine the heap's
// reuse is cheaper than a mapping per actor, and memory is not the concern.
void map_stacks_separately(std::size_t compute_nodes) {
  constexpr std::size_t kLargeMachine = 4096;
  if (compute_nodes >= kLargeMachine) mallopt(M_MMAP_THRESHOLD, 64 * 1024);
}

}  // namespace

SimMachine::SimMachine(const SimKnobs& knobs, const Workload& workload) {
  const PlatformOptions platform = platform_for(knobs, workload);
  shape_ = run_node_shape(knobs.node_shape, workload.trace_slots);
  // SimGrid is configured before the platform exists: size it from what was asked for.
  args_ = engine_args(knobs, platform.platform_file.empty() ? (platform.nodes ? platform.nodes : 8) : platform.nodes);
  for (auto& a : args_) argv_.push_back(a.data());
  int argc = static_cast<int>(argv_.size());
  engine_ = std::make_unique<sg4::Engine>(&argc, argv_.data());
  machine_ = build_platform(*engine_, platform);
  map_stacks_separately(machine_.compute.size());
  std::vector<Node> nodes;
  nodes.push_back(Node{machine_.head->get_name(), shape_.slots, workload.head_computes});
  for (auto* h : machine_.compute) nodes.push_back(Node{h->get_name(), shape_.slots, true});
  cluster_ = std::make_unique<Cluster>(std::move(nodes));
}

SimMachine::~SimMachine() = default;

}  // namespace pmixflow::sim
