// The machine an emulation pretends to be: a head node and N compute nodes named as the
// simulator names them, every node of the shape the topology (or a trace's header) gives, and
// the head a compute node only when asked.
#include "pmixflow/emul/emul_machine.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::emul {
namespace {

// The shipped topologies, found from this file (emul_tests has no source-directory definition).
std::string shipped_topology(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "topologies" / name)
      .lexically_normal()
      .string();
}

TEST(EmulMachine, HasEightComputeNodesAndAHeadByDefault) {
  const EmulMachine m(MachineKnobs{}, Workload{});
  const Cluster& c = m.cluster();
  ASSERT_EQ(c.size(), 9u);
  EXPECT_EQ(m.compute_nodes(), 8u);
  EXPECT_EQ(c.node(Cluster::kHead).name, "head");
  EXPECT_FALSE(c.node(Cluster::kHead).schedulable);
  for (NodeId i = 1; i <= 8; ++i) {
    EXPECT_EQ(c.node(i).name, "n0" + std::to_string(i));
    EXPECT_TRUE(c.node(i).schedulable);
  }
  EXPECT_EQ(c.schedulable_names(), (std::vector<std::string>{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08"}));
  EXPECT_NE(m.description().find("emulated, 8 nodes on "), std::string::npos) << m.description();
}

TEST(EmulMachine, DefaultNodesHaveTheBuiltInShape) {
  const EmulMachine m(MachineKnobs{}, Workload{});
  EXPECT_EQ(m.shape().slots, 8u);
  for (const Node& n : m.cluster().nodes()) EXPECT_EQ(n.slots, 8u) << n.name;
  EXPECT_EQ(m.cluster().schedulable_slots(), 64u);
}

TEST(EmulMachine, ManyNodesAreNamedAsTheSimulatorNamesThem) {
  MachineKnobs k;
  k.nodes = 120;
  const EmulMachine m(k, Workload{});
  const Cluster& c = m.cluster();
  ASSERT_EQ(c.size(), 121u);
  EXPECT_EQ(m.compute_nodes(), 120u);
  EXPECT_EQ(c.node(1).name, "n01");
  EXPECT_EQ(c.node(9).name, "n09");
  EXPECT_EQ(c.node(99).name, "n99");
  EXPECT_EQ(c.node(100).name, "n100");
  EXPECT_EQ(c.node(120).name, "n120");
  for (NodeId i = 1; i <= 120; ++i) EXPECT_EQ(c.node(i).name, generated_node_name(i));
  EXPECT_EQ(c.find("n42"), std::optional<NodeId>(42));
  EXPECT_EQ(c.find("n042"), std::nullopt);  // a name is matched as written, as on a real machine
}

TEST(EmulMachine, HeadComputesMakesTheHeadSchedulable) {
  Workload w;
  w.head_computes = true;
  const EmulMachine m(MachineKnobs{}, w);
  EXPECT_TRUE(m.cluster().node(Cluster::kHead).schedulable);
  EXPECT_EQ(m.cluster().schedulable_names().front(), "head");
  EXPECT_EQ(m.cluster().schedulable_slots(), 9u * 8u);
  EXPECT_EQ(m.compute_nodes(), 8u);  // the head still is not counted as one of the machine's nodes
}

TEST(EmulMachine, EveryNodeHasTheTopologysSlots) {
  MachineKnobs k;
  k.nodes = 3;
  k.node_shape.topology_file = shipped_topology("node-2x16.xml");
  k.node_shape.topology_is_default = false;
  const EmulMachine cores(k, Workload{});
  EXPECT_EQ(cores.shape().cores, 32u);
  for (const Node& n : cores.cluster().nodes()) EXPECT_EQ(n.slots, 32u) << n.name;

  k.node_shape.slot_unit = SlotUnit::Pus;
  const EmulMachine pus(k, Workload{});
  for (const Node& n : pus.cluster().nodes()) EXPECT_EQ(n.slots, 64u) << n.name;
}

TEST(EmulMachine, ReplayedTraceGivesItsNodesAndSlots) {
  Workload w;
  w.trace = SwfTrace{};
  w.trace->path = "recorded.swf";
  w.trace_nodes = 16;
  w.trace_slots = 12;
  const EmulMachine m(MachineKnobs{}, w);
  EXPECT_EQ(m.compute_nodes(), 16u);
  EXPECT_EQ(m.cluster().node(16).name, "n16");
  EXPECT_EQ(m.shape().slots, 12u);
  for (const Node& n : m.cluster().nodes()) EXPECT_EQ(n.slots, 12u) << n.name;

  MachineKnobs k;
  k.nodes = 4;  // --nodes wins over the trace's header
  EXPECT_EQ(EmulMachine(k, w).compute_nodes(), 4u);
}

TEST(EmulMachine, TraceWithoutMaxNodesIsRefusedWithoutNodes) {
  Workload w;
  w.trace = SwfTrace{};
  w.trace->path = "headless.swf";
  try {
    const EmulMachine m(MachineKnobs{}, w);
    ADD_FAILURE() << "made a machine of " << m.compute_nodes() << " nodes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("headless.swf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--nodes"), std::string::npos) << e.what();
  }
}

TEST(EmulMachine, MissingTopologyIsRefusedNamingIt) {
  MachineKnobs k;
  k.node_shape.topology_file = "/nonexistent/pmixflow-ut-topology.xml";
  k.node_shape.topology_is_default = false;
  try {
    const EmulMachine m(k, Workload{});
    ADD_FAILURE() << "read a missing topology";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(k.node_shape.topology_file), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pmixflow::emul
