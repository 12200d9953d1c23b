// What a path given to a reader of runs (report, outcomes, diff, compare, the viewer) stands
// for: a run directory - its event log (events.jsonl, else events.jsonl.gz), jobs.csv and
// summary.json, whichever are there - or a single file named alone. Found here once for all of
// them, each file checked to be one before anything opens it: a named pipe, a directory, a
// loop of symbolic links where a run's file should be is refused, named, with its reason.
#pragma once

#include <string>

namespace pmixflow::log {

struct RunFiles {
  std::string path;  // as given
  std::string events;
  std::string jobs;
  std::string summary;
  bool is_dir = false;  // a run directory; else `path` is one file, in `events` ("-": standard input)
};

// InputError naming the path when it does not exist, is a directory holding none of a run's
// files, or when it or one of those files is not a regular file a reader may open.
RunFiles locate_run(const std::string& path);

// The event log of the run at `path` (a run directory or the log itself); InputError naming
// the directory's events.jsonl when it has no log.
std::string run_log_path(const std::string& path);

// Following a run that may be starting: whether its log (at `path`, a run directory or the log
// itself) is there with its header line whole. InputError when what is there cannot be
// followed (a named pipe, a compressed log, not a log), rather than waiting on it forever.
bool log_started(const std::string& path);

}  // namespace pmixflow::log
