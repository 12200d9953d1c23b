// The controller's wiring and its protocol: which part takes each message.
#include "pmixflow/roles/controller.hpp"

namespace pmixflow {

Controller::Controller(Env& env, const Cluster& cluster, ControllerConfig config)
    : env_(env),
      config_(std::move(config)),
      replies_(env),
      link_(env, config_.no_scheduler, ids_, replies_),
      dvm_(env, cluster, link_),
      jobs_(env, cluster, dvm_, *this),
      sessions_(env, cluster, dvm_, jobs_, link_, replies_, ids_),
      activation_(env, cluster, dvm_, sessions_),
      standalone_(env, cluster, dvm_, sessions_, replies_),
      spawns_(SpawnParts{env, cluster, dvm_, jobs_, sessions_, link_, activation_, ids_}),
      deferred_(env) {
  replies_.on_own_allocation(
      [this](std::uint64_t id, Status status, const InfoList& info) { spawns_.allocated(id, status, info); });
  link_.on_serve([this](const Origin& origin, AllocRequest&& req) { standalone_.serve(origin, std::move(req)); });
  dvm_.on_settled([this](std::deque<std::string> fenced) {
    // The parked releases first: PRRTE's prte_plm_base_grow_drain() posts them before the
    // held jobs' VM_READY, and a replayed shrink raises the fence again before vm_ready()
    // looks at it, holding those jobs once more.
    deferred_.replay([this](Address from, AllocRequest&& req) { on(from, std::move(req)); });
    spawns_.remap_fenced(fenced);
    jobs_.launch_fenced(fenced);
  });
  dvm_.on_aborted([this](const std::deque<std::string>& fenced) { jobs_.fail_fenced(fenced); });
  dvm_.on_leaving([this](NodeId n) { sessions_.drop_node(n); });
  dvm_.on_left([this](NodeId n) { jobs_.release_on(n); });
  dvm_.on_requester_event([this](const Proc& requester, const Notification& event) { notify(requester, event); });
  link_.on_unwanted([this](const SchedulerLink::Forwarded& call) { hand_back(call); });
  link_.on_failed([this](const SchedulerLink::Forwarded& call) { hand_back(call); });
}

void Controller::start() {
  // The head node is up (the controller is its daemon); the RM starts whether or not a
  // scheduler is there (optional connection).
  dvm_.start(config_.initial_dvm);
  if (config_.connect_to_scheduler) link_.look_for_scheduler();
}

void Controller::handle(Address from, Message&& msg) {
  // A call relayed by a daemon the controller already counts as gone: that daemon's callers
  // were answered by their own libraries when its connection broke.
  if (from.kind == PartyKind::Daemon && dvm_.node(from.index).daemon == DaemonState::Failed &&
      (std::holds_alternative<AllocRequest>(msg) || std::holds_alternative<SessionCtrlRequest>(msg) ||
       std::holds_alternative<SpawnRequest>(msg)))
    return;
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocRequest> || std::is_same_v<T, SessionCtrlRequest> ||
                      std::is_same_v<T, SpawnRequest>) {
          if (from.kind == PartyKind::Requestor) tools_.note(from, m.caller);
          if (from == Address::scheduler()) scheduler_proc_ = m.caller;
        }
        on(from, std::move(m));
      },
      std::move(msg));
}

void Controller::on(Address from, AllocRequest&& req) {
  if (req.directive == Directive::Release && dvm_.growing()) return deferred_.park(from, std::move(req));
  if (req.directive != Directive::Activate) return link_.forward(from, std::move(req));
  // Answered by the RM itself, never by a scheduler (FLOW.md §5).
  std::vector<NodeId> nodes;
  const Status st =
      activation_.activate(ActivateCall{req.info, principal_of(req.caller, req.info), from, req.corr}, nodes);
  InfoList info;
  if (const auto* alloc = req.info.get<std::string>(key::ALLOC_ID)) info.add(key::ALLOC_ID, *alloc);
  replies_.allocation(Origin{from, req.id, req.corr}, st, std::move(info));
}

void Controller::on(Address from, SessionCtrlRequest&& req) {
  const Origin origin{from, req.id, req.corr};
  // An order from the scheduler is carried out. From anyone else the scheduler decides (the
  // RM forwards with PMIX_REQUESTOR); with none attached, the controller decides itself
  // after checking the caller owns the session (FLOW.md §4).
  if (from == Address::scheduler()) return sessions_.execute(origin, std::move(req), true);
  if (!link_.attached()) return sessions_.execute(origin, std::move(req), false);
  // Whatever it asks, a COMPLETE included: PRRTE's pass_request() reads nothing before passing
  // a request on, and the scheduler refuses a COMPLETE that is not the RM's own.
  link_.forward(from, std::move(req));
}

void Controller::on(Address from, SpawnRequest&& req) { spawns_.on_spawn(from, std::move(req)); }
void Controller::on(Address, AllocResponse&& resp) { link_.carry_back(std::move(resp)); }
void Controller::on(Address, SessionCtrlResponse&& resp) { link_.carry_back(std::move(resp)); }

