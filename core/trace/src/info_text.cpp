#include "pmixflow/trace/info_text.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/json_input.hpp"
#include "pmixflow/vocab/keys.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow {
namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void refuse(const std::string& what, const std::string& arg, const std::string& detail) {
  throw InputError(what, 0, "", "argument " + quote_value(arg) + ": " + detail);
}

// JSON text an argument gives whole (an info array, an app): bounded and checked as a scenario
// line is.
json json_argument(const std::string& text, const std::string& what, const std::string& arg) {
  try {
    return parse_json_input<json>(text, InputSite{what, 0, ""});
  } catch (const InputError& e) {
    refuse(what, arg, (e.field().empty() ? "" : e.field() + ": ") + e.detail());
  }
}

// The text as JSON when it is a bool or a number; nothing otherwise (a string, then).
std::optional<json> scalar(const std::string& text) {
  if (json_text_problem(text)) return std::nullopt;  // a hundred thousand '[' is no scalar
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_boolean() || j.is_number()) return j;
  return std::nullopt;
}

// A value as the scenario's JSON would hold it for a key of this type. Values the type cannot
// take are passed on as strings: the scenario reader then says what it expected.
json value_json(const std::optional<KeySpec>& spec, const std::string& text, const std::string& what,
                const std::string& arg) {
  if (!spec) return scalar(text).value_or(json(text));
  switch (spec->type) {
    case ValueType::Bool:
    case ValueType::Int32:
    case ValueType::UInt32:
    case ValueType::UInt64:
    case ValueType::Double: return scalar(text).value_or(json(text));
    case ValueType::AllocTime:
      // 4.2.2's whole seconds as a number, v5's time string as a string: as a scenario has them.
      if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) return scalar(text).value();
      return json(text);
    case ValueType::InfoList:
    case ValueType::Apps: {
      if (json_text_problem(text) || !json::accept(text))
        refuse(what, arg,
               "expects " + std::string(value_type_name(spec->type)) + " as JSON text, got " + quote_value(text));
      return json_argument(text, what, arg);
    }
    default: return json(text);
  }
}

// One KEY=VALUE argument, read by the scenario's reader as a one-key info object.
InfoList read_one(const std::string& arg, const std::string& what) {
  // The value reaches the event log: refused here, not written there as bytes no reader takes.
  if (!is_utf8(arg)) refuse(what, arg, invalid_utf8_text(arg));
  const auto eq = arg.find('=');
  const std::string key = arg.substr(0, eq);
  if (key.empty()) refuse(what, arg, "expects KEY=VALUE (a PMIX_ name or a pmix.* key string)");
  const auto spec = find_key(key);
  json value;
  if (eq != std::string::npos)
    value = value_json(spec, arg.substr(eq + 1), what, arg);
  else if (!spec || spec->type == ValueType::Bool)
    value = true;  // a key without a value, as PMIX_INFO_TRUE takes it
  else
    refuse(what, arg, "needs a value: " + key + "=" + std::string(value_type_name(spec->type)));
  json object = json::object();
  object[key] = std::move(value);
  try {
    return parse_info_json(object.dump(), what, "argument");
  } catch (const InputError& e) {
    // The field is "argument.KEY[.NESTED...]": the argument names the key, a nested key is news.
    const std::string top = "argument." + key;
    std::string detail = e.detail();
    if (e.field().size() > top.size() && e.field().rfind(top, 0) == 0)
      detail = e.field().substr(top.size() + 1) + ": " + detail;
    refuse(what, arg, detail);
  }
}

}  // namespace

InfoList info_from_text(const std::vector<std::string>& key_values, const std::string& what) {
  InfoList out;
  for (const auto& arg : key_values)
    for (auto& item : read_one(arg, what).items) out.items.push_back(std::move(item));
  return out;
}

std::vector<App> apps_from_text(const std::string& command, std::optional<std::uint32_t> np,
                                std::optional<double> runtime, const std::string& what) {
  const std::string arg = "--app " + command;
  if (!is_utf8(command)) refuse(what, arg, invalid_utf8_text(command));
  const auto first = command.find_first_not_of(" \t");
  json app;
  if (first != std::string::npos && (command[first] == '{' || command[first] == '[')) {
    if (np || runtime) refuse(what, arg, "an app given as JSON says its np and runtime itself");
    app = json_argument(command, what, arg);
  } else {
    std::istringstream words(command);
    std::vector<std::string> argv;
    for (std::string w; words >> w;) argv.push_back(w);
    if (argv.empty()) refuse(what, arg, "names no command");
    app["cmd"] = argv.front();
    app["argv"] = std::vector<std::string>(argv.begin() + 1, argv.end());
    if (np) app["np"] = *np;
    if (runtime) app["runtime"] = *runtime;
  }
  json object = json::object();
  object[std::string(key::SESSION_APP)] = std::move(app);
  try {
    const InfoList info = parse_info_json(object.dump(), what, "app");
    return *info.get<std::vector<App>>(key::SESSION_APP);
  } catch (const InputError& e) {
    const bool needs_runtime = e.field().size() >= 8 && e.field().ends_with(".runtime");
    refuse(what, arg, e.detail() + (needs_runtime ? " (--runtime S)" : ""));
  }
}

}  // namespace pmixflow
