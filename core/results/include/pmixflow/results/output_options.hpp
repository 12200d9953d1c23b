// Where a run's outputs go.
#pragma once

#include <string>

#include "pmixflow/log/level.hpp"

namespace pmixflow {

struct OutputOptions {
  std::string dir;                      // DIR/events.jsonl, jobs.csv, summary.json (recorded.csv); empty: none
  log::Level events = log::Level::All;  // how much the log keeps; None: no log
  std::string events_to;                // the log to this file instead, or "-" for standard output
  bool gzip_events = false;             // DIR/events.jsonl.gz, compressed
  bool quiet = false;                   // print only errors
};

}  // namespace pmixflow
