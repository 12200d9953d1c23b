#include "pmixflow/results/assertion.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/json_input.hpp"
#include "pmixflow/vocab/keys.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {
namespace {

using json = nlohmann::json;

const std::set<std::string> kProperties{"exists", "nodes", "daemon", "use", "ranks", "equals"};
const std::set<std::string> kSubjects{"session", "session_of", "node", "job", "job_of", "count"};
// What each subject may be asserted to have.
const std::map<AssertSubject, std::set<std::string>> kAllowed{{AssertSubject::Session, {"exists", "nodes"}},
                                                              {AssertSubject::Node, {"daemon", "use"}},
                                                              {AssertSubject::Job, {"exists", "ranks"}},
                                                              {AssertSubject::Count, {"equals"}}};

class Reader {
 public:
  Reader(const json& j, const AssertFail& fail) : j_(j), fail_(fail) {}
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    fail_(field, what);
    throw std::logic_error("AssertFail returned");
  }
  std::string text(const char* key) const {
    const json& v = j_.at(key);
    if (!v.is_string() || v.get<std::string>().empty())
      fail(key, "expects a non-empty string, got " + cut_value(v.dump()));
    return v.get<std::string>();
  }
  std::optional<std::string> word(const char* key, const std::set<std::string>& allowed) const {
    if (!j_.contains(key)) return std::nullopt;
    const std::string v = text(key);
    if (!allowed.count(v)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(key, "expects one of " + list + ", got " + quote_value(v));
    }
    return v;
  }

 private:
  const json& j_;
  const AssertFail& fail_;
};

void read_subject(const json& j, const Reader& r, Assertion& a) {
  std::vector<std::string> named;
  for (const auto& s : kSubjects)
    if (j.contains(s)) named.push_back(s);
  if (named.size() != 1)
    r.fail(named.empty() ? "" : named[1],
           "an assertion is about one thing: session, session_of, node, job, job_of or count");
  const std::string& s = named.front();
  a.target_is_call = s == "session_of" || s == "job_of";
  if (s == "session" || s == "session_of") a.subject = AssertSubject::Session;
  if (s == "node") a.subject = AssertSubject::Node;
  if (s == "job" || s == "job_of") a.subject = AssertSubject::Job;
  if (s == "count") {
    a.subject = AssertSubject::Count;
    return;
  }
  if (s == "session" && j[s].is_number_unsigned() && j[s].get<std::uint64_t>() <= UINT32_MAX)
    a.target = std::to_string(j[s].get<std::uint64_t>());
  else if (s == "session")
    r.fail(s, "expects a session id (uint32); `session_of` names the call whose session is meant");
  else
    a.target = r.text(s.c_str());
  if (a.target_is_call && a.target.find('#') == std::string::npos)
    r.fail(s, "names a call, `requestor#n`, got " + quote_value(a.target));
}

// {"PMIX_ALLOC_ID":"alloc-0", ...}: the info must carry these keys with these values; kept
// under the keys' wire strings, as the log writes them.
json info_match(const json& value, const Reader& r, const std::string& field) {
  if (!value.is_object() || value.empty())
    r.fail(field, "an info field is matched by an object of PMIx attributes and their values");
  json out = json::object();
  for (const auto& [name, v] : value.items()) {
    const auto spec = find_key(name);
    if (!spec) r.fail(field + "." + name, "unknown PMIx attribute (use its PMIX_ name or its key string)");
    if (!(v.is_string() || v.is_number() || v.is_boolean()))
      r.fail(field + "." + name, "a value to match is a string, a number or a bool");
    out[std::string(spec->key)] = v;
  }
  return out;
}

EventMatch read_match(const json& c, const Reader& r, const std::string& where) {
  if (!c.is_object() || !c.contains("ev") || !c["ev"].is_string())
    r.fail(where, "expects {\"ev\":KIND, \"who\":PARTY, FIELD:VALUE...}");
  EventMatch m;
  const auto kind = log::find_kind(c["ev"].get<std::string>());
  if (!kind) r.fail(where + ".ev", "not a kind of event (`pmixflow events` lists them): " + cut_value(c["ev"].dump()));
  m.kind = *kind;
  for (const auto& [key, value] : c.items()) {
    if (key == "ev") continue;
    const std::string field = where + "." + key;
    if (key == "who") {
      if (!value.is_string()) r.fail(field, "expects a party name, e.g. \"scheduler\" or \"daemon:*\"");
      m.who = value.get<std::string>();
      continue;
    }
    const auto f = log::find_field(key);
    if (!f || !log::position(m.kind, *f))
      r.fail(field, "`" + std::string(log::spec(m.kind).name) + "` has no such field");
    const auto type = log::type_of(*f);
    if (type == log::FieldType::Info) {
      m.fields.emplace_back(*f, info_match(value, r, field));
      continue;
    }
    const bool scalar = value.is_string() || value.is_number() || value.is_boolean();
    if (type == log::FieldType::Json && value.is_object() && !value.empty() &&
        std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_primitive() && !v.is_null(); })) {
      // A list of records (session.completed's jobs): one of them carries every one of these.
      m.fields.emplace_back(*f, value);
      continue;
    }
    if (!scalar || type == log::FieldType::Info || type == log::FieldType::Apps || type == log::FieldType::Json)
      r.fail(field, "an event is matched by fields with a single value (string, number, bool or status)");
    if (type == log::FieldType::Status && !(value.is_string() && parse_status(value.get<std::string>())))
      r.fail(field, "expects a PMIx status or event name, got " + cut_value(value.dump()));
    m.fields.emplace_back(*f, value);
  }
  return m;
}

