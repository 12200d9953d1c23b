#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/host_ranges.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "test_files.hpp"

namespace pmixflow {
namespace {

namespace fs = std::filesystem;

using test::Contains;
using test::expect_input_error;

// Hostfiles live in a directory of their own per test.
class HostfileDir : public test::TempDir {
 public:
  HostfileDir() : test::TempDir("pmixflow_hostlist") {}
};

HostEntry host(std::string name, std::optional<std::uint32_t> slots = std::nullopt) { return {std::move(name), slots}; }

TEST(HostList, NaturalOrderReadsNumbersAsPeopleDo) {
  EXPECT_TRUE(natural_less("node-2", "node-10"));
  EXPECT_FALSE(natural_less("node-10", "node-2"));
  EXPECT_TRUE(natural_less("n9", "n010"));
  EXPECT_FALSE(natural_less("n002", "n2"));  // the same number: neither comes first
  EXPECT_FALSE(natural_less("n2", "n002"));
  EXPECT_TRUE(natural_less("a10", "b2"));
  EXPECT_TRUE(natural_less("n1", "n1a"));
  std::vector<std::string> names{"n10", "head", "n2", "n1"};
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return natural_less(a, b); });
  EXPECT_EQ(names, (std::vector<std::string>{"head", "n1", "n2", "n10"}));
  // Sorting with host_order is total: names of one number keep a fixed order, by their text.
  names = {"n100", "n2", "n99", "n002", "n10"};
  std::sort(names.begin(), names.end(), host_order);
  EXPECT_EQ(names, (std::vector<std::string>{"n002", "n2", "n10", "n99", "n100"}));
}

// ---------------------------------------------------------------------------------------------
// parse_host_list

TEST(HostList, NamesInOrderWithWhitespaceTrimmed) {
  const auto spec = parse_host_list("  n01 , n02,\tn-3_x.y ", HostUse::Host);
  EXPECT_EQ(spec.hosts, (std::vector{host("n01"), host("n02"), host("n-3_x.y")}));
  EXPECT_FALSE(spec.all);
  EXPECT_TRUE(spec.relative.empty());
  EXPECT_FALSE(spec.empty);
  EXPECT_FALSE(spec.empty_count);
  EXPECT_TRUE(spec.excluded.empty());
}

TEST(HostList, SlotCountsForHostAndNodeList) {
  for (const auto use : {HostUse::Host, HostUse::NodeList}) {
    const auto spec = parse_host_list("n01:4,n02,n03:16", use);
    EXPECT_EQ(spec.hosts, (std::vector{host("n01", 4), host("n02"), host("n03", 16)}));
  }
}

TEST(HostList, SlotCountRefusedForActivate) {
  const auto e = expect_input_error([] { parse_host_list("n01,n02:4", HostUse::Activate, "PMIX_HOST"); });
  EXPECT_EQ(e.file(), "PMIX_HOST");
  EXPECT_EQ(e.line(), 0u);
  EXPECT_EQ(e.field(), "n02:4");
  EXPECT_TRUE(Contains(e.detail(), "activation cannot change slot counts"));
}

TEST(HostList, BadSlotCountsRefused) {
  for (const char* text : {"n01:0", "n01:", "n01:-1", "n01:+2", "n01:4x", "n01:1.5", "n01:99999999999"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Host); });
    EXPECT_EQ(e.field(), text);
    EXPECT_TRUE(Contains(e.detail(), "positive integer")) << text;
  }
}

TEST(HostList, PlusAllAndRelative) {
  for (const auto use : {HostUse::Host, HostUse::Activate}) {
    const auto spec = parse_host_list("+n2,+all,n05,+n0", use);
    EXPECT_TRUE(spec.all);
    EXPECT_EQ(spec.relative, (std::vector<std::uint32_t>{2, 0}));
    EXPECT_EQ(spec.hosts, (std::vector{host("n05")}));
  }
}

