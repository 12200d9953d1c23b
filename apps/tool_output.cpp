#include "tool_output.hpp"

#include <map>

#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/keys.hpp"

namespace pmixflow::cli {
namespace {

using json = nlohmann::ordered_json;

std::string info_text(const InfoList& info);

// A string as is when it reads as one word, quoted (JSON) otherwise.
std::string word(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n\"'{}=") == std::string::npos) return s;
  return json_quote(s);
}

std::string value_text(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        if constexpr (std::is_same_v<T, double>) return json_number(x);
        if constexpr (std::is_same_v<T, std::string>) return word(x);
        if constexpr (std::is_same_v<T, Status>) return status_name(x);
        if constexpr (std::is_same_v<T, Directive>) return std::string(directive_name(x));
        if constexpr (std::is_same_v<T, Proc>) return to_string(x);
        if constexpr (std::is_same_v<T, InfoList>) return "{" + info_text(x) + "}";
        if constexpr (std::is_same_v<T, std::vector<App>>) return value_to_json(Value(x));
        if constexpr (std::is_integral_v<T>) return std::to_string(x);
        return "?";
      },
      v);
}

std::string info_text(const InfoList& info) {
  std::string out;
  for (const auto& item : info.items)
    out += (out.empty() ? "" : " ") + key_name(item.key) + "=" + value_text(item.value);
  return out;
}

json info_json(const InfoList& info);

json value_json(const Value& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Status>) {
          return status_name(x);
        } else if constexpr (std::is_same_v<T, Directive>) {
          return std::string(directive_name(x));
        } else if constexpr (std::is_same_v<T, Proc>) {
          return to_string(x);
        } else if constexpr (std::is_same_v<T, InfoList>) {
          return info_json(x);
        } else if constexpr (std::is_same_v<T, std::vector<App>>) {
          json apps = json::array();
          for (const auto& a : x)
            apps.push_back({{"cmd", a.cmd}, {"argv", a.argv}, {"env", a.env}, {"np", a.maxprocs}});
          return apps;
        } else {
          return json(x);
        }
      },
      v);
}

json info_json(const InfoList& info) {
  std::map<std::string, int> times;
  for (const auto& item : info.items) ++times[key_name(item.key)];
  json out = json::object();
  for (const auto& item : info.items) {
    const std::string name = key_name(item.key);
    // A key given more than once (PMIX_JOB_INFO_ARRAY, once per job): its values in order.
    if (times[name] > 1)
      out[name].push_back(value_json(item.value));
    else
      out[name] = value_json(item.value);
  }
  return out;
}

}  // namespace

std::string key_name(const std::string& key) {
  const auto spec = find_key(key);
  return spec ? std::string(spec->name) : key;
}

std::string answer_line(Status status, const InfoList& info) {
  const std::string items = info_text(info);
  return status_name(status) + (items.empty() ? "" : "  " + items);
}

json answer_json(Status status, const InfoList& info) {
  return json{{"status", status_name(status)}, {"code", static_cast<int>(status)}, {"info", info_json(info)}};
}

}  // namespace pmixflow::cli
