// Host lists as --host, PMIX_HOST / PMIX_ALLOC_ACTIVATE and PMIX_ALLOC_NODE_LIST give them,
// and the compressed host names of a log's header (`n[01-99,100],login`).
#include <cstdlib>
#include <stdexcept>

#include "fuzz_support.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/hostlist.hpp"

namespace {

using namespace pmixflow;

const std::vector<std::string> kAllocated = {"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08"};

void host_list(std::string_view text, HostUse use) {
  HostSpec spec;
  // Relative hostfiles (file=NAME) are looked for in the scratch directory, where there are none.
  if (!fuzz::refused_or_ok([&] { spec = parse_host_list(text, use, "fuzz", fuzz::scratch_dir().string()); })) return;
  fuzz::refused_or_ok([&] { resolve_hosts(spec, kAllocated); });
  HostSpec merged = spec;
  merge_host_specs(merged, spec);
  // What NodeList reads back from its own spelling is what it read first.
  if (use == HostUse::NodeList) {
    const HostSpec again = parse_host_list(format_host_list(spec.hosts), use, "fuzz");
    if (again.hosts != spec.hosts) std::abort();
  }
}

void host_names(std::string_view text) {
  std::vector<std::string> names;
  if (!fuzz::refused_or_ok([&] { names = expand_host_names(text); })) return;
  if (names.size() > 1) (void)natural_less(names.front(), names.back());
  std::string compressed;
  try {
    compressed = compress_host_names(names);
  } catch (const std::invalid_argument&) {
    return;  // documented: names holding ',', '[' or ']' cannot be written short
  }
  if (expand_host_names(compressed) != names) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  // A file= entry naming a device would read it for ever: the user's choice, not a parser bug.
  if (text.find("/dev/") != std::string_view::npos || text.find("/proc/") != std::string_view::npos ||
      text.find("/sys/") != std::string_view::npos)
    return 0;
  for (HostUse use : {HostUse::Host, HostUse::Activate, HostUse::NodeList}) host_list(text, use);
  host_names(text);
  return 0;
}