void read_properties(const json& j, const Reader& r, Assertion& a) {
  const auto& allowed = kAllowed.at(a.subject);
  for (const auto& p : kProperties)
    if (j.contains(p) && !allowed.count(p)) r.fail(p, "not something " + a.what() + " can be asserted to have");
  bool any = false;
  for (const auto& p : allowed) any = any || j.contains(p);
  if (!any) {
    std::string list;
    for (const auto& p : allowed) list += (list.empty() ? "" : ", ") + p;
    r.fail("", "says nothing about " + a.what() + " (give " + list + ")");
  }
  if (j.contains("exists")) {
    if (!j["exists"].is_boolean()) r.fail("exists", "expects true or false");
    a.exists = j["exists"].get<bool>();
  }
  if (j.contains("nodes")) {
    std::vector<std::string> names;
    std::string text = j["nodes"].is_string() ? j["nodes"].get<std::string>() : std::string("\x01");
    if (text == "\x01") r.fail("nodes", "expects a comma-separated list of node names (\"\": none)");
    try {
      names = expand_host_names(text, "nodes");  // Slurm ranges too: "n[01-04]"
    } catch (const InputError& e) {
      r.fail("nodes", e.detail());
    }
    std::sort(names.begin(), names.end(), host_order);  // as RunState::nodes_of lists them
    a.nodes = names;
  }
  a.daemon = r.word("daemon", {"none", "starting", "up", "failed"});
  a.use = r.word("use", {"free", "withheld", "busy"});
  if (j.contains("ranks")) a.ranks = r.text("ranks");
  if (j.contains("equals")) {
    if (!j["equals"].is_number_unsigned()) r.fail("equals", "expects a whole number of events");
    a.equals = j["equals"].get<std::uint64_t>();
  }
}

}  // namespace

std::string Assertion::what() const {
  switch (subject) {
    case AssertSubject::Session: return (target_is_call ? "session_of " : "session ") + target;
    case AssertSubject::Node: return "node " + target;
    case AssertSubject::Job: return (target_is_call ? "job_of " : "job ") + target;
    case AssertSubject::Count: return "count " + std::string(log::spec(count.kind).name);
  }
  return {};
}

Assertion parse_assertion(const json& j, std::size_t line, const AssertFail& fail) {
  const Reader r(j, fail);
  if (!j.is_object()) r.fail("", "an assertion is an object");
  for (const auto& [key, value] : j.items())
    if (!kProperties.count(key) && !kSubjects.count(key) && key != "op" && key != "at" && key != "after" &&
        key != "comment" && key != "line")
      r.fail(key,
             "unknown field (an assertion has at or after, one of session, session_of, node, job, job_of, "
             "count, and what it asserts: exists, nodes, daemon, use, ranks, equals)");
  Assertion a;
  a.line = line;
  if (j.contains("at")) {
    double at = 0;
    if (const NumberFault fault = json_real(j["at"], at, 0.0, kMaxSeconds); fault != NumberFault::None)
      r.fail("at",
             "expects a time in seconds: " + json_number_refusal(fault, j["at"], range_text(0.0, kMaxSeconds), false));
    a.at = at;
  }
  if (j.contains("after")) {
    if (a.at) r.fail("after", "an assertion is checked at a time or after an answer, not both");
    a.after = r.text("after");
    if (a.after.find('#') == std::string::npos) r.fail("after", "names a call, `requestor#n`");
  }
  read_subject(j, r, a);
  if (a.subject == AssertSubject::Count) a.count = read_match(j["count"], r, "count");
  read_properties(j, r, a);
  a.source = json::object();
  for (const auto& [key, value] : j.items())
    if (key != "op" && key != "at" && key != "after" && key != "comment" && key != "line") a.source[key] = value;
  return a;
}

EventMatch parse_event_match(const nlohmann::json& j, const std::string& where, const AssertFail& fail) {
  return read_match(j, Reader(j, fail), where);
}

json to_json(const Assertion& a) {
  json j = a.source;
  j["line"] = a.line;
  if (a.at) j["at"] = *a.at;
  if (!a.after.empty()) j["after"] = a.after;
  return j;
}

}  // namespace pmixflow
