// jobs.csv as `pmixflow diff` reads it (RFC 4180 CSV; job_id, starting_time, final_state).
#include "diff_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kReference =
      "job_id,submission_time,final_state,starting_time,metadata\n"
      "1,0,COMPLETED_SUCCESSFULLY,0.5,\n"
      "2,29,COMPLETED_KILLED,,\"preemptions=1;lost_cpu_s=3\"\n"
      "2,30,REJECTED,-1,\n";
  pmixflow::fuzz::diff_both_ways("jobs.csv", pmixflow::fuzz::as_text(data, size), kReference);
  return 0;
}
