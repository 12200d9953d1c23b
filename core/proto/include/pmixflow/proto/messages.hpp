// What the parties say to each other. Each struct is one PMIx call, reply, event or PRRTE
// internal message; `corr` follows one user request across every hop it causes, so the
// event log can be read request by request.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

enum class PartyKind : std::uint8_t { Requestor, Daemon, Controller, Scheduler };

struct Address {
  PartyKind kind = PartyKind::Controller;
  std::uint32_t index = 0;  // node id for daemons, requestor number for requestors
  auto operator<=>(const Address&) const = default;
  static Address controller() { return {PartyKind::Controller, 0}; }
  static Address scheduler() { return {PartyKind::Scheduler, 0}; }
  static Address daemon(NodeId n) { return {PartyKind::Daemon, n}; }
  static Address requestor(std::uint32_t i) { return {PartyKind::Requestor, i}; }
};

// PMIx_Allocation_request, at every hop (PRRTE tag SCHED between daemon and controller).
struct AllocRequest {
  std::uint64_t id = 0;  // the sender's own handle, echoed in the response
  Directive directive = Directive::New;
  InfoList info;
  Proc caller;  // the process that issued the call at this hop
  std::string corr;
};

// The allocation callback (PRRTE tag SCHED_RESP on the daemon hop).
struct AllocResponse {
  std::uint64_t id = 0;
  Status status = Status::Success;
  InfoList info;
  std::string corr;
};

// PMIx_Session_control(session_id, directives).
struct SessionCtrlRequest {
  std::uint64_t id = 0;
  std::uint32_t session_id = 0;
  InfoList directives;
  Proc caller;
  std::string corr;
};

struct SessionCtrlResponse {
  std::uint64_t id = 0;
  Status status = Status::Success;
  InfoList info;
  std::string corr;
};

// A tool connection: the scheduler attaching to the RM (PMIX_SERVER_SCHEDULER), or the RM
// looking for a scheduler at start-up (PMIX_CONNECT_TO_SCHEDULER).
struct ConnectRequest {
  std::uint64_t id = 0;
  Proc caller;
  InfoList info;
};

struct ConnectResponse {
  std::uint64_t id = 0;
  Status status = Status::Success;
};

// A PMIx event pushed to a party (PMIX_DVM_IS_READY, PMIX_EVENT_JOB_END, ...).
struct Notification {
  Status code = Status::Success;
  InfoList info;
  std::string corr;
};

// Daemon wire-up: a newly started daemon reports in to the controller.
struct DaemonReady {
  NodeId node = 0;
};

// The launcher's word that a daemon could not start on `node` (the node is down, or the
// daemon failed before its wire-up): it never reports in.
struct DaemonStartFailed {
  NodeId node = 0;
};

// The controller's launch message to each daemon hosting part of a job: the whole job (every
// app, its process count resolved, ranks numbered across the apps in order) and which ranks
// are this daemon's. The daemon works out which app each local rank runs, as PRRTE's odls does.
struct LaunchProcs {
  std::string nspace;
  std::uint32_t session_id = 0;
  std::vector<App> apps;
  std::uint32_t local_procs = 0;
  std::uint32_t first_rank = 0;
  std::string corr;
};

struct ProcsStarted {
  std::string nspace;
  NodeId node = 0;
  Status status = Status::Success;
};

struct ProcsEnded {
  std::string nspace;
  NodeId node = 0;
  Status status = Status::Success;  // PMIx status of the local processes' end
  int exit_code = 0;
};

struct KillProcs {
  std::string nspace;
  Status reason = Status::ErrJobKilledByCmd;
};

// The daemon is told to exit (its node leaves the DVM).
struct DaemonShutdown {};

// PMIx_Spawn. With PMIX_SPAWN_ALLOC in job_info, the allocation it carries is served first.
struct SpawnRequest {
  std::uint64_t id = 0;
  std::vector<App> apps;
  InfoList job_info;
  Proc caller;
  std::string corr;
};

struct SpawnResponse {
  std::uint64_t id = 0;
  Status status = Status::Success;
  std::string nspace;
  InfoList info;
  std::string corr;
};

// A signal for the local processes of a job (SIGSTOP/SIGCONT for pause and preemption).
struct SignalProcs {
  std::string nspace;
  int signal = 0;
};

enum class MessageKind : std::uint8_t {
  AllocRequest,
  AllocResponse,
  SessionCtrlRequest,
  SessionCtrlResponse,
  ConnectRequest,
  ConnectResponse,
  Notification,
  DaemonReady,
  DaemonStartFailed,
  LaunchProcs,
  ProcsStarted,
  ProcsEnded,
  KillProcs,
  DaemonShutdown,
  Unreachable,
  PeerLost,
  SpawnRequest,
  SpawnResponse,
  SignalProcs,
};

// Delivered by the environment when a message could not reach its destination (nobody
// listening there any more); `id` is the undelivered message's own id, when it had one.
struct Unreachable {
  Address to;
  MessageKind kind = MessageKind::AllocRequest;
  std::uint64_t id = 0;
  std::string corr;
};

// Delivered by the environment to every party connected to one that went away.
struct PeerLost {
  Address peer;
};

using Message =
    std::variant<AllocRequest, AllocResponse, SessionCtrlRequest, SessionCtrlResponse, ConnectRequest, ConnectResponse,
                 Notification, DaemonReady, DaemonStartFailed, LaunchProcs, ProcsStarted, ProcsEnded, KillProcs,
                 DaemonShutdown, Unreachable, PeerLost, SpawnRequest, SpawnResponse, SignalProcs>;

// Signals the simulated processes understand (Linux numbering).
inline constexpr int kSigHup = 1, kSigInt = 2, kSigKill = 9, kSigTerm = 15, kSigCont = 18, kSigStop = 19;

MessageKind kind_of(const Message& m);

template <class T, class V>
struct MessageIndex;
template <class T, class... Ts>
struct MessageIndex<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    std::size_t i = 0;
    (void)((std::is_same_v<T, Ts> ? true : (++i, false)) || ...);
    return i;
  }();
};
// The kind of a message type, without building one.
template <class T>
constexpr MessageKind kind_of() {
  return static_cast<MessageKind>(MessageIndex<T, Message>::value);
}
std::string_view message_name(MessageKind k);  // "alloc_request", ...
std::uint64_t message_id(const Message& m);
const std::string* message_corr(const Message& m);

}  // namespace pmixflow
