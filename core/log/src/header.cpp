#include "pmixflow/log/header.hpp"

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/json_input.hpp"

namespace pmixflow::log {

std::string render_header(const LogHeader& header) {
  // Format and version first, as a reader needs them, not in nlohmann's sorted order.
  // The inputs name files, whose names Linux does not require to be UTF-8: dump_utf8 never
  // throws on one, and keeps the line strict JSON.
  return "{\"format\":" + nlohmann::json(kFormat).dump() + ",\"version\":" + std::to_string(kVersion) +
         ",\"env\":" + dump_utf8(nlohmann::json(header.env)) + ",\"seed\":" + std::to_string(header.seed) +
         ",\"inputs\":" + dump_utf8(header.inputs) + "}\n";
}

LogHeader parse_header(std::string_view line, const std::string& file) {
  auto fail = [&](const std::string& field, const std::string& what) -> InputError {
    return InputError(file, 1, field, what);
  };
  nlohmann::json j;
  try {
    j = parse_json_input(line, InputSite{file, 1, ""});
  } catch (const InputError& e) {
    throw fail(e.field(), "not a pmixflow event log: its first line is not a JSON header (" + e.detail() + ")");
  }
  // Looked at as it is: value("format", "") would throw nlohmann's own type error (an
  // exception no reader expects) on a format that is not a string.
  const auto format = j.find("format");
  if (!j.is_object() || format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != kFormat)
    throw fail("format", "not a pmixflow event log: the header's format is not \"" + std::string(kFormat) + "\"");
  int version = 0;
  if (!j.contains("version") ||
      json_whole(j["version"], version, 0, std::numeric_limits<int>::max()) != NumberFault::None)
    throw fail("version", "the header has no version number");
  if (version < kOldestVersion || version > kVersion)
    throw fail("version", "a version " + std::to_string(version) + " log; this pmixflow reads versions " +
                              std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) +
                              (version < kVersion ? " (run the scenario again to write one)" : " (upgrade pmixflow)"));
  LogHeader h;
  h.version = version;
  if (!j.contains("env") || !j["env"].is_string()) throw fail("env", "expects the environment's name");
  h.env = j["env"].get<std::string>();
  if (!j.contains("seed")) throw fail("seed", "expects a whole number");
  h.seed = checked_json_whole<std::uint64_t>(j["seed"], InputSite{file, 1, "seed"});
  if (!j.contains("inputs") || !j["inputs"].is_object()) throw fail("inputs", "expects an object");
  h.inputs = j["inputs"];
  return h;
}

}  // namespace pmixflow::log