void Controller::on(Address from, ConnectRequest&& req) {
  const bool declares_scheduler = req.info.flag(key::SERVER_SCHEDULER);
  env_.send(from, ConnectResponse{req.id, Status::Success});
  if (declares_scheduler && from == Address::scheduler()) link_.attach("scheduler-connected");
}

void Controller::on(Address from, ConnectResponse&& resp) {
  if (from == Address::scheduler() && resp.status == Status::Success) link_.attach("rm-connected");
}

void Controller::on(Address, DaemonReady&& ready) { dvm_.daemon_ready(ready.node); }
void Controller::on(Address, DaemonStartFailed&& failed) { dvm_.daemon_failed(failed.node); }
void Controller::on(Address, ProcsStarted&& started) { jobs_.on_started(started); }
void Controller::on(Address, ProcsEnded&& ended) { jobs_.on_ended(ended); }

void Controller::on(Address, Unreachable&& notice) {
  if (notice.kind == MessageKind::ConnectRequest)
    env_.log(ev::SchedulerAbsent{.detail = "optional connection: running without one"});
  else if (notice.to == Address::scheduler())
    link_.detach();
  else {
    // An answer nobody took: what it granted is not held for nobody.
    if (notice.kind == MessageKind::AllocResponse) end_sessions_of(notice.corr, "its answer could not be delivered");
    if (notice.kind == MessageKind::SessionCtrlResponse)
      sessions_.reverse_stop(notice.corr, "its answer could not be delivered");
    // A daemon sent away (a hand-back, a shrink) is not a node that failed.
    if (notice.to.kind == PartyKind::Daemon && dvm_.node(notice.to.index).daemon != DaemonState::None)
      node_failed(notice.to.index);
  }
}

void Controller::on(Address from, Notification&& event) {
  // A daemon or the scheduler lost a client of theirs: sessions tied to it end.
  if (event.code != Status::ErrLostConnection) return;
  if (const auto* gone = event.info.get<Proc>(key::PROCID)) requestor_gone(*gone, from, from);
}

void Controller::notify(const Proc& requester, const Notification& event) {
  // As PRRTE's prte_plm_base_dvm_mod_notify(): a custom-range event to that process, delivered
  // by the controller's own server and not passed on to the daemons ("prte.notify.donotloop"):
  // only a requester connected to the controller itself hears it, or the scheduler.
  if (scheduler_proc_ && requester == *scheduler_proc_) return link_.notify(event);
  if (const auto* connections = tools_.connections_of(requester))
    for (Address to : *connections) env_.send(to, event);
}

void Controller::on(Address, PeerLost&& notice) {
  if (notice.peer == Address::scheduler()) return link_.detach();
  if (notice.peer.kind == PartyKind::Daemon) return node_failed(notice.peer.index);
  // A tool that goes away takes with it the sessions tied to its lifetime (SEP=false).
  if (auto gone = tools_.forget(notice.peer)) requestor_gone(*gone, std::nullopt, notice.peer);
}

void Controller::requestor_gone(const Proc& gone, std::optional<Address> via, Address origin) {
  // `via`: the daemon or scheduler it was a client of; none when it was the controller's own.
  if (env_.wants<ev::RequestorGone>()) {
    if (via)
      env_.log(ev::RequestorGone{.requestor = to_string(gone), .via = env_.name_of(*via)});
    else
      env_.log(ev::RequestorGone{.requestor = to_string(gone)});
  }
  sessions_.end_tied_to(gone.nspace, Status::ErrJobKilledByCmd);
  // Only its calls that came the way it went (`origin`: the server it was a client of, or the
  // tool itself when it was the controller's own): a name is not a process, and a tool of the
  // same name elsewhere (another user's hand tool, `pmixflow request --as`) is still waiting.
  spawns_.caller_lost(gone, origin);
  deferred_.withdraw(origin, &gone);
  // The scheduler withdraws what it still has queued of it (a tool attached to the scheduler
  // itself: the scheduler saw it go first).
  if (link_.caller_lost(gone, origin) && via != Address::scheduler()) tell_scheduler_gone(gone);
}

void Controller::node_failed(NodeId node) {
  // A node that dies takes its daemon and its processes with it: every job with ranks there
  // is aborted, and the scheduler is told the node is down (PMIX_EVENT_NODE_DOWN).
  if (dvm_.node(node).daemon == DaemonState::Up) origin_lost(Address::daemon(node));
  if (dvm_.node_died(node)) jobs_.abort_on(node);
}

void Controller::job_started(Job& job) {
  spawns_.job_started(job);
  sessions_.answer_instantiation(job);
}

void Controller::job_ended(const EndedJob& job) {
  spawns_.job_ended(job);
  sessions_.job_ended(job);
}

}  // namespace pmixflow
