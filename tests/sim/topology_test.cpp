// Node shapes read from hwloc XML: the shared data set's real machines, the project's own
// generated topologies, and the errors a user sees for a bad file.
#include "pmixflow/topology/topology.hpp"

#include <gtest/gtest.h>
#include <hwloc.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::sim {
namespace {

namespace fs = std::filesystem;

const fs::path kSharedTopologies = fs::path(PMIXFLOW_SHARED_DIR) / "data" / "topologies";
const fs::path kShippedTopologies = fs::path(PMIXFLOW_SOURCE_DIR) / "topologies";

// Real machines from hwloc's test suite, kept in ../shared/data (outside this repository).
class SharedTopologyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(fs::path(PMIXFLOW_SHARED_DIR) / "data"))
      GTEST_SKIP() << "../shared/data not found: skipping test that needs the shared data set (" << PMIXFLOW_SHARED_DIR
                   << "/data)";
  }
  static std::string path(const char* name) { return (kSharedTopologies / name).string(); }
};

// A file in the test temp directory, unique to this process and test, removed at the end.
class TempFile {
 public:
  explicit TempFile(const std::string& stem) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::path(::testing::TempDir()) /
            ("pmixflow-" + std::string(info->name()) + "-" + std::to_string(::getpid()) + "-" + stem);
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  std::string str() const { return path_.string(); }
  void write(const std::string& text) const { std::ofstream(path_) << text; }

 private:
  fs::path path_;
};

// Expects load_topology(path) to throw an InputError naming the file.
void expect_input_error(const std::string& path, const std::string& detail_part) {
  try {
    (void)load_topology(path, SlotUnit::Cores);
    ADD_FAILURE() << "no InputError for " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find(detail_part), std::string::npos) << e.detail();
  }
}

// --- the shared data set ---------------------------------------------------------------

TEST_F(SharedTopologyTest, TwoSocketSixCoreTwoThreadIntel) {
  const std::string file = path("24em64t-2n6c2t-pci.xml");
  const NodeShape cores = load_topology(file, SlotUnit::Cores);
  EXPECT_EQ(cores.source, file);
  EXPECT_EQ(cores.packages, 2u);
  EXPECT_EQ(cores.numa_nodes, 2u);
  EXPECT_EQ(cores.cores, 12u);
  EXPECT_EQ(cores.pus, 24u);
  EXPECT_EQ(cores.slots, 12u);

  const NodeShape pus = load_topology(file, SlotUnit::Pus);
  EXPECT_EQ(pus.cores, 12u);
  EXPECT_EQ(pus.pus, 24u);
  EXPECT_EQ(pus.slots, 24u);
}

// An 8-node, 2-core-per-node AMD machine whose XML restricts the allowed cpusets: hwloc
// keeps only the allowed part (6 packages, 5 NUMA nodes, 10 cores, one PU each), and so do we.
TEST_F(SharedTopologyTest, AmdWithRestrictedCpusetsCountsOnlyAllowedObjects) {
  const std::string file = path("16amd64-8n2c-cpusets.xml");
  const NodeShape shape = load_topology(file, SlotUnit::Cores);
  EXPECT_EQ(shape.packages, 6u);
  EXPECT_EQ(shape.numa_nodes, 5u);
  EXPECT_EQ(shape.cores, 10u);
  EXPECT_EQ(shape.pus, 10u);
  EXPECT_EQ(shape.slots, 10u);
  EXPECT_EQ(load_topology(file, SlotUnit::Pus).slots, 10u);
}

// The DGX-2 XML is mostly PCI (GPUs, NVSwitches); its CPU part is small.
TEST_F(SharedTopologyTest, NvidiaDgx2) {
  const std::string file = path("nvidiaDGX2.xml");
  const NodeShape shape = load_topology(file, SlotUnit::Cores);
  EXPECT_EQ(shape.packages, 2u);
  EXPECT_EQ(shape.numa_nodes, 2u);
  EXPECT_EQ(shape.cores, 4u);
  EXPECT_EQ(shape.pus, 4u);
  EXPECT_EQ(shape.slots, 4u);
  EXPECT_EQ(load_topology(file, SlotUnit::Pus).slots, 4u);
}

// --- the project's own topologies (topologies/generate.sh) -------------------------------

struct Shipped {
  const char* file;
  unsigned packages, numa_nodes, cores, pus;
};

class ShippedTopologyTest : public ::testing::TestWithParam<Shipped> {};

TEST_P(ShippedTopologyTest, CountsMatchTheSyntheticDescription) {
  const Shipped& want = GetParam();
  const std::string file = (kShippedTopologies / want.file).string();
  const NodeShape cores = load_topology(file, SlotUnit::Cores);
  EXPECT_EQ(cores.source, file);
  EXPECT_EQ(cores.packages, want.packages);
  EXPECT_EQ(cores.numa_nodes, want.numa_nodes);
  EXPECT_EQ(cores.cores, want.cores);
  EXPECT_EQ(cores.pus, want.pus);
  EXPECT_EQ(cores.slots, want.cores);
  EXPECT_EQ(load_topology(file, SlotUnit::Pus).slots, want.pus);
}

INSTANTIATE_TEST_SUITE_P(Topologies, ShippedTopologyTest,
                         ::testing::Values(Shipped{"small-node.xml", 2, 1, 8, 8},  // package:2 core:4 pu:1
                                           Shipped{"node-2x16.xml", 2, 2, 32,
                                                   64},  // package:2 numa:1 l3:1 core:16 pu:2
                                           Shipped{"fat-node.xml", 4, 8, 128, 256}),  // package:4 numa:2 core:16 pu:2
                         [](const ::testing::TestParamInfo<Shipped>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// --- errors ------------------------------------------------------------------------------

TEST(TopologyErrors, MissingFileIsNamed) {
  expect_input_error((kShippedTopologies / "no-such-topology.xml").string(), "not found");
}

TEST(TopologyErrors, DirectoryIsNamed) {
  expect_input_error(kShippedTopologies.string(), "is a directory, not an hwloc topology file");
}

TEST(TopologyErrors, GarbageIsNamed) {
  const TempFile file("garbage.xml");
  file.write("this is not XML at all <<< \x01\x02 }{\n");
  expect_input_error(file.str(), "hwloc");
}

TEST(TopologyErrors, EmptyFileIsNamed) {
  const TempFile file("empty.xml");
  file.write("");
  expect_input_error(file.str(), "hwloc");
}

TEST(TopologyErrors, XmlThatIsNotAnHwlocTopologyIsNamed) {
  const TempFile file("not-hwloc.xml");
  file.write("<?xml version=\"1.0\"?>\n<platform version=\"4.1\"><zone id=\"z\"/></platform>\n");
  expect_input_error(file.str(), "hwloc");
}

// hwloc can describe a machine with PUs and no Core objects ("pu:4"); such a node has no
// slots to give, so it is refused. hwloc writes the XML, as for the shipped topologies.
TEST(TopologyErrors, TopologyWithoutCoresIsNamed) {
  const TempFile file("no-cores.xml");
  hwloc_topology_t topo = nullptr;
  ASSERT_EQ(hwloc_topology_init(&topo), 0);
  ASSERT_EQ(hwloc_topology_set_synthetic(topo, "pu:4"), 0);
  ASSERT_EQ(hwloc_topology_load(topo), 0);
  ASSERT_EQ(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), 0);
  const int exported = hwloc_topology_export_xml(topo, file.str().c_str(), 0);
  hwloc_topology_destroy(topo);
  ASSERT_EQ(exported, 0);
  expect_input_error(file.str(), "no cores");
}

}  // namespace
}  // namespace pmixflow::sim
