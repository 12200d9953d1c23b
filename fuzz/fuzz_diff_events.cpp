// Event logs as `pmixflow diff` compares them: headers' inputs, the first diverging line and
// the field that differs in it (the lines parsed again as JSON objects).
#include "diff_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kReference =
      R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{"policy":"fcfs"}})"
      "\n"
      R"({"t":1.5,"ev":"job.start","who":"controller","nspace":"job-1.1","session":1,"corr":"a#1","code":"PMIX_EVENT_JOB_START"})"
      "\n"
      R"({"t":2,"ev":"log.end","who":"run","end":"quiescent","events":1,"stats":{"wall_s":1}})"
      "\n";
  pmixflow::fuzz::diff_both_ways("events.jsonl", pmixflow::fuzz::as_text(data, size), kReference, true);
  return 0;
}
