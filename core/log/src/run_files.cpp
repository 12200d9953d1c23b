#include "pmixflow/log/run_files.hpp"

#include <filesystem>

#include "pmixflow/log/reader.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/input_file.hpp"

namespace pmixflow::log {
namespace {

namespace fs = std::filesystem;

// The run's file `name` when the directory has an entry of that name, checked; else empty.
// An entry that is there but is no file (a named pipe, a dangling link) is refused, not taken
// for a missing output.
std::string entry(const fs::path& dir, const char* name, const char* what) {
  std::error_code ec;
  const fs::path p = dir / name;
  if (!fs::exists(fs::symlink_status(p, ec))) return {};
  require_regular_file(p.string(), what);
  return p.string();
}

}  // namespace

RunFiles locate_run(const std::string& path) {
  RunFiles r;
  r.path = path;
  std::error_code ec;
  if (path != "-" && !fs::exists(fs::symlink_status(path, ec)))
    throw InputError(
        path, 0, "",
        "no such file or directory (expected a run directory, as written by `pmixflow sim --out`, or an events.jsonl)");
  if (path == "-" || !fs::is_directory(path, ec)) {
    if (path != "-") require_regular_file(path, "a run directory or one of its files");
    r.events = path;
    return r;
  }
  r.is_dir = true;
  r.events = entry(path, "events.jsonl", "an event log");
  if (r.events.empty()) r.events = entry(path, "events.jsonl.gz", "an event log");
  r.jobs = entry(path, "jobs.csv", "a jobs.csv");
  r.summary = entry(path, "summary.json", "a summary.json");
  if (r.events.empty() && r.jobs.empty() && r.summary.empty())
    throw InputError(path, 0, "", "not a run directory: it has no events.jsonl, jobs.csv or summary.json");
  return r;
}

std::string run_log_path(const std::string& path) {
  const RunFiles run = locate_run(path);
  if (run.events.empty())
    throw InputError((fs::path(path) / "events.jsonl").string(), 0, "",
                     "no event log here (a run directory holds events.jsonl, or events.jsonl.gz)");
  return run.events;
}

bool log_started(const std::string& path) {
  std::error_code ec;
  const fs::path run(path);
  const bool dir = fs::is_directory(run, ec);
  const auto there = [&ec](const fs::path& p) { return fs::exists(fs::symlink_status(p, ec)); };
  if (!there(dir ? run / "events.jsonl" : run) && !(dir && there(run / "events.jsonl.gz"))) return false;
  try {
    const LogReader reader(run_log_path(path), ReadOptions{.follow = true});
    return true;
  } catch (const LogNotStarted&) {
    return false;
  }
}

}  // namespace pmixflow::log
