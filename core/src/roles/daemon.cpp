#include "pmixflow/roles/daemon.hpp"

namespace pmixflow {

void Daemon::start() {
  if (env_.logging()) env_.log(Event("daemon.up"));
  env_.send(Address::controller(), DaemonReady{node_});
}

void Daemon::handle(Address from, Message&& msg) {
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          relay_alloc(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          relay_session_ctrl(from, std::move(m));
        } else if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse>) {
          carry_back(std::move(m));
        } else if constexpr (std::is_same_v<T, ConnectRequest>) {
          // Only the system controller accepts a scheduler's declaration (FLOW.md §3); any
          // other tool may connect to its local server.
          if (m.info.flag(key::SERVER_SCHEDULER)) {
            if (env_.logging())
              env_.log(Event("scheduler.refused").str("from", env_.name_of(from)).str("reason", "not the controller"));
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
          if (env_.logging()) env_.log(Event("daemon.exit"));
        } else if constexpr (std::is_same_v<T, Unreachable>) {
          // The path above is gone; an answer a local caller could not take breaks nobody else's call.
          if (m.to == Address::controller()) fail_pending(Status::ErrUnreach);
        } else if constexpr (std::is_same_v<T, PeerLost>) {
          if (m.peer == Address::controller()) fail_pending(Status::ErrUnreach);
        }
      },
      std::move(msg));
}

void Daemon::relay_alloc(Address from, AllocRequest&& req) {
  // Relayed unchanged (PRRTE tag SCHED): only the handle is ours, to match the answer.
  const std::uint64_t id = next_id_++;
  pending_.emplace(id, PendingCall{from, req.id, false, req.corr});
  if (env_.logging())
    env_.log(Event("alloc.relay").str("corr", req.corr).str("from", env_.name_of(from)).str("to", "controller"));
  req.id = id;
  env_.send(Address::controller(), std::move(req));
}

void Daemon::relay_session_ctrl(Address from, SessionCtrlRequest&& req) {
  const std::uint64_t id = next_id_++;
  pending_.emplace(id, PendingCall{from, req.id, true, req.corr});
  if (env_.logging())
    env_.log(Event("session_ctrl.relay").str("corr", req.corr).str("from", env_.name_of(from)).str("to", "controller"));
  req.id = id;
  env_.send(Address::controller(), std::move(req));
}

template <class Response>
void Daemon::carry_back(Response&& resp) {
  auto it = pending_.find(resp.id);
  if (it == pending_.end()) return;  // its caller is gone; nobody to answer
  const PendingCall call = it->second;
  pending_.erase(it);
  if (env_.logging())
    env_.log(Event("answer.return").str("corr", resp.corr).str("to", env_.name_of(call.origin)).status("status", resp.status));
  resp.id = call.origin_id;
  env_.send(call.origin, std::forward<Response>(resp));
}

void Daemon::launch(LaunchProcs&& launch) {
  auto& job = jobs_[launch.nspace];
  job.exit_code = launch.app.exit_code;
  const double runtime = launch.app.simulated_runtime();
  const std::string nspace = launch.nspace;
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  env_.after(config_.proc_start_s * (1.0 + config_.jitter * u), [this, nspace, runtime] {
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) return;  // killed before it started
    it->second.running = true;
    if (env_.logging()) env_.log(Event("procs.running").str("nspace", nspace));
    env_.send(Address::controller(), ProcsStarted{nspace, node_, Status::Success});
    it->second.end_timer = env_.after(runtime, [this, nspace] {
      auto job_it = jobs_.find(nspace);
      if (job_it == jobs_.end()) return;
      job_it->second.end_timer = 0;
      const int code = job_it->second.exit_code;
      end_local(nspace, code == 0 ? Status::Success : Status::ErrJobNonZeroTerm, code);
    });
  });
}

void Daemon::end_local(const std::string& nspace, Status status, int exit_code) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  if (it->second.end_timer) env_.cancel(it->second.end_timer);
  jobs_.erase(it);
  if (env_.logging()) env_.log(Event("procs.ended").str("nspace", nspace).status("status", status));
  env_.send(Address::controller(), ProcsEnded{nspace, node_, status, exit_code});
}

void Daemon::fail_pending(Status status) {
  // Every local caller gets an answer, also when the path above is gone (FLOW.md §2).
  for (auto& [id, call] : pending_) {
    if (call.session_ctrl)
      env_.send(call.origin, SessionCtrlResponse{call.origin_id, status, {}, call.corr});
    else
      env_.send(call.origin, AllocResponse{call.origin_id, status, {}, call.corr});
  }
  pending_.clear();
}

}  // namespace pmixflow
