#include "pmixflow/trace/scenario.hpp"

#include <fstream>
#include <map>
#include <set>

#include "pmixflow/vocab/input_file.hpp"
#include "scenario_reader.hpp"

namespace pmixflow {
namespace {

using scenario_detail::json;
using scenario_detail::LineReader;
using scenario_detail::parse_fault;

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
  } else if (parse_fault(op, j, r, line, sc.faults)) {
  } else if (op == "scheduler_session_control" || op == "scheduler_connect") {
    sc.scheduler_actions.push_back(parse_scheduler_action(op, j, r, line, sc.scheduler_actions.size() + 1));
  } else if (op == "assert") {
    sc.assertions.push_back(
        parse_assertion(j, line, [&r](const std::string& field, const std::string& what) { r.fail(field, what); }));
  } else if (op == "controller_fail") {
    r.only(j, {"op", "at", "comment"}, "");
    if (sc.controller_fail) r.fail("op", "the controller fails once: a second controller_fail");
    sc.controller_fail = r.number(j, "at");
  } else if (op == "requestor_exit" || op == "requestor_start") {
    r.only(j, {"op", "at", "requestor", "comment"}, "");
    sc.requestor_transitions.push_back(
        RequestorTransition{line, r.number(j, "at"), r.string(j, "requestor"), op == "requestor_start"});
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
    r.fail("op",
           "unknown operation " + quote_value(op) +
               " (alloc, session_control, spawn, scheduler_attach, scheduler_detach, "
               "node_fail, daemon_start_fails, daemon_start_slow, controller_fail, requestor_exit, requestor_start, "
               "scheduler_session_control, "
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
