// What the replay model gathers from a whole log, once: the parties, the nodes, and the life
// of every session, job, request and message, with the times things happened. A record's
// state at a moment T is read off these times (phase_at), so nothing here is replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/view/machine.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow::view {

enum class PartyRole : std::uint8_t { Requestor, Daemon, Controller, Scheduler, Other };

struct Party {
  std::string name;  // as `who` writes it: "daemon:n01", "requestor:alice", "controller"
  PartyRole role = PartyRole::Other;
};
PartyRole role_of(std::string_view who);
// The parties' places in the sequence diagram: requestors, daemons (in natural name order),
// the controller, the scheduler; indices into `parties`.
std::vector<std::uint32_t> lane_order(const std::vector<Party>& parties);

// One line of the log, as the model keeps it (the line itself stays in the file).
struct EventRow {
  double t = 0;
  std::uint64_t offset = 0;  // of its line in the file
  std::uint32_t line = 0;
  std::uint32_t who = kNone;      // party
  std::uint32_t request = kNone;  // the request (corr) it serves
  std::uint32_t session = kNone;  // the session it names (its `session` field)
  log::EventKind kind = log::EventKind::LogEnd;
  std::uint32_t send = kNone;  // a short recv (version 3): the event of the send it was rebuilt from
};

struct NodeRecord {
  std::string name;
  std::uint32_t slot_count = 0;
  std::uint32_t group = 0;  // index into RunModel::groups()
};

struct Group {
  std::string name;  // "rack r0", "cluster", "n0-n15"
  std::vector<std::uint32_t> nodes;
};

enum class SessionPhase : std::uint8_t { Instantiating, Active, Paused, Preempted, Terminating, Reclaimed };
std::string_view phase_name(SessionPhase phase);

struct SessionRecord {
  std::uint32_t id = 0;
  std::string alloc;
  std::string owner;
  std::string corr;
  double time_limit = 0;  // 0: none; counted from limit_from (an EXTEND re-arms it)
  double limit_from = 0;
  std::vector<std::uint32_t> nodes;                     // every node it ever held
  std::vector<std::uint32_t> jobs;                      // indices into RunModel::jobs()
  std::uint32_t event = 0;                              // its session.instantiate
  std::vector<std::pair<double, SessionPhase>> phases;  // in time order, from its instantiation
};
// Its phase at T; nothing before it was instantiated.
std::optional<SessionPhase> phase_at(const SessionRecord& s, double t);

enum class JobPhase : std::uint8_t { Launching, Running, Stopped, Ended };
struct JobRecord {
  std::string nspace;
  std::uint32_t session = kNone;
  std::string corr;
  std::vector<std::uint32_t> nodes;
  double launched = 0;
  std::optional<double> started, ended;
  std::optional<Status> status;
  std::vector<std::pair<double, JobPhase>> phases;
};
std::optional<JobPhase> phase_at(const JobRecord& j, double t);

// One hop: a send and, when it arrived, its receipt.
struct Message {
  std::uint32_t send = kNone;  // event indices
  std::uint32_t recv = kNone;
  std::uint32_t from = kNone;  // parties
  std::uint32_t to = kNone;
  std::uint32_t request = kNone;
  std::string kind;  // `msg`: alloc_request, alloc_response, ...
  double sent_at = 0;
  std::optional<double> received_at;
};

// One user request (a `corr`): the call, everything it caused, its answer.
struct RequestRecord {
  std::string corr;
  std::uint32_t requestor = kNone;  // party
  std::string what;                 // "PMIX_ALLOC_NEW", "PMIx_Spawn + PMIX_ALLOC_NEW", ...
  std::string via;
  std::string info;            // the call's PMIx info, as the log has it (JSON)
  std::string answer;          // the answer's PMIx info (JSON)
  std::uint32_t call = kNone;  // event indices
  std::uint32_t answered = kNone;
  std::optional<Status> status;
  std::vector<std::uint32_t> events;    // every event that carries its corr, in log order
  std::vector<std::uint32_t> messages;  // indices into RunModel::messages()
};

// One stretch of a granted allocation on its slots: from alloc.grant to its session's
// completion, or to its preemption (then the request runs again later, in a new stretch).
struct Execution {
  std::uint32_t request = kNone;
  std::string alloc;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // of resource ids, inclusive
  double start = 0;
  std::optional<double> end;
  bool preempted = false;
  std::optional<Status> status;
  std::uint64_t slot_count() const;
};

}  // namespace pmixflow::view
