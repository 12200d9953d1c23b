// What a run was given, as its outputs record it: the inputs `pmixflow diff` and
// `pmixflow compare` name when runs differ in them. One list whether it is read from a
// summary.json or from an event log's header, so that both commands say the same names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/log/header.hpp"

namespace pmixflow {

// (name, value) in a fixed order: env, scenario, seed, policy, platform, topology, nodes,
// slots_per_node, then each of the run's `options` (batch_delay, via_daemon, jitter, ...) by its
// own name. Inputs a run does not record (an older run's options) are left out.
using RecordedInputs = std::vector<std::pair<std::string, nlohmann::json>>;

RecordedInputs summary_inputs(const nlohmann::json& summary);
RecordedInputs header_inputs(const log::LogHeader& header);

// A value for people: a string without its quotes, anything else as JSON.
std::string input_text(const nlohmann::json& value);

}  // namespace pmixflow
