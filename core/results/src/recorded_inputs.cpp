#include "pmixflow/results/recorded_inputs.hpp"

namespace pmixflow {
namespace {

using json = nlohmann::json;

// The run's fields in the order people read them; "scenario" is the workload's name.
constexpr const char* kRunFields[] = {"env",      "scenario", "seed",  "policy",
                                      "platform", "topology", "nodes", "slots_per_node"};

RecordedInputs collect(const json& fields, const json& options) {
  RecordedInputs out;
  for (const char* name : kRunFields)
    if (const auto it = fields.find(name); it != fields.end()) out.emplace_back(name, *it);
  if (options.is_object())
    for (const auto& [name, value] : options.items()) out.emplace_back(name, value);
  return out;
}

}  // namespace

RecordedInputs summary_inputs(const json& summary) {
  if (!summary.is_object()) return {};
  return collect(summary, summary.value("options", json::object()));
}

RecordedInputs header_inputs(const log::LogHeader& header) {
  json fields = header.inputs.is_object() ? header.inputs : json::object();
  // The summary names the workload by the scenario's name when it has one; so does this.
  if (const auto name = fields.find("name"); name != fields.end() && name->is_string() && !name->empty())
    fields["scenario"] = *name;
  fields["env"] = header.env;
  fields["seed"] = header.seed;
  return collect(fields, fields.value("options", json::object()));
}

std::string input_text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

}  // namespace pmixflow