TEST(HostList, RelativeNeedsNonNegativeInteger) {
  for (const char* text : {"+n", "+n-1", "+nx", "+n1.0", "+n 1"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Host); });
    EXPECT_EQ(e.field(), text);
    EXPECT_TRUE(Contains(e.detail(), "+nK")) << text;
  }
}

TEST(HostList, EmptyNodesForHost) {
  auto spec = parse_host_list("+e", HostUse::Host);
  EXPECT_TRUE(spec.empty);
  EXPECT_FALSE(spec.empty_count);

  spec = parse_host_list("n01,+e:3", HostUse::Host);
  EXPECT_TRUE(spec.empty);
  EXPECT_EQ(spec.empty_count, 3u);
  EXPECT_EQ(spec.hosts, (std::vector{host("n01")}));
}

TEST(HostList, EmptyNodesBadCount) {
  for (const char* text : {"+e:", "+e:0", "+e:x", "+e3", "+ex"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Host); });
    EXPECT_EQ(e.field(), text);
  }
}

TEST(HostList, EmptyNodesRefusedForActivate) {
  for (const char* text : {"+e", "+e:2"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Activate); });
    EXPECT_EQ(e.field(), text);
    EXPECT_TRUE(Contains(e.detail(), "already in the DVM"));
    EXPECT_TRUE(Contains(e.detail(), "start"));
  }
}

TEST(HostList, NodeListTakesNamesOnly) {
  for (const char* text : {"+e", "+e:2", "+n0", "+all", "file=hosts"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::NodeList, "PMIX_ALLOC_NODE_LIST"); });
    EXPECT_EQ(e.file(), "PMIX_ALLOC_NODE_LIST");
    EXPECT_EQ(e.field(), text);
    EXPECT_TRUE(Contains(e.detail(), "not allowed in a node list")) << text;
  }
}

TEST(HostList, UnknownPlusFormRefused) {
  for (const char* text : {"+foo", "+", "+All", "+alll"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Host); });
    EXPECT_EQ(e.field(), text);
    EXPECT_TRUE(Contains(e.detail(), "unknown host form")) << text;
  }
}

TEST(HostList, EmptyEntriesRefused) {
  for (const char* text : {"", "  ", "n01,,n02", ",n01", "n01,", "n01, ,n02"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Host, "--host"); });
    EXPECT_EQ(e.file(), "--host");
    EXPECT_TRUE(Contains(e.detail(), "empty entry")) << '"' << text << '"';
  }
}

TEST(HostList, InvalidNamesNamed) {
  for (const char* text : {"n 01", "n01/x", "n@01", "^n01", "n01=4", ":4"}) {
    const auto e = expect_input_error([&] { parse_host_list(text, HostUse::Host); });
    EXPECT_EQ(e.field(), text);
    EXPECT_TRUE(Contains(e.detail(), "not a valid host name")) << text;
    EXPECT_TRUE(Contains(std::string(e.what()), text));
  }
}

TEST(HostList, FileEntryExpandedInPlace) {
  HostfileDir tmp;
  const auto path = tmp.write("hosts", "n02 slots=2\nn03\n^n09\n");
  const auto spec = parse_host_list("n01,file=" + path + ",n04:1", HostUse::Host);
  EXPECT_EQ(spec.hosts, (std::vector{host("n01"), host("n02", 2), host("n03"), host("n04", 1)}));
  EXPECT_TRUE(spec.excluded.empty());  // spent on the file's own hosts
}

// PRRTE's prte_util_add_hostfile_nodes(): a file's `^host` drops that host from the file only.
TEST(HostList, AFilesExclusionsDropOnlyItsOwnHosts) {
  HostfileDir tmp;
  const auto path = tmp.write("hosts", "^n01\nn02\nn03\n^n03\n");
  const auto spec = parse_host_list("n01,file=" + path, HostUse::Activate);
  EXPECT_EQ(spec.hosts, (std::vector{host("n01"), host("n02")}));
  EXPECT_EQ(resolve_hosts(spec, {"n01", "n02", "n03"}), (std::vector<std::string>{"n01", "n02"}));
}

