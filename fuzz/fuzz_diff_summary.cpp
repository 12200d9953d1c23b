// summary.json as `pmixflow diff` reads it: a JSON object whose metrics are compared.
#include "diff_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kReference =
      R"({"format":"pmixflow-summary","jobs":148,"rejected":0,"mean_wait_s":6990.75,"max_wait_s":14243.0,)"
      R"("utilization":0.5,"makespan_s":29011.0,"preemptions":0,"lost_work_cpu_s":0.0,"messages":2252})";
  pmixflow::fuzz::diff_both_ways("summary.json", pmixflow::fuzz::as_text(data, size), kReference);
  return 0;
}
