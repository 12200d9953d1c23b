// A run's summary.json read back, by `pmixflow diff` and `pmixflow compare` alike: one reading of
// the file, one check of its format, one reading of a figure.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pmixflow {

// The summary at `path`. InputError naming the path when it cannot be read, is not JSON (or is
// nested past the JSON inputs' bound), is not an object, or says another "format". A summary
// without "format" is read: pmixflow wrote none before the log became a contract (2026-12-01).
nlohmann::json read_summary_file(const std::string& path);

// The member at a dotted key ("failures.jobs_killed"); nullptr when any part is missing.
const nlohmann::json* summary_member(const nlohmann::json& summary, const std::string& key);

// A figure of the summary: nullopt when it is absent or null (no job ran); InputError naming the
// path and key when it is not a number.
std::optional<double> summary_metric(const nlohmann::json& summary, const std::string& key, const std::string& path);

}  // namespace pmixflow
