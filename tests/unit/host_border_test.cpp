// Host lists and hostfiles at the border: slot counts checked against their range, and a range
// of names too large for any machine refused before it fills memory.
#include <gtest/gtest.h>

#include <string>

#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using test::Contains;
using test::expect_input_error;

TEST(HostBorder, SlotCountsAreCheckedAgainstTheirRange) {
  const test::TempDir tmp;
  const std::string path = tmp.write("hosts", "n01\nn02 slots=4294967297\n");
  const InputError e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.field(), "slots=4294967297");
  EXPECT_TRUE(Contains(e.detail(), "'4294967297' is out of range (1 to 4294967295)")) << e.detail();
}

TEST(HostBorder, AHugeRangeIsRefusedBeforeItFillsMemory) {
  for (const char* text : {"n[0-99999999999]", "n[0-18446744073709551615]", "a[0-600000],b[0-600000]"}) {
    const InputError e = expect_input_error([&] { expand_host_names(text, "compute_nodes"); });
    EXPECT_TRUE(Contains(e.detail(), "a list names at most 1048576 hosts")) << e.detail();
  }
  EXPECT_EQ(expand_host_names("n[8-10]").size(), 3u);
}

TEST(HostBorder, ALongTokenIsQuotedCut) {
  const test::TempDir tmp;
  const std::string path = tmp.write("hosts", "n01 " + std::string(100000, 'x') + "\n");
  const InputError e = expect_input_error([&] { parse_hostfile(path, HostUse::Host); });
  EXPECT_EQ(e.line(), 1u);
  EXPECT_TRUE(Contains(e.detail(), "(100000 bytes)")) << e.detail();
  EXPECT_LT(std::string(e.what()).size(), 400u);
}

}  // namespace
}  // namespace pmixflow