TEST(HostList, FileEntryRelativeToBaseDir) {
  HostfileDir tmp;
  tmp.write("rel_hosts", "n07\n");
  const auto spec = parse_host_list("file=rel_hosts", HostUse::Activate, "scenario", tmp.dir());
  EXPECT_EQ(spec.hosts, (std::vector{host("n07")}));
}

TEST(HostList, FileEntryAbsolutePathIgnoresBaseDir) {
  HostfileDir tmp;
  const auto path = tmp.write("abs_hosts", "n08\n");
  const auto spec = parse_host_list("file=" + path, HostUse::Host, "x", "/nonexistent/base");
  EXPECT_EQ(spec.hosts, (std::vector{host("n08")}));
}

TEST(HostList, FileEntryForActivateDropsSlotsButRefusesColon) {
  HostfileDir tmp;
  const auto ok = tmp.write("ok", "n01 slots=8 max_slots=16\n");
  EXPECT_EQ(parse_host_list("file=" + ok, HostUse::Activate).hosts, (std::vector{host("n01")}));

  const auto bad = tmp.write("bad", "n01\nn02:4\n");
  const auto e = expect_input_error([&] { parse_host_list("file=" + bad, HostUse::Activate); });
  EXPECT_EQ(e.file(), bad);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.field(), "n02:4");
  EXPECT_TRUE(Contains(e.detail(), "activation cannot change slot counts"));
}

TEST(HostList, FileEntryMissingFileNamesPath) {
  HostfileDir tmp;
  const auto e = expect_input_error([&] { parse_host_list("file=missing", HostUse::Host, "--host", tmp.dir()); });
  const auto expected = (fs::path(tmp.dir()) / "missing").string();
  EXPECT_EQ(e.file(), expected);
  EXPECT_TRUE(Contains(e.detail(), expected));
}

TEST(HostList, FileEntryWithoutPathRefused) {
  const auto e = expect_input_error([] { parse_host_list("file=", HostUse::Host); });
  EXPECT_EQ(e.field(), "file=");
  EXPECT_TRUE(Contains(e.detail(), "needs a path"));
}

TEST(HostList, FormatRoundTrips) {
  const std::vector hosts{host("n01", 4), host("n02"), host("n03", 1)};
  EXPECT_EQ(format_host_list(hosts), "n01:4,n02,n03:1");
  EXPECT_EQ(parse_host_list(format_host_list(hosts), HostUse::NodeList).hosts, hosts);
  EXPECT_EQ(format_host_list({}), "");
}

TEST(HostList, MergeAppendsAndOrs) {
  HostSpec a;
  a.hosts = {host("n01")};
  a.relative = {1};
  a.excluded = {"x1"};
  a.empty_count = 2;
  HostSpec b;
  b.hosts = {host("n02", 3)};
  b.all = true;
  b.relative = {0};
  b.empty = true;
  b.excluded = {"x2"};

  merge_host_specs(a, b);
  EXPECT_EQ(a.hosts, (std::vector{host("n01"), host("n02", 3)}));
  EXPECT_EQ(a.relative, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(a.excluded, (std::vector<std::string>{"x1", "x2"}));
  EXPECT_TRUE(a.all);
  EXPECT_TRUE(a.empty);
  EXPECT_EQ(a.empty_count, 2u) << "an unset count in `more` must not clear ours";

  HostSpec c;
  c.empty_count = 5;
  merge_host_specs(a, c);
  EXPECT_EQ(a.empty_count, 5u);
  EXPECT_TRUE(a.all) << "OR never clears a flag";
}

// ---------------------------------------------------------------------------------------------
// parse_hostfile

TEST(HostFile, CommentsBlankLinesSlotsAndExclusions) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile",
                              "# cluster A\n"
                              "\n"
                              "n01 slots=4\n"
                              "   n02   max_slots=8   slots=2   # trailing comment\n"
                              "\t\n"
                              "n03\n"
                              "n04:6\n"
                              "^n05\n"
                              "^n06   # gone for maintenance\n"
                              "n07 max_slots=2");  // no final newline
  const auto spec = parse_hostfile(path, HostUse::Host);
  EXPECT_EQ(spec.hosts, (std::vector{host("n01", 4), host("n02", 2), host("n03"), host("n04", 6), host("n07")}));
  EXPECT_EQ(spec.excluded, (std::vector<std::string>{"n05", "n06"}));
  EXPECT_FALSE(spec.all);
  EXPECT_TRUE(spec.relative.empty());
}

