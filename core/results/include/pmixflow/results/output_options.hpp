// Where a run's outputs go.
#pragma once

#include <string>

namespace pmixflow {

struct OutputOptions {
  std::string dir;        // DIR/events.jsonl, jobs.csv, summary.json (recorded.csv); empty: none
  bool events = true;     // write DIR/events.jsonl
  std::string events_to;  // the log to this file instead, or "-" for standard output
  bool quiet = false;     // print only errors
};

}  // namespace pmixflow
