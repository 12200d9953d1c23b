// Slurm's host-list syntax wherever a list of hosts is read (docs/hostlists.md). The examples
// named "Slurm..." are the ones Slurm's own documentation gives: the hostlist library's pages
// (slurm_hostlist_create(3): "linux[1-3,6]"; Slurm::Hostlist(3pm): "node1,node[2-5,12]",
// "node21,node[27-34]", "tux[0-5,12,20-25]") and slurm.conf(5)'s NodeName ("linux[0-64,128]",
// "lx[15,18,32-33]", "linux[0000-1023]", "rack[0-63]_blade[0-41]").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "test_files.hpp"

namespace pmixflow::test::slurm_hostlist_tests {
namespace {

using Names = std::vector<std::string>;

Names names_of(const HostSpec& spec) {
  Names out;
  for (const auto& h : spec.hosts) out.push_back(h.name);
  return out;
}

// ------------------------------------------------------------- Slurm's documented examples

TEST(SlurmHostList, SlurmHostlistCreateManPageLinux1To3And6) {
  EXPECT_EQ(expand_host_names("linux[1-3,6]"), (Names{"linux1", "linux2", "linux3", "linux6"}));
}

TEST(SlurmHostList, SlurmPerlHostlistSynopsisNode1Node2To5And12) {
  EXPECT_EQ(expand_host_names("node1,node[2-5,12]"), (Names{"node1", "node2", "node3", "node4", "node5", "node12"}));
  const Names pushed = expand_host_names("node21,node[27-34]");
  ASSERT_EQ(pushed.size(), 9u);
  EXPECT_EQ(pushed.front(), "node21");
  EXPECT_EQ(pushed[1], "node27");
  EXPECT_EQ(pushed.back(), "node34");
}

TEST(SlurmHostList, SlurmPerlHostlistTux0To5And12And20To25) {
  EXPECT_EQ(expand_host_names("tux[0-5,12,20-25]"), (Names{"tux0", "tux1", "tux2", "tux3", "tux4", "tux5", "tux12",
                                                           "tux20", "tux21", "tux22", "tux23", "tux24", "tux25"}));
}

TEST(SlurmHostList, SlurmConfNodeNameExamples) {
  const Names linux = expand_host_names("linux[0-64,128]");
  ASSERT_EQ(linux.size(), 66u);
  EXPECT_EQ(linux[64], "linux64");
  EXPECT_EQ(linux[65], "linux128");
  EXPECT_EQ(expand_host_names("lx[15,18,32-33]"), (Names{"lx15", "lx18", "lx32", "lx33"}));
  // "leading zeros ... indicate the numeric portion has a fixed number of digits"
  const Names fixed = expand_host_names("linux[0000-1023]");
  ASSERT_EQ(fixed.size(), 1024u);
  EXPECT_EQ(fixed.front(), "linux0000");
  EXPECT_EQ(fixed[10], "linux0010");
  EXPECT_EQ(fixed.back(), "linux1023");
}

// slurm.conf(5): "Multiple numeric ranges can be included in the expression". Each bracket
// multiplies out, the first varying slowest, as Slurm lists them.
TEST(SlurmHostList, SlurmConfRackBladeMultipliesOut) {
  const Names blades = expand_host_names("rack[0-63]_blade[0-41]");
  ASSERT_EQ(blades.size(), 64u * 42u);
  EXPECT_EQ(blades[0], "rack0_blade0");
  EXPECT_EQ(blades[1], "rack0_blade1");
  EXPECT_EQ(blades[42], "rack1_blade0");
  EXPECT_EQ(blades.back(), "rack63_blade41");
  EXPECT_EQ(expand_host_names("rack[1-2]-n[01-02]"), (Names{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}));
}

// ------------------------------------------------------------- widths, as Slurm keeps them

TEST(SlurmHostList, ZeroPaddingIsKeptAsWritten) {
  EXPECT_EQ(expand_host_names("n[01-08]"), (Names{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08"}));
  EXPECT_EQ(expand_host_names("n[8-10]"), (Names{"n8", "n9", "n10"}));
  EXPECT_EQ(expand_host_names("n[08-10]"), (Names{"n08", "n09", "n10"}));
  EXPECT_EQ(expand_host_names("n[001-002,7]"), (Names{"n001", "n002", "n7"}));
}

// Slurm pads every number of a range to the width of its first bound as written; the last
// bound's width does not matter.
TEST(SlurmHostList, MixedWidthsTakeTheFirstBoundsWidth) {
  EXPECT_EQ(expand_host_names("n[9-010]"), (Names{"n9", "n10"}));
  EXPECT_EQ(expand_host_names("n[098-1000]").back(), "n1000");
  EXPECT_EQ(expand_host_names("n[098-1000]").front(), "n098");
}

TEST(SlurmHostList, RangesSinglesAndPlainNamesMix) {
  EXPECT_EQ(expand_host_names("n[1-3],login,gpu[01-02]"), (Names{"n1", "n2", "n3", "login", "gpu01", "gpu02"}));
  EXPECT_EQ(expand_host_names("n[01-02,05,07-08]"), (Names{"n01", "n02", "n05", "n07", "n08"}));
  EXPECT_EQ(expand_host_names("n[3]"), (Names{"n3"}));
  // Slurm 22.05 refuses text after the last bracket (scontrol show hostnames n[1-2]a), and so do we.
  EXPECT_THROW(expand_host_names("n[1-2]a"), InputError);
  EXPECT_THROW(expand_host_names("a[1-2]b[1-2]c"), InputError);
}

// Written short as `scontrol show hostlist` writes them (Slurm 22.05, checked by hand): runs of
// one prefix share a bracket, and a run goes on across a change of width when the range reads
// back the same (n[01-100] is n01 .. n99, n100).
TEST(SlurmHostList, NamesAreWrittenShortAsScontrolShowHostlistWritesThem) {
  const auto generated = [](std::uint32_t count) {
    Names out;
    for (std::uint32_t i = 1; i <= count; ++i)
      out.push_back(i < 10 ? "n0" + std::to_string(i) : "n" + std::to_string(i));
    return out;
  };
  EXPECT_EQ(compress_host_names({"n01", "n02", "n100"}), "n[01-02,100]");
  EXPECT_EQ(compress_host_names({"n01", "n02", "n03", "n99", "n100", "n101"}), "n[01-03,99-101]");
  EXPECT_EQ(compress_host_names({"n03", "n01", "n02"}), "n[03,01-02]");
  EXPECT_EQ(compress_host_names({"login", "n01", "n02", "n100"}), "login,n[01-02,100]");
  EXPECT_EQ(compress_host_names({"n01", "m1", "n02"}), "n01,m1,n02");
  EXPECT_EQ(compress_host_names({"n9", "n10", "n11"}), "n[9-11]");
  EXPECT_EQ(compress_host_names({"n9", "n010"}), "n[9,010]");
  EXPECT_EQ(compress_host_names({"n098", "n099", "n100", "n1000"}), "n[098-100,1000]");
  EXPECT_EQ(compress_host_names(generated(1024)), "n[01-1024]");
  EXPECT_EQ(expand_host_names("n[01-1024]"), generated(1024));
  for (const Names& names : {Names{"n01", "n03", "n100", "n1024"}, Names{"a", "b1", "b01", "b2"}, Names{"1", "2", "x"}})
    EXPECT_EQ(expand_host_names(compress_host_names(names)), names) << compress_host_names(names);
}

TEST(SlurmHostList, ACommaInsideBracketsDoesNotSplitTheList) {
  const auto parts = split_host_list("n[01-08,12],login, m[1,3]");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "n[01-08,12]");
  EXPECT_EQ(parts[1], "login");
  EXPECT_EQ(parts[2], " m[1,3]");
  EXPECT_EQ(parse_host_list("n[01-08,12]", HostUse::NodeList).hosts.size(), 9u);
}

// ------------------------------------------------------------- errors

void refused(const std::string& text, const std::string& says) {
  const InputError e = expect_input_error([&] { expand_host_names(text, "compute_nodes"); });
  EXPECT_EQ(e.file(), "compute_nodes") << text;
  EXPECT_TRUE(Contains(e.detail(), says)) << text << ": " << e.detail();
}

TEST(SlurmHostList, MalformedRangesSayWhatIsWrong) {
  refused("n[1-3", "'[' is not closed by ']'");
  refused("n[01-08,12", "'[' is not closed by ']'");
  refused("n1-3]", "']' without a '['");
  refused("n[5-1]", "the range '5-1' runs backwards: write the lower number first ('1-5')");
  refused("n[]", "empty brackets");
  refused("n[1-]", "an empty range");
  refused("n[1,,3]", "an empty range");
  refused("n[a-c]", "'a' is not a number");
  refused("n[1-x]", "'x' is not a number");
  refused("n[-1]", "an empty range");
  refused("n[1[2]]", "brackets inside brackets");
  refused("bgl[123x456]", "is not a number");  // Slurm's old 3-D prism form is not supported
  refused("n[99999999999999999999999]", "too large a number");
}

TEST(SlurmHostList, ExpansionsAreCappedBeforeTheyFillMemory) {
  for (const char* text : {"n[0-1048576]", "a[0-9999]b[0-9999]", "a[0-600000],b[0-600000]", "n[1-2,0-2000000]"})
    refused(text, "a list names at most 1048576 hosts");
}

// ------------------------------------------------------------- every host list reads them

TEST(SlurmHostList, ASlotCountAppliesToEachHostOfARange) {
  for (const auto use : {HostUse::Host, HostUse::NodeList}) {
    const auto spec = parse_host_list("n[01-02]:4,login", use);
    EXPECT_EQ(spec.hosts, (std::vector<HostEntry>{{"n01", 4}, {"n02", 4}, {"login", std::nullopt}}));
  }
}

TEST(SlurmHostList, HostAndActivateFormsStillApplyBesideRanges) {
  const auto spec = parse_host_list("n[01-02],+n3,+all", HostUse::Activate, "PMIX_HOST");
  EXPECT_EQ(names_of(spec), (Names{"n01", "n02"}));
  EXPECT_EQ(spec.relative, (std::vector<std::uint32_t>{3}));
  EXPECT_TRUE(spec.all);
  const auto e = expect_input_error([] { parse_host_list("n[01-02]:4", HostUse::Activate, "PMIX_HOST"); });
  EXPECT_EQ(e.field(), "n[01-02]:4");
  EXPECT_TRUE(Contains(e.detail(), "activation cannot change slot counts"));
}

TEST(SlurmHostList, AListsErrorNamesItsFieldAndTheEntry) {
  const auto e = expect_input_error([] { parse_host_list("n01,n[5-1]:2", HostUse::NodeList, "PMIX_ALLOC_NODE_LIST"); });
  EXPECT_EQ(e.file(), "PMIX_ALLOC_NODE_LIST");
  EXPECT_EQ(e.field(), "n[5-1]:2");
  EXPECT_TRUE(Contains(e.detail(), "runs backwards")) << e.detail();
  const auto big = expect_input_error([] { parse_host_list("a[0-600000],b[0-600000]", HostUse::Host, "--host"); });
  EXPECT_EQ(big.field(), "b[0-600000]");
  EXPECT_TRUE(Contains(big.detail(), "at most 1048576 hosts")) << big.detail();
}

TEST(SlurmHostList, AHostfileLineMayNameARange) {
  const TempDir tmp;
  const std::string path = tmp.write("hosts", "# rack one\nn[01-03] slots=4\nlogin\n^n[02]\n");
  const auto spec = parse_hostfile(path, HostUse::Host);
  EXPECT_EQ(spec.hosts, (std::vector<HostEntry>{{"n01", 4}, {"n02", 4}, {"n03", 4}, {"login", std::nullopt}}));
  EXPECT_EQ(spec.excluded, (Names{"n02"}));
  EXPECT_EQ(resolve_hosts(spec, {"n01", "n02", "n03", "login"}), (Names{"n01", "n03", "login"}));
  // An activation reads the same file, slot counts ignored.
  EXPECT_EQ(names_of(parse_hostfile(path, HostUse::Activate)), (Names{"n01", "n02", "n03", "login"}));
}

TEST(SlurmHostList, AHostfilesBadRangeNamesItsLine) {
  const TempDir tmp;
  const std::string path = tmp.write("hosts", "n01\nn[3-1] slots=2\n");
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.field(), "n[3-1]");
  EXPECT_TRUE(Contains(e.detail(), "runs backwards")) << e.detail();
}

TEST(SlurmHostList, AFailLaunchListMayNameRanges) {
  EXPECT_EQ(split_names("n[01-02],,n05"), (Names{"n01", "n02", "n05"}));
  EXPECT_EQ(split_names("n[2-1]"), (Names{"n[2-1]"}));  // kept as written: it matches no node
}

}  // namespace
}  // namespace pmixflow::test::slurm_hostlist_tests
