#include "sweep_table.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sweep_io.hpp"

namespace pmixflow::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kExitFile = "exit_status";

// summary.json's metrics, in sweep.csv's order: simulated figures only, so that two sweeps of
// the same spec agree on every column whatever machine ran them (wall_s stays in the run's own
// summary.json). A path with a dot reads a nested key. Columns added later (the percentiles)
// come last, so that a reader of the older columns finds them where they were.
const std::vector<std::string>& metric_columns() {
  static const std::vector<std::string> columns{"jobs",
                                                "rejected",
                                                "mean_wait_s",
                                                "max_wait_s",
                                                "mean_bounded_slowdown",
                                                "utilization",
                                                "makespan_s",
                                                "preemptions",
                                                "lost_work_cpu_s",
                                                "failures.node_failures",
                                                "failures.jobs_killed",
                                                "skipped",
                                                "sim_time_s",
                                                "messages",
                                                "bytes",
                                                "nodes",
                                                "slots_per_node",
                                                "end",
                                                "p50_wait_s",
                                                "p90_wait_s",
                                                "p99_wait_s",
                                                "p50_bounded_slowdown",
                                                "p90_bounded_slowdown",
                                                "p99_bounded_slowdown"};
  return columns;
}

std::string cell(const json& summary, const std::string& path) {
  const json* at = &summary;
  std::size_t from = 0;
  for (;;) {
    const auto dot = path.find('.', from);
    const std::string key = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
    if (!at->is_object() || !at->contains(key)) return "";
    at = &(*at)[key];
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  // Numbers as the summary holds them (the shortest text that reads back the same double); a
  // null (a percentile of no job) is an empty cell, as pandas reads a missing value.
  if (at->is_null()) return "";
  return at->is_string() ? at->get<std::string>() : at->is_primitive() ? at->dump() : "";
}

std::string csv_field(const std::string& value) {
  if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

const char* state_name(RunState s) {
  switch (s) {
    case RunState::done: return "done";
    case RunState::failed: return "failed";
    case RunState::pending: return "pending";
  }
  return "pending";
}

// The metric columns, but those named like a parameter (a varied --nodes is its own column,
// and the summary's nodes says the same).
std::vector<std::string> metrics_of(const SweepRun& run) {
  std::vector<std::string> metrics;
  for (const auto& column : metric_columns()) {
    bool is_param = false;
    for (const auto& param : run.params) is_param = is_param || param.first == column;
    if (!is_param) metrics.push_back(column);
  }
  return metrics;
}

std::string row(const fs::path& out, const SweepRun& run, const std::vector<std::string>& metrics) {
  std::string line = csv_field(run.id);
  for (const auto& [column, value] : run.params) line += "," + csv_field(value);
  const fs::path dir = run_dir(out, run);
  const RunState state = run_state(dir);
  line += std::string(",") + state_name(state);
  json summary;
  if (state == RunState::done) {
    std::ifstream in(dir / "summary.json");
    summary = json::parse(in, nullptr, false);
  }
  for (const auto& column : metrics) line += "," + csv_field(cell(summary, column));
  return line + "\n";
}

}  // namespace

fs::path run_dir(const fs::path& out, const SweepRun& run) { return out / "runs" / run.id; }

int recorded_exit(const fs::path& dir) {
  std::ifstream in(dir / kExitFile);
  int status = -1;
  if (!(in >> status)) return -1;
  return status;
}

RunState run_state(const fs::path& dir) {
  const int status = recorded_exit(dir);
  if (status < 0) return RunState::pending;
  std::error_code ec;
  return status == 0 && fs::is_regular_file(dir / "summary.json", ec) ? RunState::done : RunState::failed;
}

void record_exit(const fs::path& dir, int status) { write_whole(dir / kExitFile, std::to_string(status) + "\n"); }

void forget_exit(const fs::path& dir) {
  std::error_code ignored;
  fs::remove(dir / kExitFile, ignored);
}

void write_sweep_csv(const fs::path& out, const std::vector<SweepRun>& runs) {
  if (runs.empty()) return;  // a spec always makes one run at least
  std::ostringstream text;
  text << "run";
  for (const auto& [column, value] : runs.front().params) text << "," << column;
  text << ",state";
  const std::vector<std::string> metrics = metrics_of(runs.front());
  for (const auto& column : metrics) text << "," << column;
  text << "\n";
  for (const auto& run : runs) text << row(out, run, metrics);
  write_whole(out / "sweep.csv", text.str());
}

}  // namespace pmixflow::cli
