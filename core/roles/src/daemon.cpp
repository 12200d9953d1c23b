#include "pmixflow/roles/daemon.hpp"

#include <algorithm>

namespace pmixflow {

void Daemon::start() {
  env_.log(ev::DaemonUp{});
  env_.send(Address::controller(), DaemonReady{node_});
}

void Daemon::handle(Address from, Message&& msg) {
  std::visit(
      [&](auto&& m) {
        if constexpr (requires { m.caller; })
          if (from.kind == PartyKind::Requestor) clients_[from] = m.caller;
        on(from, std::move(m));
      },
      std::move(msg));
}

// ---------------------------------------------------------------- calls relayed (FLOW.md §2)

void Daemon::on(Address from, AllocRequest&& req) { relay<ev::AllocRelay>(from, std::move(req)); }
void Daemon::on(Address from, SessionCtrlRequest&& req) { relay<ev::SessionCtrlRelay>(from, std::move(req)); }
void Daemon::on(Address from, SpawnRequest&& req) { relay<ev::SpawnRelay>(from, std::move(req)); }
void Daemon::on(Address, AllocResponse&& resp) { carry_back(std::move(resp)); }
void Daemon::on(Address, SessionCtrlResponse&& resp) { carry_back(std::move(resp)); }
void Daemon::on(Address, SpawnResponse&& resp) { carry_back(std::move(resp)); }

template <class Relayed, class Call>
void Daemon::relay(Address from, Call&& call) {
  // Relayed unchanged (PRRTE tag SCHED): only the handle is ours, to match the answer.
  const std::uint64_t id = next_id_++;
  pending_.emplace(id, PendingCall{from, call.id, kind_of<std::decay_t<Call>>(), call.corr});
  env_.log(Relayed{.corr = call.corr, .from = env_.name_of(from), .to = "controller"});
  call.id = id;
  env_.send(Address::controller(), std::forward<Call>(call));
}

template <class Response>
void Daemon::carry_back(Response&& resp) {
  auto it = pending_.find(resp.id);
  if (it == pending_.end()) return;  // its caller is gone; nobody to answer
  const PendingCall call = it->second;
  pending_.erase(it);
  env_.log(ev::AnswerReturn{.corr = resp.corr, .to = env_.name_of(call.origin), .status = resp.status});
  resp.id = call.origin_id;
  env_.send(call.origin, std::forward<Response>(resp));
}

void Daemon::on(Address from, Notification&& event) {
  // An event from the controller (PMIX_DVM_IS_READY, ...) for the local clients.
  if (from == Address::controller())
    for (const auto& [client, proc] : clients_) env_.send(client, event);
}

void Daemon::on(Address from, ConnectRequest&& req) {
  // Only the system controller accepts a scheduler's declaration (FLOW.md §3); any other
  // tool may connect to its local server.
  if (req.info.flag(key::SERVER_SCHEDULER)) {
    env_.log(ev::SchedulerRefused{.from = env_.name_of(from), .detail = "not the controller"});
    env_.send(from, ConnectResponse{req.id, Status::ErrNotSupported});
  } else {
    env_.send(from, ConnectResponse{req.id, Status::Success});
  }
}

// ---------------------------------------------------------------- local processes (FLOW.md §6)

LocalLaunch Daemon::local_share(const LaunchProcs& launch) {
  LocalLaunch local{launch.nspace, launch.session_id, {}};
  // Ranks are numbered across the apps in order; this node holds [first, last).
  const std::uint32_t first = launch.first_rank, last = launch.first_rank + launch.local_procs;
  std::uint32_t app_first = 0;
  for (const auto& app : launch.apps) {
    const std::uint32_t app_last = app_first + app.maxprocs;
    const std::uint32_t from = std::max(first, app_first), to = std::min(last, app_last);
    if (from < to) local.apps.push_back(LocalApp{app, from, to - from});
    app_first = app_last;
  }
  return local;
}

void Daemon::on(Address, LaunchProcs&& launch) {
  jobs_[launch.nspace] = LocalJob{};
  runner_->launch(local_share(launch), *this);
}

void Daemon::started(const std::string& nspace) {
  if (!jobs_.count(nspace) || controller_gone_) return;
  env_.log(ev::ProcsRunning{.nspace = nspace});
  env_.send(Address::controller(), ProcsStarted{nspace, node_, Status::Success});
}

void Daemon::start_failed(const std::string& nspace, const std::string&) {
  // The executable could not be started here: nothing runs, the launch is refused.
  if (!jobs_.erase(nspace)) return;
  env_.log(ev::ProcsFailed{.nspace = nspace, .status = Status::ErrJobFailedToLaunch});
  env_.send(Address::controller(), ProcsStarted{nspace, node_, Status::ErrJobFailedToLaunch});
}

void Daemon::exited(const std::string& nspace, const ProcessExit& exit) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  // Killed on the controller's word: ended for the reason it gave. Otherwise as the
  // processes ended: by a signal, with a non-zero exit, or normally.
  Status status = exit.signal ? Status::ErrJobAbortedBySig : exit.code ? Status::ErrJobNonZeroTerm : Status::Success;
  if (it->second.killed) status = *it->second.killed;
  jobs_.erase(it);
  const int code = exit.signal ? 128 + exit.signal : exit.code;
  env_.log(ev::ProcsEnded{.nspace = nspace, .status = status});
  if (!controller_gone_) env_.send(Address::controller(), ProcsEnded{nspace, node_, status, code});
}

