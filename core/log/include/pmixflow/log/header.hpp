// The first line of a log: its format and version, the environment that wrote it, the seed and
// the run's inputs. A reader refuses a log of another format or version before reading on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pmixflow/log/catalogue.hpp"

namespace pmixflow::log {

struct LogHeader {
  int version = kVersion;   // of a log read (kOldestVersion..kVersion); one written is always kVersion
  std::string env = "sim";  // the environment that ran: "sim", "emul"
  std::uint64_t seed = 0;
  nlohmann::json inputs = nlohmann::json::object();  // what the run was given (see docs/events.md)
};

// {"format":"pmixflow-events","version":kVersion,"env":...,"seed":...,"inputs":{...}} and a newline.
std::string render_header(const LogHeader& header);
// Throws InputError naming `file`, line 1 and the field at fault.
LogHeader parse_header(std::string_view line, const std::string& file);

}  // namespace pmixflow::log