TEST(HostFile, ActivateReadsButIgnoresSlots) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "n01 slots=4\nn02\n^n03\n");
  const auto spec = parse_hostfile(path, HostUse::Activate);
  EXPECT_EQ(spec.hosts, (std::vector{host("n01"), host("n02")}));
  EXPECT_EQ(spec.excluded, (std::vector<std::string>{"n03"}));
}

TEST(HostFile, ActivateStillValidatesSlots) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "n01 slots=zero\n");
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Activate); });
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.field(), "slots=zero");
}

TEST(HostFile, UnknownTokenNamesFileLineAndField) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "# header\nn01 slots=2\n\nn02 cores=4\n");
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.field(), "cores=4");
  EXPECT_TRUE(Contains(e.detail(), "unknown token"));
  EXPECT_TRUE(Contains(std::string(e.what()), path + ":4"));
}

TEST(HostFile, BadSlotValues) {
  HostfileDir tmp;
  for (const char* token : {"slots=0", "slots=", "slots=-2", "max_slots=0", "max_slots=x"}) {
    const auto path = tmp.write("hostfile", std::string("n01\nn02 ") + token + "\n");
    const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
    EXPECT_EQ(e.line(), 2u) << token;
    EXPECT_EQ(e.field(), token);
    EXPECT_TRUE(Contains(e.detail(), "positive integer")) << token;
  }
}

TEST(HostFile, SlotsGivenTwiceRefused) {
  HostfileDir tmp;
  for (const char* line : {"n01 slots=2 slots=3", "n01:2 slots=3"}) {
    const auto path = tmp.write("hostfile", std::string(line) + "\n");
    const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
    EXPECT_EQ(e.line(), 1u);
    EXPECT_TRUE(Contains(e.detail(), "given twice")) << line;
  }
}

TEST(HostFile, ColonSlotsRefusedForActivate) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "n01\n# n02:4 in a comment is fine\nn03:4\n");
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Activate); });
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.field(), "n03:4");
  EXPECT_TRUE(Contains(e.detail(), "activation cannot change slot counts"));
}

TEST(HostFile, InvalidNamesAndListFormsRefused) {
  HostfileDir tmp;
  for (const char* line : {"n0!1", "+all", "file=other", "^", "^n@1"}) {
    const auto path = tmp.write("hostfile", std::string("n01\n") + line + "\n");
    const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 2u) << line;
    EXPECT_EQ(e.field(), line);
    EXPECT_TRUE(Contains(e.detail(), "not a valid host name")) << line;
  }
}

TEST(HostFile, ExclusionTakesNoOtherFields) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "^n01 slots=2\n");
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.field(), "slots=2");
}

TEST(HostFile, NodeListRefusesExclusions) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "n01 slots=2\n^n02\n");
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::NodeList); });
  EXPECT_EQ(e.line(), 2u);
  EXPECT_TRUE(Contains(e.detail(), "not allowed in a node list"));
}

TEST(HostFile, EmptyFileSelectsNothing) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "# nothing here\n\n");
  EXPECT_EQ(parse_hostfile(path, HostUse::Host), HostSpec{});
}

TEST(HostFile, MissingFileNamesPath) {
  HostfileDir tmp;
  const auto path = tmp.dir() + "/does-not-exist";
  const auto e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 0u);
  EXPECT_TRUE(Contains(e.detail(), path));
}

TEST(HostFile, DirectoryRefused) {
  HostfileDir tmp;
  const auto e = expect_input_error([&] { parse_hostfile(tmp.dir(), HostUse::Host); });
  EXPECT_EQ(e.file(), tmp.dir());
  EXPECT_TRUE(Contains(e.detail(), "directory"));
}

