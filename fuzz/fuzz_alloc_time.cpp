// PMIX_ALLOC_TIME, as a scenario line, a command line or a replayed trace gives it. Beyond
// not crashing: a value that parses must come back the same through its shortest spelling.
#include <cmath>
#include <cstdlib>

#include "fuzz_support.hpp"
#include "pmixflow/vocab/timespec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pmixflow;
  const std::string_view text = fuzz::as_text(data, size);
  double seconds = -1;
  if (!fuzz::refused_or_ok([&] { seconds = parse_alloc_time(text); })) return 0;
  if (!std::isfinite(seconds) || seconds < 0 || seconds != std::trunc(seconds)) std::abort();
  // Every accepted value is a whole number of seconds that format_alloc_time writes and
  // parse_alloc_time reads back unchanged.
  if (parse_alloc_time(format_alloc_time(seconds)) != seconds) std::abort();
  return 0;
}
