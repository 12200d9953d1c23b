// Hostfiles (--hostfile, PMIX_HOSTFILE, file= in a host list): one host a line, slots=N,
// max_slots=N, comments, ^exclusions.
#include "fuzz_support.hpp"
#include "pmixflow/vocab/hostlist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pmixflow;
  const std::string path = fuzz::write_file("hostfile", fuzz::as_text(data, size));
  for (HostUse use : {HostUse::Host, HostUse::Activate, HostUse::NodeList}) {
    HostSpec spec;
    if (fuzz::refused_or_ok([&] { spec = parse_hostfile(path, use); }))
      fuzz::refused_or_ok([&] { resolve_hosts(spec, {"n01", "n02", "n03", "n04"}); });
  }
  // The same file named from a host list, as PMIX_HOST's file= reads it.
  fuzz::refused_or_ok(
      [&] { parse_host_list("n01,file=hostfile", HostUse::Activate, "fuzz", fuzz::scratch_dir().string()); });
  return 0;
}
