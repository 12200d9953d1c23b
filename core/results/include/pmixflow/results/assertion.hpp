// What a scenario asserts about a run's effects, beyond the status each answer carries: a
// session that exists (or not) and the nodes it holds, a node's daemon and use, where a job's
// ranks went, how many events of a kind happened. An assertion is an input of the run: the
// log's header carries them, and the report checks them against the events, so a scenario
// states a behaviour that any environment's log can be held to. README, "Scenario files".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/log/record.hpp"

namespace pmixflow {

enum class AssertSubject { Session, Node, Job, Count };

// An event of one kind whose fields have these values (a count's filter).
struct EventMatch {
  log::EventKind kind = log::EventKind::LogEnd;
  std::string who;  // empty: any party; a trailing `*` matches a prefix (`daemon:*`)
  std::vector<std::pair<log::Field, nlohmann::json>> fields;
};

struct Assertion {
  std::size_t line = 0;
  // When it is checked: once every event up to `at` is in, right after the answer to the call
  // `after`, or (neither) at the end of the run.
  std::optional<double> at;
  std::string after;

  AssertSubject subject = AssertSubject::Session;
  // Session: a call (`u#1`, the session its request was granted) or an id; Node: a name or
  // `+nK`; Job: a call (the job its request ran) or a namespace.
  std::string target;
  bool target_is_call = false;
  std::optional<bool> exists;                     // Session, Job
  std::optional<std::vector<std::string>> nodes;  // Session: the nodes it holds, sorted
  std::optional<std::string> daemon;              // Node: none, starting, up, failed
  std::optional<std::string> use;                 // Node: free, withheld, busy
  std::optional<std::string> ranks;               // Job: `n01:0-3,n02:4-7`
  EventMatch count;                               // Count
  std::uint64_t equals = 0;                       // Count

  nlohmann::json source;  // the assertion as written (without `op`, `at`, `after`, `comment`)
  // "session_of u#1", "node n02", "count session.complete": for people.
  std::string what() const;
};

// Reads `j` (one scenario line, or an entry of a log header's `assertions`). `fail(field,
// what)` must throw; it is called for anything that is not a valid assertion.
using AssertFail = std::function<void(const std::string& field, const std::string& what)>;
Assertion parse_assertion(const nlohmann::json& j, std::size_t line, const AssertFail& fail);

// {"ev":KIND, "who":PARTY, FIELD:VALUE...}, as a count and a fault's trigger write it; errors
// name `where` and the field.
EventMatch parse_event_match(const nlohmann::json& j, const std::string& where, const AssertFail& fail);
bool event_matches(const EventMatch& m, const log::EventView& e);

// As the log's header carries it: `source` with `line`, `at` and `after`.
nlohmann::json to_json(const Assertion& a);

}  // namespace pmixflow