// ---------------------------------------------------------------------------------------------
// resolve_hosts

std::vector<std::string> allocated_nodes() { return {"n01", "n02", "n03", "n04", "n05"}; }

TEST(Resolve, NamedHostsInOrderGiven) {
  const auto spec = parse_host_list("n04,n01", HostUse::Activate);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n04", "n01"}));
}

TEST(Resolve, RelativeCountsFromZero) {
  const auto spec = parse_host_list("+n0,+n4,+n2", HostUse::Activate);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n01", "n05", "n03"}));
}

TEST(Resolve, NamedThenRelativeThenAll) {
  const auto spec = parse_host_list("+all,+n3,n02", HostUse::Activate);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n02", "n04", "n01", "n03", "n05"}));
}

TEST(Resolve, AllSelectsEveryAllocatedNode) {
  const auto spec = parse_host_list("+all", HostUse::Activate);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), allocated_nodes());
  EXPECT_TRUE(resolve_hosts(spec, {}).empty()) << "+all of nothing is nothing, not an error";
}

TEST(Resolve, DedupeKeepsFirstMention) {
  const auto spec = parse_host_list("n03,n01,n03,+n2,+n0,+n1", HostUse::Host);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n03", "n01", "n02"}));
}

TEST(Resolve, AFilesExclusionsDoNotReachTheListsPlusAll) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "^n02\n^n04\n^not-allocated\n");
  const auto spec = parse_host_list("+all,file=" + path, HostUse::Activate);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n01", "n02", "n03", "n04", "n05"}));
}

TEST(Resolve, ExclusionBeatsExplicitName) {
  HostfileDir tmp;
  const auto path = tmp.write("hostfile", "n01\n^n01\nn02\n");
  const auto spec = parse_hostfile(path, HostUse::Activate);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n02"}));
}

TEST(Resolve, MergedHostAndHostfile) {
  HostfileDir tmp;
  auto spec = parse_host_list("n05", HostUse::Activate, "PMIX_HOST");
  merge_host_specs(spec, with_own_exclusions(parse_hostfile(tmp.write("hf", "n01\n^n05\n"), HostUse::Activate)));
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n05", "n01"}));  // ^n05 is the file's
}

TEST(Resolve, UnknownNodeRefused) {
  const auto spec = parse_host_list("n01,n99", HostUse::Activate);
  const auto e = expect_input_error([&] { resolve_hosts(spec, allocated_nodes(), "PMIX_HOST"); });
  EXPECT_EQ(e.file(), "PMIX_HOST");
  EXPECT_EQ(e.line(), 0u);
  EXPECT_EQ(e.field(), "n99");
  EXPECT_EQ(e.detail(), "node 'n99' is not in the allocation");
}

TEST(Resolve, RelativeOutOfRange) {
  const auto spec = parse_host_list("+n5", HostUse::Activate);
  const auto e = expect_input_error([&] { resolve_hosts(spec, allocated_nodes(), "PMIX_HOST"); });
  EXPECT_EQ(e.file(), "PMIX_HOST");
  EXPECT_EQ(e.field(), "+n5");
  EXPECT_TRUE(Contains(e.detail(), "out of range"));
  EXPECT_TRUE(Contains(e.detail(), "5 node"));
  EXPECT_TRUE(Contains(e.detail(), "+n4"));
}

TEST(Resolve, RelativeOnEmptyAllocation) {
  const auto spec = parse_host_list("+n0", HostUse::Activate);
  const auto e = expect_input_error([&] { resolve_hosts(spec, {}); });
  EXPECT_TRUE(Contains(e.detail(), "0 node"));
  EXPECT_EQ(e.file(), "host list");
}

TEST(Resolve, EmptyNodesLeftToCaller) {
  const auto spec = parse_host_list("n02,+e:2", HostUse::Host);
  EXPECT_EQ(resolve_hosts(spec, allocated_nodes()), (std::vector<std::string>{"n02"}));
}

}  // namespace
}  // namespace pmixflow
