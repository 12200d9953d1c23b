// .swf.gz files as they arrive: truncated, corrupt, several gzip members, garbage after the
// end. The input is the compressed file itself (seeded with compressed shipped traces).
#include "swf_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pmixflow;
  const std::string path = fuzz::write_file("trace.swf.gz", fuzz::as_text(data, size));
  for (bool lenient : {false, true}) {
    SwfTrace trace;
    if (fuzz::refused_or_ok([&] { trace = read_swf(path, SwfOptions{lenient}); })) fuzz::replay(trace);
  }
  return 0;
}
