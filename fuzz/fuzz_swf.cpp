// SWF traces as `pmixflow sim --trace` reads them, strict and --lenient. The same bytes are
// also read gzip-compressed: the reader must say the same of both (gzip is detected from the
// content), which checks its own line assembly across zlib's chunks.
#include <zlib.h>

#include <cstdlib>

#include "swf_common.hpp"

namespace {

using namespace pmixflow;

// Compressed in memory with zlib's smallest state (memLevel 1, no compression work): a gzip
// file all the same, at a fraction of the default's cost per input.
std::string gzip_file(std::string_view bytes) {
  z_stream z{};
  if (deflateInit2(&z, 0, Z_DEFLATED, 15 + 16, 1, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return fuzz::write_file("trace.swf.gz", out);
}

bool same(const SwfTrace& a, const SwfTrace& b) {
  if (a.jobs.size() != b.jobs.size() || a.skipped != b.skipped || a.repaired != b.repaired || a.header != b.header)
    return false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i)
    if (a.jobs[i].record.job != b.jobs[i].record.job || a.jobs[i].procs != b.jobs[i].procs) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string plain = fuzz::write_file("trace.swf", text);
  const std::string gz = gzip_file(text);
  for (bool lenient : {false, true}) {
    SwfTrace a, b;
    const bool read_a = fuzz::refused_or_ok([&] { a = read_swf(plain, SwfOptions{lenient}); });
    const bool read_b = fuzz::refused_or_ok([&] { b = read_swf(gz, SwfOptions{lenient}); });
    if (read_a != read_b || (read_a && !same(a, b))) std::abort();
    if (read_a) fuzz::replay(a);
  }
  return 0;
}
