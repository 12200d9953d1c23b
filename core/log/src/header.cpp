#include "pmixflow/log/header.hpp"

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::log {

std::string render_header(const LogHeader& header) {
  // Format and version first, as a reader needs them, not in nlohmann's sorted order.
  return "{\"format\":" + nlohmann::json(kFormat).dump() + ",\"version\":" + std::to_string(kVersion) +
         ",\"env\":" + nlohmann::json(header.env).dump() + ",\"seed\":" + std::to_string(header.seed) +
         ",\"inputs\":" + header.inputs.dump() + "}\n";
}

LogHeader parse_header(std::string_view line, const std::string& file) {
  auto fail = [&](const std::string& field, const std::string& what) -> InputError {
    return InputError(file, 1, field, what);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error&) {
    throw fail("", "not a pmixflow event log: its first line is not a JSON header");
  }
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw fail("format", "not a pmixflow event log: the header's format is not \"" + std::string(kFormat) + "\"");
  if (!j.contains("version") || !j["version"].is_number_integer())
    throw fail("version", "the header has no version number");
  const int version = j["version"].get<int>();
  if (version != kVersion)
    throw fail("version", "a version " + std::to_string(version) + " log; this pmixflow reads version " +
                              std::to_string(kVersion) +
                              (version < kVersion ? " (run the scenario again to write one)" : " (upgrade pmixflow)"));
  LogHeader h;
  if (!j.contains("env") || !j["env"].is_string()) throw fail("env", "expects the environment's name");
  h.env = j["env"].get<std::string>();
  if (!j.contains("seed") || !j["seed"].is_number_unsigned()) throw fail("seed", "expects a whole number");
  h.seed = j["seed"].get<std::uint64_t>();
  if (!j.contains("inputs") || !j["inputs"].is_object()) throw fail("inputs", "expects an object");
  h.inputs = j["inputs"];
  return h;
}

}  // namespace pmixflow::log