void Daemon::on(Address, SignalProcs&& sig) {
  if (!jobs_.count(sig.nspace)) return;
  env_.log(ev::ProcsSignal{.nspace = sig.nspace, .signal = sig.signal});
  runner_->signal(sig.nspace, sig.signal);
}

void Daemon::on(Address, KillProcs&& kill) {
  auto it = jobs_.find(kill.nspace);
  if (it == jobs_.end()) return;
  it->second.killed = kill.reason;
  runner_->kill(kill.nspace);
}

// ---------------------------------------------------------------- the path above

void Daemon::on(Address, DaemonShutdown&&) {
  fail_pending(Status::ErrUnreach);
  env_.log(ev::DaemonExit{});
}

void Daemon::on(Address, Unreachable&& notice) {
  // The path above is gone; an answer a local caller could not take breaks nobody else's call.
  if (notice.to == Address::controller())
    fail_pending(Status::ErrUnreach);
  else
    clients_.erase(notice.to);
}

void Daemon::on(Address, PeerLost&& notice) {
  if (notice.peer == Address::controller()) return controller_gone();
  auto client = clients_.extract(notice.peer);
  if (client.empty()) return;
  // Its calls still waiting here have nobody to answer: their fate is the controller's now.
  std::erase_if(pending_, [&](const auto& entry) { return entry.second.origin == notice.peer; });
  // A local client went away: the controller ends what was tied to its lifetime.
  InfoList info;
  info.add(key::PROCID, client.mapped());
  env_.send(Address::controller(), Notification{Status::ErrLostConnection, std::move(info), {}});
}

void Daemon::controller_gone() {
  // PRRTE's daemons end when their HNP goes, and their processes with them (the parent-death
  // signal): the DVM goes with its controller. Its callers are answered first.
  fail_pending(Status::ErrUnreach);
  controller_gone_ = true;
  env_.log(ev::DaemonExit{});
  std::vector<std::string> running;
  for (const auto& [nspace, job] : jobs_) running.push_back(nspace);
  std::sort(running.begin(), running.end());
  for (const auto& nspace : running) runner_->kill(nspace);
}

void Daemon::answer_failed(const PendingCall& call, Status status) {
  switch (call.kind) {
    case MessageKind::SessionCtrlRequest:
      env_.send(call.origin, SessionCtrlResponse{call.origin_id, status, {}, call.corr});
      break;
    case MessageKind::SpawnRequest:
      env_.send(call.origin, SpawnResponse{call.origin_id, status, {}, {}, call.corr});
      break;
    default: env_.send(call.origin, AllocResponse{call.origin_id, status, {}, call.corr});
  }
}

void Daemon::fail_pending(Status status) {
  // Every local caller gets an answer, also when the path above is gone (FLOW.md §2).
  for (const auto& [id, call] : pending_) answer_failed(call, status);
  pending_.clear();
}

}  // namespace pmixflow
