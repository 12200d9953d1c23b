#include "pmixflow/results/summary_file.hpp"

#include <limits>
#include <string_view>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/input_file.hpp"
#include "pmixflow/vocab/json_input.hpp"

namespace pmixflow {

nlohmann::json read_summary_file(const std::string& path) {
  // Bounded as every JSON input is: a summary.json nested a hundred thousand deep is refused,
  // not walked until the stack runs out.
  nlohmann::json s = parse_json_input(read_whole_file(path, "a summary.json"), InputSite{path, 0, ""});
  if (!s.is_object()) throw InputError(path, 0, "", "not a pmixflow summary: not a JSON object");
  const auto format = s.find("format");
  if (format != s.end() && *format != "pmixflow-summary")
    throw InputError(path, 0, "format", "not a pmixflow summary (expected \"format\": \"pmixflow-summary\")");
  return s;
}

const nlohmann::json* summary_member(const nlohmann::json& summary, const std::string& key) {
  const nlohmann::json* at = &summary;
  std::string_view rest = key;
  while (true) {
    if (!at->is_object()) return nullptr;
    const auto dot = rest.find('.');
    const auto it = at->find(std::string(rest.substr(0, dot)));
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    rest.remove_prefix(dot + 1);
  }
}

std::optional<double> summary_metric(const nlohmann::json& summary, const std::string& key, const std::string& path) {
  const nlohmann::json* v = summary_member(summary, key);
  if (!v || v->is_null()) return std::nullopt;
  return checked_json_real(*v, InputSite{path, 0, key}, std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::max());
}

}  // namespace pmixflow
