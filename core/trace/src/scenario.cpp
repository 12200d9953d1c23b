#include "pmixflow/trace/scenario.hpp"

#include <cfloat>
#include <climits>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/input_file.hpp"
#include "pmixflow/vocab/json_input.hpp"
#include "pmixflow/vocab/keys.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {
namespace {

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
    if (auto v = value(kFailLaunchVar); v && *v != "0" && *v != "1")
      fail(field, std::string(kFailLaunchVar) + " is 0 or 1, got " + quote_value(*v));
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
    if (j.contains("fail_launch")) behaviour.fail_launch = boolean(j, "fail_launch", false);
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

  InfoList info(const json& obj, const std::string& where) const {
    if (!obj.is_object()) fail(where, "expects an object of PMIx keys");
    InfoList out;
    for (const auto& [k, v] : obj.items()) {
      const std::string field = where + "." + k;
      if (auto spec = find_key(k)) {
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

// {"alice":{"uid":1001,"gid":100}, ...}: the credentials each one's connection has.
void parse_credentials(const json& j, const LineReader& r, Scenario& sc) {
  if (!j.is_object()) r.fail("requestors", "expects an object of requestor name -> {\"uid\":N,\"gid\":N}");
  for (const auto& [name, c] : j.items()) {
    const std::string where = "requestors." + name;
    if (!c.is_object()) r.fail(where, "expects {\"uid\":N,\"gid\":N}");
    r.only(c, {"uid", "gid"}, where);
    Credentials cred;
    for (const char* k : {"uid", "gid"})
      if (c.contains(k))
        (std::string(k) == "uid" ? cred.uid : cred.gid) =
            r.whole<std::uint32_t>(c[k], where + "." + k, 0, UINT32_MAX, "a user or group id (uint32)");
    sc.credentials[name] = cred;
  }
}

void parse_header(const json& h, const LineReader& r, Scenario& sc) {
  if (!h.contains("format") || h["format"] != kScenarioFormat)
    r.fail("format", "the first line must be the header {\"format\":\"pmixflow-scenario\",\"version\":1}");
  r.only(h, {"format", "version", "name", "description", "controller", "scheduler", "requestors"}, "");
  int version = 0;
  if (!h.contains("version") || json_whole(h["version"], version, 0, INT_MAX) != NumberFault::None ||
      version != kScenarioVersion)
    r.fail("version", "this pmixflow reads scenario version " + std::to_string(kScenarioVersion));
  sc.name = r.string(h, "name", "");
  sc.description = r.string(h, "description", "");
  if (h.contains("controller")) {
    const auto& c = h["controller"];
    if (!c.is_object()) r.fail("controller", "expects an object");
    r.only(c, {"start", "connect_to_scheduler", "no_scheduler", "dvm", "computes"}, "controller");
    sc.head_computes = r.boolean(c, "computes", false);
    sc.controller_start = r.number(c, "start", 0.0);
    sc.connect_to_scheduler = r.boolean(c, "connect_to_scheduler", true);
    const auto mode = r.string(c, "no_scheduler", "hold");
    if (mode == "hold")
      sc.no_scheduler = NoSchedulerMode::Hold;
    else if (mode == "refuse")
      sc.no_scheduler = NoSchedulerMode::Refuse;
    else if (mode == "serve")
      sc.no_scheduler = NoSchedulerMode::Serve;
    else
      r.fail("controller.no_scheduler", "expects \"hold\", \"refuse\" or \"serve\"");
    sc.dvm = r.string(c, "dvm", "head");
  }
  if (h.contains("requestors")) parse_credentials(h["requestors"], r, sc);
  if (h.contains("scheduler")) {
    const auto& s = h["scheduler"];
    if (!s.is_object()) r.fail("scheduler", "expects an object");
    r.only(s, {"start", "attach", "policy", "exclusive_nodes", "batch_delay", "queues", "instantiates"}, "scheduler");
    sc.scheduler_instantiates = r.boolean(s, "instantiates", true);
    if (s.contains("start") && s["start"].is_null())
      sc.scheduler_start.reset();
    else
      sc.scheduler_start = r.number(s, "start", 0.0);
    sc.scheduler_attaches = r.boolean(s, "attach", true);
    sc.policy = r.string(s, "policy", "fcfs");
    sc.exclusive_nodes = r.boolean(s, "exclusive_nodes", false);
    if (s.contains("batch_delay")) sc.batch_delay = r.number(s, "batch_delay");
    if (s.contains("queues")) {
      const auto& q = s["queues"];
      if (!q.is_object()) r.fail("scheduler.queues", "expects an object of queue name -> integer priority");
      for (const auto& [name, priority] : q.items()) {
        sc.queue_priorities[name] =
            r.whole<int>(priority, "scheduler.queues." + name, INT_MIN, INT_MAX, "an integer priority");
      }
    }
  }
}

std::string parse_via(const json& op, const LineReader& r) {
  const auto via = r.string(op, "via");
  if (via == "controller" || via == "scheduler") return via;
  if (via.rfind("daemon:", 0) == 0 && via.size() > 7) return via;
  r.fail("via", "expects \"controller\", \"scheduler\" or \"daemon:NODE\", got " + quote_value(via));
}

std::optional<Status> parse_expect(const json& j, const LineReader& r) {
  if (!j.contains("expect")) return std::nullopt;
  const auto& e = j["expect"];
  if (!e.is_object()) r.fail("expect", "expects an object {\"status\":\"PMIX_SUCCESS\"}");
  r.only(e, {"status"}, "expect");
  auto st = parse_status(r.string(e, "status"));
  if (!st) r.fail("expect.status", "unknown status");
  return st;
}

SessionCtrlRequest parse_session_control(const json& j, const LineReader& r);

// The scheduler's own hand: a session control it places on the RM, or an attach it tries
// at a daemon (which only the controller accepts, FLOW.md 3).
SchedulerAction parse_scheduler_action(const std::string& op, const json& j, const LineReader& r, std::size_t line,
                                       std::size_t n) {
  SchedulerAction a;
  a.line = line;
  a.at = r.number(j, "at");
  a.corr = "scheduler#" + std::to_string(n);
  a.expect_status = parse_expect(j, r);
  if (op == "scheduler_connect") {
    r.only(j, {"op", "at", "via", "expect", "comment"}, "");
    a.via = parse_via(j, r);
    if (a.via == "scheduler") r.fail("via", "the scheduler attaches to the controller or a daemon");
    ConnectRequest c;
    c.info.add(key::SERVER_SCHEDULER, true);
    a.call = std::move(c);
    return a;
  }
  a.via = "controller";
  json plain = j;  // session control's own fields, as a requestor's
  plain.erase("via");
  plain["requestor"] = "scheduler";
  plain["via"] = "controller";
  SessionCtrlRequest req = parse_session_control(plain, r);
  req.corr = a.corr;
  a.call = std::move(req);
  return a;
}

// The events a scenario schedules besides calls; false when `op` is none of them.
bool parse_event(const std::string& op, const json& j, const LineReader& r, std::size_t line, Scenario& sc) {
  if (op == "scheduler_attach" || op == "scheduler_detach") {
    r.only(j, {"op", "at", "comment"}, "");
    sc.scheduler_transitions.push_back(Transition{line, r.number(j, "at"), op == "scheduler_attach"});
  } else if (op == "node_fail" || op == "daemon_start_fails") {
    r.only(j, {"op", "at", "node", "comment"}, "");
    sc.node_events.push_back(NodeEvent{line, r.number(j, "at"), r.string(j, "node"),
                                       op == "node_fail" ? NodeFault::Dies : NodeFault::DaemonStartFails});
  } else if (op == "scheduler_session_control" || op == "scheduler_connect") {
    sc.scheduler_actions.push_back(parse_scheduler_action(op, j, r, line, sc.scheduler_actions.size() + 1));
  } else if (op == "assert") {
    sc.assertions.push_back(
        parse_assertion(j, line, [&r](const std::string& field, const std::string& what) { r.fail(field, what); }));
  } else if (op == "controller_fail") {
    r.only(j, {"op", "at", "comment"}, "");
    if (sc.controller_fail) r.fail("op", "the controller fails once: a second controller_fail");
    sc.controller_fail = r.number(j, "at");
  } else if (op == "requestor_exit") {
    r.only(j, {"op", "at", "requestor", "comment"}, "");
    sc.requestor_exits.push_back(RequestorExit{line, r.number(j, "at"), r.string(j, "requestor")});
  } else {
    return false;
  }
  return true;
}

Directive parse_directive_field(const json& obj, const LineReader& r, const std::string& field) {
  const auto dir = r.string(obj, "directive");
  const auto d = parse_directive(dir);
  if (!d)
    r.fail(field, "unknown directive " + quote_value(dir) +
                      " (PMIX_ALLOC_NEW, _EXTEND, _RELEASE, _REAQUIRE, _REQ_CANCEL, _ACTIVATE)");
  return *d;
}

AllocRequest parse_alloc(const json& j, const LineReader& r) {
  r.only(j, {"op", "at", "requestor", "via", "directive", "info", "app", "expect", "comment"}, "");
  AllocRequest req;
  req.directive = parse_directive_field(j, r, "directive");
  if (j.contains("info")) req.info = r.info(j["info"], "info");
  if (j.contains("app")) req.info.add(key::SESSION_APP, r.apps(j["app"], "app"));
  return req;
}

SessionCtrlRequest parse_session_control(const json& j, const LineReader& r) {
  r.only(j, {"op", "at", "requestor", "via", "session", "directives", "app", "expect", "comment"}, "");
  SessionCtrlRequest req;
  if (!j.contains("session")) r.fail("session", "missing (a session id, or \"all\")");
  const auto& s = j["session"];
  if (s.is_string() && s.get<std::string>() == "all")
    req.session_id = kAllSessions;
  else if (std::uint32_t id = 0; json_whole(s, id, 0u, UINT32_MAX) == NumberFault::None)
    req.session_id = id;
  else
    r.fail("session", "expects a session id (0 to 4294967295) or \"all\", got " + cut_value(s.dump()));
  if (!j.contains("directives")) r.fail("directives", "missing");
  req.directives = r.info(j["directives"], "directives");
  if (j.contains("app")) req.directives.add(key::SESSION_APP, r.apps(j["app"], "app"));
  return req;
}

SpawnRequest parse_spawn(const json& j, const LineReader& r) {
  r.only(j, {"op", "at", "requestor", "via", "app", "info", "alloc", "expect", "comment"}, "");
  SpawnRequest req;
  if (!j.contains("app")) r.fail("app", "missing: a spawn launches at least one app");
  req.apps = r.apps(j["app"], "app");
  if (j.contains("info")) req.job_info = r.info(j["info"], "info");
  if (!j.contains("alloc")) return req;
  // PMIX_SPAWN_ALLOC: the directive and the info a standalone request would carry.
  const auto& a = j["alloc"];
  if (!a.is_object()) r.fail("alloc", "expects {\"directive\":..., \"info\":{...}}");
  r.only(a, {"directive", "info"}, "alloc");
  InfoList alloc;
  alloc.add(key::ALLOC_REQ_DIRECTIVE, parse_directive_field(a, r, "alloc.directive"));
  if (a.contains("info"))
    for (auto& item : r.info(a["info"], "alloc.info").items) alloc.items.push_back(std::move(item));
  req.job_info.add(key::SPAWN_ALLOC, std::move(alloc));
  return req;
}

ScenarioCall parse_call(const std::string& op, const json& j, const LineReader& r, std::size_t line,
                        std::map<std::string, std::uint32_t>& calls_per_requestor) {
  ScenarioCall c;
  c.line = line;
  c.at = r.number(j, "at");
  c.requestor = r.string(j, "requestor");
  if (c.requestor.empty() || c.requestor.find_first_of(" \t#") != std::string::npos)
    r.fail("requestor", "a requestor name is one word");
  c.via = parse_via(j, r);
  c.expect_status = parse_expect(j, r);
  const std::string corr = c.requestor + "#" + std::to_string(++calls_per_requestor[c.requestor]);
  auto with_corr = [&corr](auto req) {
    req.corr = corr;
    return req;
  };
  if (op == "alloc")
    c.call = with_corr(parse_alloc(j, r));
  else if (op == "session_control")
    c.call = with_corr(parse_session_control(j, r));
  else if (op == "spawn")
    c.call = with_corr(parse_spawn(j, r));
  else
    r.fail("op", "unknown operation " + quote_value(op) +
                     " (alloc, session_control, spawn, scheduler_attach, scheduler_detach, "
                     "node_fail, daemon_start_fails, controller_fail, requestor_exit, scheduler_session_control, "
                     "scheduler_connect, "
                     "assert)");
  return c;
}

// An assertion that waits for a call, or is about what a call got, must name one of the file's.
void check_assertion_calls(const Scenario& sc) {
  std::set<std::string> calls;
  for (const auto& c : sc.calls) std::visit([&calls](const auto& req) { calls.insert(req.corr); }, c.call);
  for (const auto& a : sc.scheduler_actions) calls.insert(a.corr);
  for (const auto& a : sc.assertions) {
    const LineReader r(sc.origin, a.line);
    if (!a.after.empty() && !calls.count(a.after))
      r.fail("after",
             "no call " + quote_value(a.after) + " in this scenario (calls are named requestor#n, n counting from 1)");
    if (a.target_is_call && !calls.count(a.target))
      r.fail(a.subject == AssertSubject::Session ? "session_of" : "job_of",
             "no call " + quote_value(a.target) + " in this scenario (calls are named requestor#n, n counting from 1)");
  }
}

}  // namespace

Scenario parse_scenario(std::istream& in, const std::string& origin) {
  Scenario sc;
  sc.origin = origin;
  std::map<std::string, std::uint32_t> calls_per_requestor;
  std::string text;
  std::size_t line = 0;
  bool have_header = false;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    LineReader r(origin, line);
    const json j = parse_json_input<json>(text, r.site(""));
    if (!j.is_object()) r.fail("", "each line is one JSON object");
    if (!have_header) {
      parse_header(j, r, sc);
      have_header = true;
      continue;
    }
    const auto op = r.string(j, "op");
    if (!parse_event(op, j, r, line, sc)) sc.calls.push_back(parse_call(op, j, r, line, calls_per_requestor));
  }
  if (!have_header) throw InputError(origin, 0, "", "empty scenario: the first line must be the header");
  check_assertion_calls(sc);
  return sc;
}

InfoList parse_info_json(std::string_view json_object, const std::string& origin, const std::string& where) {
  const LineReader r(origin, 0);
  return r.info(parse_json_input<json>(json_object, r.site(where)), where);
}

Scenario load_scenario(const std::string& path) {
  refuse_directory(path, "a scenario file");
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open the scenario file");
  return parse_scenario(in, path);
}

}  // namespace pmixflow
