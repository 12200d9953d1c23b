#include "pmixflow/results/assertion_check.hpp"

#include <algorithm>
#include <cmath>

#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {
namespace {

using log::EventKind;
using log::Field;
using json = nlohmann::json;

bool same_number(double a, const json& want) { return want.is_number() && a == want.get<double>(); }

// An info field (its JSON text, [[key, value], ...]) that carries every key of `want` with its
// value; or a list of records ([{...}, ...], as session.completed's jobs) one of which does.
bool info_carries(std::string_view text, const json& want) {
  const json items = json::parse(text, nullptr, false);
  if (!items.is_array()) return false;
  const auto record_carries = [&want](const json& record) {
    return record.is_object() && std::all_of(want.items().begin(), want.items().end(), [&record](const auto& kv) {
             const auto it = record.find(kv.key());
             return it != record.end() && *it == kv.value();
           });
  };
  if (!items.empty() && items.front().is_object()) return std::any_of(items.begin(), items.end(), record_carries);
  for (const auto& [key, value] : want.items()) {
    bool found = false;
    for (const auto& item : items)
      found = found || (item.is_array() && item.size() == 2 && item[0] == key && item[1] == value);
    if (!found) return false;
  }
  return true;
}

// Whether one field's value is the one a count asks for.
bool matches(const log::FieldValue& value, const json& want) {
  return std::visit(
      [&want](const auto& v) -> bool {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string_view>)
          return want.is_string() && want.get<std::string>() == v;
        else if constexpr (std::is_same_v<T, bool>)
          return want.is_boolean() && want.get<bool>() == v;
        else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::int64_t> ||
                           std::is_same_v<T, double>)
          return same_number(static_cast<double>(v), want);
        else if constexpr (std::is_same_v<T, Status>)
          return want.is_string() && parse_status(want.get<std::string>()) == v;
        else if constexpr (std::is_same_v<T, log::JsonText>)
          return want.is_object() && info_carries(v.text, want);
        else
          return false;
      },
      value);
}

bool who_matches(std::string_view who, const std::string& pattern) {
  if (pattern.empty()) return true;
  if (pattern.back() == '*')
    return who.substr(0, pattern.size() - 1) == std::string_view(pattern).substr(0, pattern.size() - 1);
  return who == pattern;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::string yes_no(bool b) { return b ? "true" : "false"; }

}  // namespace

bool event_matches(const EventMatch& m, const log::EventView& e) {
  if (m.kind != e.kind || !who_matches(e.who, m.who)) return false;
  return std::all_of(m.fields.begin(), m.fields.end(), [&e](const auto& f) { return matches(e[f.first], f.second); });
}

AssertionChecker::AssertionChecker(std::vector<Assertion> assertions, std::vector<std::string> compute_nodes)
    : compute_nodes_(std::move(compute_nodes)) {
  for (auto& a : assertions) pending_.push_back(Pending{std::move(a), 0});
}

void AssertionChecker::apply(const log::EventView& e) {
  if (pending_.empty()) return;
  // Everything up to an assertion's time is in once an event comes after it.
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->a.at && *it->a.at < e.t) {
      check(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  count(e);
  state_.apply(e);
  if (e.kind != EventKind::Answer) return;
  const std::string_view corr = e.str(Field::corr).value_or("");
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!it->a.after.empty() && it->a.after == corr) {
      check(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

void AssertionChecker::finish() {
  for (auto& p : pending_) {
    if (!p.a.after.empty())
      fail(p.a, "after", "an answer to " + p.a.after, "never answered");
    else
      check(p);
  }
  pending_.clear();
}

void AssertionChecker::count(const log::EventView& e) {
  for (auto& p : pending_) {
    if (p.a.subject == AssertSubject::Count && event_matches(p.a.count, e)) ++p.counted;
  }
}

void AssertionChecker::check(Pending& p) {
  ++checked_;
  const Assertion& a = p.a;
  switch (a.subject) {
    case AssertSubject::Session: return check_session(a);
    case AssertSubject::Node: return check_node(a);
    case AssertSubject::Job: return check_job(a);
    case AssertSubject::Count:
      if (p.counted != a.equals) fail(a, "equals", std::to_string(a.equals), std::to_string(p.counted));
      return;
  }
}

void AssertionChecker::check_session(const Assertion& a) {
  std::optional<std::uint32_t> id;
  if (a.target_is_call)
    id = state_.session_of(a.target);
  else
    id = parse_whole<std::uint32_t>(a.target);  // read as one when the assertion was
  const LoggedSession* s = id ? state_.session(*id) : nullptr;
  const bool exists = s && s->exists;
  if (a.exists && *a.exists != exists)
    fail(a, "exists", yes_no(*a.exists), !id ? "no session instantiated for " + a.target : yes_no(exists));
  if (a.nodes) {
    const std::string saw = id ? joined(state_.nodes_of(*id)) : "no session instantiated for " + a.target;
    if (!id || saw != joined(*a.nodes)) fail(a, "nodes", joined(*a.nodes), saw.empty() ? "(none)" : saw);
  }
}

void AssertionChecker::check_node(const Assertion& a) {
  std::string name = a.target;
  if (name.starts_with("+n"))
    if (const auto k = parse_whole<std::size_t>(std::string_view(name).substr(2)); k && *k < compute_nodes_.size())
      name = compute_nodes_[*k];
  const LoggedNode* n = state_.node(name);
  if (!n) return fail(a, "node", a.target, "no node of that name in the log");
  if (a.daemon && *a.daemon != n->daemon) fail(a, "daemon", *a.daemon, n->daemon);
  if (a.use && *a.use != n->use) fail(a, "use", *a.use, n->use);
}

void AssertionChecker::check_job(const Assertion& a) {
  const std::optional<std::string> nspace = a.target_is_call ? state_.job_of(a.target) : a.target;
  const LoggedJob* j = nspace ? state_.job(*nspace) : nullptr;
  if (a.exists && *a.exists != (j != nullptr))
    fail(a, "exists", yes_no(*a.exists), j ? "launched as " + *nspace : "no job launched");
  if (a.ranks && (!j || j->ranks != *a.ranks)) fail(a, "ranks", *a.ranks, j ? j->ranks : "no job launched");
}

void AssertionChecker::fail(const Assertion& a, const std::string& property, const std::string& expected,
                            const std::string& saw) {
  json f{{"line", a.line}, {"assert", a.what()}, {"property", property}, {"expected", expected}, {"saw", saw}};
  if (a.at) f["at"] = *a.at;
  if (!a.after.empty()) f["after"] = a.after;
  failures_.push_back(std::move(f));
}

}  // namespace pmixflow
