// The scenario reader's line-level checks, shared by its files (scenario.cpp: the header,
// calls and events; scenario_faults.cpp: failure injection): each field read with its type
// and range, and every refusal naming the file, the line and the field.
#pragma once

#include <algorithm>
#include <cfloat>
#include <climits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/info.hpp"
#include "pmixflow/vocab/json_input.hpp"
#include "pmixflow/vocab/keys.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow::scenario_detail {

// Ordered: info keys reach the wire in the order the file gives them, as a caller's array would.
using json = nlohmann::ordered_json;

class LineReader {
 public:
  LineReader(const std::string& origin, std::size_t line) : origin_(origin), line_(line) {}
  // A field's name holds the file's keys, as long as they are: cut as a value is.
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(origin_, line_, cut_value(field), what);
  }
  InputSite site(const std::string& field) const { return InputSite{origin_, line_, field}; }
  void only(const json& obj, std::initializer_list<std::string_view> allowed, const std::string& where) const {
    only(obj, std::vector<std::string_view>(allowed), where);
  }
  void only(const json& obj, const std::vector<std::string_view>& allowed, const std::string& where) const {
    for (const auto& [k, v] : obj.items()) {
      bool ok = false;
      for (auto a : allowed) ok = ok || a == k;
      if (!ok) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(where.empty() ? k : where + "." + k, "unknown field (expected one of: " + list + ")");
      }
    }
  }
  // Seconds: a time in the scenario or a duration, finite and within what PMIx can carry.
  double number(const json& obj, const std::string& field, std::optional<double> dflt = std::nullopt) const {
    if (!obj.contains(field)) {
      if (dflt) return *dflt;
      fail(field, "missing");
    }
    return checked_json_real(obj.at(field), site(field), 0.0, kMaxSeconds);
  }
  // A whole number of Int's range (or narrower); `type` names the PMIx type when it has one.
  template <std::integral Int>
  Int whole(const json& v, const std::string& field, Int min = std::numeric_limits<Int>::lowest(),
            Int max = std::numeric_limits<Int>::max(), std::string_view type = {}) const {
    Int out{};
    const NumberFault fault = json_whole(v, out, min, max);
    if (fault == NumberFault::None) return out;
    if (fault == NumberFault::NotANumber && !type.empty())
      fail(field, "expects " + std::string(type) + ", got " + cut_value(v.dump()));
    fail(field, json_number_refusal(fault, v, range_text(min, max), true));
  }
  std::string string(const json& obj, const std::string& field, std::optional<std::string> dflt = std::nullopt) const {
    if (!obj.contains(field)) {
      if (dflt) return *dflt;
      fail(field, "missing");
    }
    const auto& v = obj.at(field);
    if (!v.is_string()) fail(field, "expects a string, got " + cut_value(v.dump()));
    return v.get<std::string>();
  }
  bool boolean(const json& obj, const std::string& field, bool dflt) const {
    if (!obj.contains(field)) return dflt;
    const auto& v = obj.at(field);
    if (!v.is_boolean()) fail(field, "expects true or false, got " + cut_value(v.dump()));
    return v.get<bool>();
  }

  std::vector<std::string> strings(const json& obj, const std::string& key, const std::string& field) const {
    std::vector<std::string> out;
    if (!obj.contains(key)) return out;
    const auto& v = obj.at(key);
    if (!v.is_array()) fail(field + "." + key, "expects an array of strings");
    for (const auto& a : v) {
      if (!a.is_string()) fail(field + "." + key, "expects an array of strings");
      out.push_back(a.get<std::string>());
    }
    return out;
  }

  // Only a signal whose default action ends a process: a real process raising another
  // (SIGCHLD, SIGCONT, SIGSTOP, ...) would go on, and the emulator would disagree with the simulator.
  int exit_signal(const json& v, const std::string& field) const {
    int signal = 0;
    if (json_whole(v, signal, 1, 64) != NumberFault::None || !ends_a_process(signal))
      fail(field,
           "expects a signal number 1..64 that ends a process (not 17-23 or 28: SIGCHLD, SIGCONT, SIGSTOP, "
           "SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH), got " +
               cut_value(v.dump()));
    return signal;
  }

  // What an app does may come in its environment too (model/app_behaviour.hpp), where a value
  // the processes cannot read would be dropped without a word: each is checked as its field is.
  void check_behaviour_env(const App& app, const std::string& field) const {
    const auto value = [&](std::string_view name) -> std::optional<std::string> {
      const std::string* entry = env_value(app, name);
      if (!entry) return std::nullopt;
      return entry->substr(name.size() + 1);
    };
    const InputSite at = site(field);
    if (auto v = value(kRuntimeVar)) checked_real(*v, at, 0.0, kMaxSeconds);
    if (auto v = value(kTickVar)) checked_real(*v, at, 0.0, kMaxSeconds);
    if (auto v = value(kExitCodeVar)) checked_whole<int>(*v, at, 0, 255);
    if (auto v = value(kExitSignalVar)) exit_signal(json(checked_whole<int>(*v, at)), field);
    if (auto v = value(kFailLaunchVar); v && *v != "0" && *v != "1") {
      if (split_names(*v).empty())
        fail(field, std::string(kFailLaunchVar) + " is 0, 1 or a comma list of node names, got " + quote_value(*v));
      for (const auto entry : split_host_list(*v))
        if (!entry.empty()) fail_launch_hosts(entry, field);  // a malformed range is said, not dropped
    }
  }

  std::vector<std::string> fail_launch_hosts(std::string_view entry, const std::string& field) const {
    try {
      return expand_host_entry(entry, field);
    } catch (const InputError& e) {
      fail(field, e.detail());
    }
  }

  // true, false, or the nodes where the executable cannot start: ["n02","n05"].
  void read_fail_launch(const json& v, const std::string& field, AppBehaviour& b) const {
    b.fail_launch_on.clear();
    if (v.is_boolean()) {
      b.fail_launch = v.get<bool>();
      return;
    }
    if (!v.is_array() || v.empty())
      fail(field, "expects true, false or an array of node names, got " + cut_value(v.dump()));
    // Each element is one name or one Slurm range of them ("n[01-04]"), not a list.
    for (const auto& n : v) {
      if (!n.is_string() || n.get<std::string>().empty() || split_host_list(n.get<std::string>()).size() != 1)
        fail(field, "expects node names, got " + cut_value(n.dump()));
      for (auto& name : fail_launch_hosts(n.get<std::string>(), field)) b.fail_launch_on.push_back(std::move(name));
    }
    b.fail_launch = true;
  }

  App app(const json& j, const std::string& field) const {
    if (!j.is_object()) fail(field, "an app is an object {\"cmd\":..., \"argv\":[...], \"np\":N}");
    only(j, {"cmd", "argv", "env", "np", "runtime", "exit_code", "exit_signal", "fail_launch"}, field);
    App app;
    app.cmd = string(j, "cmd");
    app.argv = strings(j, "argv", field);
    app.env = strings(j, "env", field);
    for (const auto& e : app.env)
      if (e.find('=') == std::string::npos || e.front() == '=')
        fail(field + ".env", "expects NAME=value entries, got " + quote_value(e));
    check_behaviour_env(app, field + ".env");
    if (j.contains("np")) app.maxprocs = whole<std::uint32_t>(j["np"], field + ".np");
    if (app.cmd != "sleep" && !j.contains("runtime") && !env_value(app, kRuntimeVar))
      fail(field + ".runtime", "a simulated app runs `sleep N` or gives its run time in seconds");
    // What the processes do travels in their environment (model/app_behaviour.hpp); the
    // fields given here win over the same description given in "env".
    AppBehaviour behaviour = app_behaviour(app);
    if (j.contains("runtime")) behaviour.runtime_s = number(j, "runtime", 0.0);
    // What a real process can return: the emulator's processes exit with it.
    if (j.contains("exit_code")) behaviour.exit_code = whole<int>(j["exit_code"], field + ".exit_code", 0, 255);
    if (j.contains("exit_signal")) behaviour.exit_signal = exit_signal(j["exit_signal"], field + ".exit_signal");
    if (j.contains("fail_launch")) read_fail_launch(j.at("fail_launch"), field + ".fail_launch", behaviour);
    describe(app, behaviour);
    if (app.cmd == "sleep") {
      if (app.argv.empty()) fail(field + ".argv", "`sleep` needs its seconds as the first argument");
      checked_real(app.argv[0], site(field + ".argv"), 0.0, kMaxSeconds);
    }
    return app;
  }

  std::vector<App> apps(const json& j, const std::string& field) const {
    std::vector<App> out;
    if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) out.push_back(app(j[i], field + "[" + std::to_string(i) + "]"));
    } else {
      out.push_back(app(j, field));
    }
    if (out.empty()) fail(field, "needs at least one app");
    return out;
  }

  Value typed(const KeySpec& spec, const json& v, const std::string& field) const {
    const std::string_view type = value_type_name(spec.type);
    auto want = [&](bool ok) {
      if (!ok) fail(field, "expects " + std::string(type) + ", got " + cut_value(v.dump()));
    };
    switch (spec.type) {
      case ValueType::Bool: want(v.is_boolean()); return v.get<bool>();
      case ValueType::Int32: return whole<std::int32_t>(v, field, INT32_MIN, INT32_MAX, type);
      case ValueType::UInt32: return whole<std::uint32_t>(v, field, 0, UINT32_MAX, type);
      case ValueType::UInt64: return whole<std::uint64_t>(v, field, 0, UINT64_MAX, type);
      case ValueType::Double: want(v.is_number()); return checked_json_real(v, site(field), -DBL_MAX, DBL_MAX);
      case ValueType::String: want(v.is_string()); return v.get<std::string>();
      case ValueType::AllocTime:
        if (v.is_number()) return whole<std::uint32_t>(v, field, 0, UINT32_MAX);  // 4.2.2: seconds
        want(v.is_string());
        try {
          parse_alloc_time(v.get<std::string>());
        } catch (const InputError& e) {
          fail(field, e.detail());
        }
        return v.get<std::string>();
      case ValueType::Proc: {
        want(v.is_string());
        const auto s = v.get<std::string>();
        const auto dot = s.rfind('.');
        if (dot == std::string::npos || dot + 1 == s.size() ||
            s.find_first_not_of("0123456789", dot + 1) != std::string::npos)
          fail(field, "a proc is \"nspace.rank\", got " + cut_value(v.dump()));
        return Proc{s.substr(0, dot), checked_whole<std::uint32_t>(s.substr(dot + 1), site(field + ".rank"))};
      }
      case ValueType::InfoList: want(v.is_object()); return info(v, field);
      case ValueType::Apps: return apps(v, field);
      case ValueType::Status: {
        want(v.is_string());
        auto st = parse_status(v.get<std::string>());
        if (!st) fail(field, "unknown status " + cut_value(v.dump()));
        return *st;
      }
      case ValueType::Directive: {
        want(v.is_string());
        auto d = parse_directive(v.get<std::string>());
        if (!d) fail(field, "unknown directive " + cut_value(v.dump()));
        return *d;
      }
    }
    fail(field, "unsupported type");
  }

  // A value typed by its JSON form alone: a bool, an int (int32 when it fits, else uint64), a
  // number, a string, an object of info read the same way.
  Value as_written(const json& v, const std::string& field) const {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT32_MAX))
        return v.get<std::uint64_t>();
      if (v.is_number_unsigned()) return static_cast<std::int32_t>(v.get<std::uint64_t>());
      return whole<std::int32_t>(v, field, INT32_MIN, INT32_MAX, "int");
    }
    if (v.is_number()) return checked_json_real(v, site(field), -DBL_MAX, DBL_MAX);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object()) {
      InfoList out;
      for (const auto& [k, e] : v.items()) out.add(k, as_written(e, field + "." + k));
      return out;
    }
    fail(field, "as_written takes a bool, a number, a string or an object, got " + cut_value(v.dump()));
  }

  InfoList info(const json& obj, const std::string& where) const {
    if (!obj.is_object()) fail(where, "expects an object of PMIx keys");
    InfoList out;
    for (const auto& [k, v] : obj.items()) {
      const std::string field = where + "." + k;
      const auto spec = find_key(k);
      if (v.is_object() && v.size() == 1 && v.contains("as_written")) {
        // On the wire as written, whatever its key's type: what the RM answers to bad input.
        if (!spec && k.rfind("pmix.", 0) != 0) fail(field, "unknown PMIx attribute (use its PMIX_ name or a pmix.* key string)");
        out.add(spec ? std::string(spec->key) : k, as_written(v["as_written"], field + ".as_written"));
        continue;
      }
      if (spec && v.is_array() && spec->type != ValueType::Apps) {
        // The key given once per element, in order (PMIX_NSPACE naming several jobs).
        if (v.empty()) fail(field, "an array gives the key once per element: it needs one");
        for (std::size_t i = 0; i < v.size(); ++i)
          out.add(spec->key, typed(*spec, v[i], field + "[" + std::to_string(i) + "]"));
        continue;
      }
      if (spec) {
        out.add(spec->key, typed(*spec, v, field));
        continue;
      }
      // Keys the project does not know still travel (the RM ignores unknown keys), typed by
      // their JSON form; a misspelt upstream name is an error, not a silent new key.
      if (k.rfind("pmix.", 0) != 0) fail(field, "unknown PMIx attribute (use its PMIX_ name or a pmix.* key string)");
      if (v.is_boolean())
        out.add(k, v.get<bool>());
      else if (v.is_number_unsigned())
        out.add(k, v.get<std::uint64_t>());
      else if (v.is_number())
        out.add(k, v.get<double>());
      else if (v.is_string())
        out.add(k, v.get<std::string>());
      else
        fail(field, "an unknown key can carry a bool, a number or a string");
    }
    return out;
  }

 private:
  const std::string& origin_;
  std::size_t line_;
};

// Failure injection (node_fail, daemon_fail, scheduler_stall, ...; scenario_faults.cpp): false
// when `op` is none of them.
bool parse_fault(const std::string& op, const json& j, const LineReader& r, std::size_t line,
                 std::vector<FaultEvent>& out);

}  // namespace pmixflow::scenario_detail
