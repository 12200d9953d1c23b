#include "pmixflow/roles/daemon.hpp"

#include <algorithm>

namespace pmixflow {

void Daemon::start() {
  env_.log(ev::DaemonUp{});
  env_.send(Address::controller(), DaemonReady{node_});
}

void Daemon::handle(Address from, Message&& msg) {
  std::visit(
      [&](const auto& m) {
        if constexpr (requires { m.caller; })
          if (from.kind == PartyKind::Requestor) clients_[from] = m.caller;
      },
      msg);
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          relay<ev::AllocRelay>(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          relay<ev::SessionCtrlRelay>(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SpawnRequest>) {
          relay<ev::SpawnRelay>(from, std::move(m));
        } else if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse> ||
                             std::is_same_v<T, SpawnResponse>) {
          carry_back(std::move(m));
        } else if constexpr (std::is_same_v<T, SignalProcs>) {
          on_signal(m);
        } else if constexpr (std::is_same_v<T, Notification>) {
          // An event from the controller (PMIX_DVM_IS_READY, ...) for the local clients.
          if (from == Address::controller())
            for (const auto& [client, proc] : clients_) env_.send(client, m);
        } else if constexpr (std::is_same_v<T, ConnectRequest>) {
          // Only the system controller accepts a scheduler's declaration (FLOW.md §3); any
          // other tool may connect to its local server.
          if (m.info.flag(key::SERVER_SCHEDULER)) {
            env_.log(ev::SchedulerRefused{.from = env_.name_of(from), .detail = "not the controller"});
            env_.send(from, ConnectResponse{m.id, Status::ErrNotSupported});
          } else {
            env_.send(from, ConnectResponse{m.id, Status::Success});
          }
        } else if constexpr (std::is_same_v<T, LaunchProcs>) {
          launch(std::move(m));
        } else if constexpr (std::is_same_v<T, KillProcs>) {
          end_local(m.nspace, m.reason, 0);
        } else if constexpr (std::is_same_v<T, DaemonShutdown>) {
          fail_pending(Status::ErrUnreach);
          env_.log(ev::DaemonExit{});
        } else if constexpr (std::is_same_v<T, Unreachable>) {
          // The path above is gone; an answer a local caller could not take breaks nobody else's call.
          if (m.to == Address::controller())
            fail_pending(Status::ErrUnreach);
          else
            clients_.erase(m.to);
        } else if constexpr (std::is_same_v<T, PeerLost>) {
          if (m.peer == Address::controller()) {
            fail_pending(Status::ErrUnreach);
          } else if (auto client = clients_.find(m.peer); client != clients_.end()) {
            // A local client went away: the controller ends what was tied to its lifetime.
            InfoList info;
            info.add(key::PROCID, client->second);
            clients_.erase(client);
            env_.send(Address::controller(), Notification{Status::ErrLostConnection, std::move(info), {}});
          }
        }
      },
      std::move(msg));
}

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

void Daemon::launch(LaunchProcs&& launch) {
  auto& job = jobs_[launch.nspace];
  job.exit_code = launch.app.exit_code;
  const double runtime = launch.app.simulated_runtime();
  const bool fails = launch.app.fail_launch;
  const std::string nspace = launch.nspace;
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  env_.after(config_.proc_start_s * (1.0 + config_.jitter * u), [this, nspace, runtime, fails] {
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) return;  // killed before it started
    if (fails) {
      // The executable could not be started here: nothing runs, the launch is refused.
      jobs_.erase(it);
      env_.log(ev::ProcsFailed{.nspace = nspace, .status = Status::ErrJobFailedToLaunch});
      env_.send(Address::controller(), ProcsStarted{nspace, node_, Status::ErrJobFailedToLaunch});
      return;
    }
    it->second.running = true;
    env_.log(ev::ProcsRunning{.nspace = nspace});
    env_.send(Address::controller(), ProcsStarted{nspace, node_, Status::Success});
    // Stopped while still starting: it comes up stopped, its whole run still ahead.
    if (it->second.stopped)
      it->second.remaining = runtime;
    else
      arm_end(nspace, runtime);
  });
}

void Daemon::arm_end(const std::string& nspace, double after) {
  auto& job = jobs_.at(nspace);
  job.ends_at = env_.now() + after;
  job.end_timer = env_.after(after, [this, nspace] {
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) return;
    it->second.end_timer = 0;
    const int code = it->second.exit_code;
    end_local(nspace, code == 0 ? Status::Success : Status::ErrJobNonZeroTerm, code);
  });
}

void Daemon::on_signal(const SignalProcs& sig) {
  auto it = jobs_.find(sig.nspace);
  if (it == jobs_.end()) return;
  LocalJob& job = it->second;
  env_.log(ev::ProcsSignal{.nspace = sig.nspace, .signal = sig.signal});
  switch (sig.signal) {
    case kSigStop:
      // Stopped processes keep their memory and slots but make no progress.
      if (job.stopped) return;
      job.stopped = true;
      if (!job.running) return;  // still starting: it will come up stopped
      job.remaining = std::max(0.0, job.ends_at - env_.now());
      if (job.end_timer) env_.cancel(job.end_timer);
      job.end_timer = 0;
      return;
    case kSigCont:
      if (!job.stopped) return;
      job.stopped = false;
      if (job.running) arm_end(sig.nspace, job.remaining);
      return;
    case kSigHup:
    case kSigInt:
    case kSigKill:
    case kSigTerm: end_local(sig.nspace, Status::ErrJobAbortedBySig, 128 + sig.signal); return;
    default: return;  // caught or ignored by the application
  }
}

void Daemon::end_local(const std::string& nspace, Status status, int exit_code) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  if (it->second.end_timer) env_.cancel(it->second.end_timer);
  jobs_.erase(it);
  env_.log(ev::ProcsEnded{.nspace = nspace, .status = status});
  env_.send(Address::controller(), ProcsEnded{nspace, node_, status, exit_code});
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
