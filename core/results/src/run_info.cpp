#include "pmixflow/results/run_info.hpp"

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/json_input.hpp"

namespace pmixflow {

nlohmann::json RunInfo::inputs() const {
  nlohmann::json in{{"scenario", scenario},
                    {"name", name},
                    {"description", description},
                    {"platform", platform},
                    {"topology", topology},
                    {"head", head},
                    {"nodes", nodes},
                    {"slots_per_node", slots_per_node},
                    {"policy", policy},
                    {"time_origin", time_origin},
                    {"compute_nodes", compress_host_names(compute_nodes)},
                    {"options", options}};
  if (!trace.empty()) {
    in["trace"] = trace;
    in["skipped_by_reason"] = skipped_by_reason;
    if (!repaired_by_reason.empty()) in["repaired_by_reason"] = repaired_by_reason;
    if (!estimates_by_case.empty()) in["estimates_by_case"] = estimates_by_case;
    in["compare_recorded"] = compare_recorded;
    if (node_mtbf) in["node_mtbf"] = *node_mtbf;
    if (node_mttr) in["node_mttr"] = *node_mttr;
  }
  if (calls_planned) in["calls_planned"] = *calls_planned;
  // Only when given, so that a log without them reads as it always did.
  if (!host.empty()) in["host"] = host;
  if (!hostfile.empty()) in["hostfile"] = hostfile;
  if (!assertions.empty()) {
    auto& list = in["assertions"] = nlohmann::json::array();
    for (const auto& a : assertions) list.push_back(to_json(a));
  }
  return in;
}

std::string RunInfo::estimate_rule() const {
  const auto it = options.find("estimates");
  return it != options.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::uint32_t> RunInfo::node_index(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

namespace {

class Inputs {
 public:
  Inputs(const nlohmann::json& j, const std::string& file) : j_(j), file_(file) {}
  std::string text(const char* key, bool required = true) const {
    const auto it = j_.find(key);
    if (it == j_.end() && !required) return {};
    if (it == j_.end() || !it->is_string()) fail(key, "expects a string");
    return it->get<std::string>();
  }
  // A number of T's range: a header written by hand or by another tool is read as any input
  // is, never wrapped (numbers.hpp).
  template <class T>
  T number(const char* key, T otherwise, bool required = true) const {
    const auto it = j_.find(key);
    if (it == j_.end() && !required) return otherwise;
    if (it == j_.end()) fail(key, "expects a number");
    if constexpr (std::is_integral_v<T>)
      return checked_json_whole<T>(*it, site(key), std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
    else
      return checked_json_real(*it, site(key), std::numeric_limits<double>::lowest(),
                               std::numeric_limits<double>::max());
  }
  // {"reason": count, ...}, absent for none.
  std::map<std::string, std::size_t> counts(const char* key) const {
    std::map<std::string, std::size_t> out;
    const auto it = j_.find(key);
    if (it == j_.end()) return out;
    if (!it->is_object()) fail(key, "expects an object of counts");
    for (const auto& [reason, count] : it->items())
      out[reason] = checked_json_whole<std::size_t>(count, site(key), 0, std::numeric_limits<std::size_t>::max());
    return out;
  }
  [[noreturn]] void fail(const char* key, const std::string& what) const {
    throw InputError(file_, 1, std::string("inputs.") + key, what + " (the header says what the run was)");
  }
  InputSite site(const char* key) const { return InputSite{file_, 1, std::string("inputs.") + key}; }

 private:
  const nlohmann::json& j_;
  const std::string& file_;
};

std::vector<Assertion> read_assertions(const nlohmann::json& inputs, const Inputs& in) {
  std::vector<Assertion> out;
  const auto it = inputs.find("assertions");
  if (it == inputs.end()) return out;
  if (!it->is_array()) in.fail("assertions", "expects an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& j = (*it)[i];
    const std::string where = "assertions[" + std::to_string(i) + "]";
    if (!j.is_object() || !j.contains("line") || !j["line"].is_number_unsigned())
      in.fail(where.c_str(), "expects an assertion with the line it was written on");
    out.push_back(parse_assertion(
        j, j["line"].get<std::size_t>(),
        [&](const std::string& field, const std::string& what) { in.fail((where + "." + field).c_str(), what); }));
  }
  return out;
}

}  // namespace

RunInfo RunInfo::from_header(const log::LogHeader& header, const std::string& file) {
  const Inputs in(header.inputs, file);
  RunInfo r;
  r.env = header.env;
  r.seed = header.seed;
  r.scenario = in.text("scenario");
  r.name = in.text("name", false);
  r.description = in.text("description", false);
  r.platform = in.text("platform");
  r.topology = in.text("topology");
  r.head = in.text("head");
  r.nodes = in.number<std::uint32_t>("nodes", 0);
  r.slots_per_node = in.number<std::uint32_t>("slots_per_node", 0);
  try {
    r.compute_nodes = expand_host_names(in.text("compute_nodes"), "compute_nodes");
  } catch (const InputError& e) {
    in.fail("compute_nodes", e.detail());
  }
  for (std::uint32_t i = 0; i < r.compute_nodes.size(); ++i) r.index_.emplace(r.compute_nodes[i], i);
  if (r.compute_nodes.size() != r.nodes)
    in.fail("compute_nodes",
            "names " + std::to_string(r.compute_nodes.size()) + " nodes, not " + std::to_string(r.nodes));
  r.policy = in.text("policy");
  r.time_origin = in.number<double>("time_origin", 0, false);
  r.trace = in.text("trace", false);
  r.skipped_by_reason = in.counts("skipped_by_reason");
  r.repaired_by_reason = in.counts("repaired_by_reason");
  r.estimates_by_case = in.counts("estimates_by_case");
  if (const auto it = header.inputs.find("compare_recorded"); it != header.inputs.end()) {
    if (!it->is_boolean()) in.fail("compare_recorded", "expects true or false");
    r.compare_recorded = it->get<bool>();
  }
  if (header.inputs.contains("node_mtbf")) r.node_mtbf = in.number<double>("node_mtbf", 0);
  if (header.inputs.contains("node_mttr")) r.node_mttr = in.number<double>("node_mttr", 0);
  if (header.inputs.contains("calls_planned")) r.calls_planned = in.number<std::uint64_t>("calls_planned", 0);
  r.host = in.text("host", false);
  r.hostfile = in.text("hostfile", false);
  r.assertions = read_assertions(header.inputs, in);
  if (const auto it = header.inputs.find("options"); it != header.inputs.end()) {  // absent before 2026-12
    if (!it->is_object()) in.fail("options", "expects an object");
    r.options = *it;
  }
  return r;
}

}  // namespace pmixflow
