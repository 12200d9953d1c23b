// The scheduler's protocol: starting and attaching, the RM and tools coming and going, nodes
// reported down, and the answers it sends.
#include "pmixflow/roles/scheduler.hpp"

namespace pmixflow {

Scheduler::Scheduler(Env& env, const Cluster& cluster, std::unique_ptr<Policy> policy, SchedulerConfig config)
    : env_(env),
      cluster_(cluster),
      policy_(std::move(policy)),
      config_(std::move(config)),
      pool_(cluster, config_.exclusive_nodes),
      rm_(env) {}

Scheduler::~Scheduler() = default;

void Scheduler::start() {
  // A (re)started scheduler has lost the calls that were in flight: their callers were told
  // PMIX_ERR_UNREACH when the connection broke. Allocations it granted are kept, as a real
  // scheduler recovers them from its own state.
  env_.log(ev::SchedulerUp{.policy = policy_->name()});
  for (const auto& q : queue_.take_all([](const QueuedRequest&, const Pending&) { return true; }))
    env_.log(ev::AllocDropped{.corr = q.pending.origin.corr,
                              .status = Status::ErrUnreach,
                              .detail = "the scheduler restarted: the requests it had queued are lost"});
  rm_.forget();
  rm_connected_ = false;
  rm_gone_ = false;  // a new process knows no RM yet: it waits for one to attach
  arm_script();
  if (pass_timer_) env_.cancel(pass_timer_);  // a pass of its previous life
  pass_timer_ = 0;
  if (config_.attach_at_start) {
    InfoList info;
    info.add(key::SERVER_SCHEDULER, true);
    env_.send(Address::controller(), ConnectRequest{rm_.next_id(), Proc{"scheduler", 0}, std::move(info)});
  }
}

SchedulerMemory Scheduler::memory() const { return SchedulerMemory{next_key_, next_session_, live_.all()}; }

void Scheduler::remember(SchedulerMemory memory) {
  next_key_ = memory.next_key;
  next_session_ = memory.next_session;
  for (auto& live : memory.live) {
    pool_.claim(live.slots);
    live_.add(std::move(live));
  }
}

void Scheduler::handle(Address from, Message&& msg) {
  std::visit([&](auto&& m) { on(from, std::move(m)); }, std::move(msg));
}

void Scheduler::on(Address from, ConnectRequest&& req) {
  // The RM looking for its scheduler at start-up, or a tool attaching to submit.
  env_.send(from, ConnectResponse{req.id, Status::Success});
  if (from == Address::controller()) rm_attached("rm-connected");
}

void Scheduler::on(Address from, ConnectResponse&& resp) {
  if (scripted_answer(resp.id, resp.status, {})) return;
  if (from == Address::controller() && resp.status == Status::Success) rm_attached("scheduler-connected");
}

void Scheduler::on(Address, Unreachable&& notice) {
  // A call of the scenario's script answers its caller, the scheduler itself, as any refused
  // call does; what the refusal says of the RM is then read as for the scheduler's own calls.
  // (Only the kinds it places: other notices carry ids of other parties' calls.)
  const bool scripted =
      (notice.kind == MessageKind::SessionCtrlRequest || notice.kind == MessageKind::ConnectRequest) &&
      scripted_answer(notice.id, Status::ErrUnreach, {});
  if (notice.kind == MessageKind::ConnectRequest && scripted) return;
  if (notice.kind == MessageKind::ConnectRequest)
    env_.log(ev::RmAbsent{.detail = "no controller yet; waiting for it to connect"});
  else if (notice.kind == MessageKind::SessionCtrlRequest && notice.to == Address::controller())
    rm_lost();
  else if (notice.kind == MessageKind::AllocResponse && notice.to.kind == PartyKind::Requestor)
    hand_back(notice.corr);
}

void Scheduler::on(Address, PeerLost&& notice) {
  if (notice.peer.kind == PartyKind::Requestor)
    tool_lost(notice.peer);
  else if (notice.peer == Address::controller())
    rm_lost();
}

void Scheduler::on(Address from, Notification&& event) {
  if (event.code == Status::EventNodeDown)
    if (const auto* name = event.info.get<std::string>(key::HOSTNAME)) node_down(*name);
  if (event.code == Status::DvmIsReady)
    if (const auto* name = event.info.get<std::string>(key::HOSTNAME)) node_back(*name);
  if (event.code == Status::ErrLostConnection && from == Address::controller())
    if (const auto* gone = event.info.get<Proc>(key::PROCID))
      withdraw([&](const QueuedRequest&,
                   const Pending& p) { return p.origin.address == Address::controller() && p.requestor.proc == *gone; },
               "its requestor's connection broke", true);
}

void Scheduler::on(Address from, SpawnRequest&& req) {
  // A scheduler launches nothing: only the RM spawns (FLOW.md §7). Refused, never ignored.
  env_.send(from, SpawnResponse{req.id, Status::ErrNotSupported, {}, {}, req.corr});
}

void Scheduler::rm_attached(std::string_view how) {
  rm_connected_ = true;
  rm_gone_ = false;
  env_.log(ev::SchedulerAttached{.how = how});
  schedule();
}

void Scheduler::rm_lost() {
  // Told twice (the broken connection, then a call to the RM refused): it went once.
  if (!rm_gone_) env_.log(ev::RmLost{});
  rm_connected_ = false;
  rm_gone_ = true;
  failed_instantiations_.clear();  // their COMPLETEs went with the RM
  // Every call waiting on the RM is answered once, as the kind of call it was: PMIX_ERR_UNREACH,
  // what the PMIx library itself answers a call on a connection that broke or is gone.
  for (const Outstanding& out : rm_.abandon_calls()) abandoned(out);
  for (const Origin& origin : rm_.abandon_decisions()) answer_ctrl(origin, Status::ErrUnreach);
  abandon_scripted_to_rm();
  strand_queue();
}

void Scheduler::strand_queue() {
  // Only the RM makes a session (the scheduler's PMIx_Session_control): with it gone no grant
  // can be completed, so nothing queued may wait for one. A request the RM relayed was answered
  // by its requestor's own library or by its daemon when their connection to the RM broke; one
  // that came straight here is answered here. A requeued request had its answer long ago.
  for (const auto& q : queue_.take_all([](const QueuedRequest&, const Pending&) { return true; })) {
    const bool relayed = q.pending.origin.address == Address::controller();
    env_.log(ev::AllocDropped{
        .corr = q.pending.origin.corr,
        .status = Status::ErrUnreach,
        .detail = relayed ? "the RM that relayed it is gone" : "the RM is gone: no session can be made for it"});
    if (!relayed && !q.pending.answered) answer(q.pending.origin, Status::ErrUnreach);
  }
}

void Scheduler::tool_lost(Address tool) {
  withdraw([&](const QueuedRequest&, const Pending& p) { return p.origin.address == tool; }, "its requestor exited",
           false);
  // A tool attached here went away: the RM ends the sessions tied to it (SEP=false).
  auto it = tools_.find(tool);
  if (it == tools_.end() || !rm_connected_) return;
  InfoList info;
  info.add(key::PROCID, it->second);
  tools_.erase(it);
  env_.send(Address::controller(), Notification{Status::ErrLostConnection, std::move(info), {}});
}

void Scheduler::withdraw(const RequestQueue::Pick& pick, std::string_view why, bool answer_rm) {
  // The requestor's own library has answered it PMIX_ERR_UNREACH; the RM that relayed it is
  // answered too, so that it holds no record of a call nobody waits for.
  for (const auto& q : queue_.take_all(pick)) {
    env_.log(ev::AllocDropped{.corr = q.pending.origin.corr, .status = Status::ErrUnreach, .detail = why});
    if (answer_rm && !q.pending.answered) answer(q.pending.origin, Status::ErrUnreach);
  }
}

void Scheduler::hand_back(const std::string& corr) {
  Live* live = live_.by_corr(corr);
  if (!live || !live->instantiated || live->view.ending) return;
  if (rm_gone_) return;   // its session went with the RM's DVM: there is nothing left to terminate
  live->requeue.reset();  // nobody wants it again either
  live->view.preemptible = false;
  live->view.ending = true;
  env_.log(ev::CallOrphaned{
      .corr = corr,
      .status = Status::Success,
      .detail = "its answer could not be delivered: session " + std::to_string(live->session_id) + " terminated"});
  InfoList directives;
  directives.add(key::SESSION_TERMINATE, true);
  rm_.call(live->session_id, std::move(directives), corr,
           Outstanding{.kind = RmCall::HandBack, .alloc_id = live->alloc_id});
}

void Scheduler::node_down(const std::string& name) {
  // A node whose daemon is lost leaves the pool until it is reported back.
  const auto n = cluster_.find(name);
  if (!n || !pool_.node_down(*n)) return;
  env_.log(ev::NodeRemoved{.node = name});
  // What the smaller machine can never hold is refused now rather than left to wait forever.
  for (const auto& q :
       queue_.take_all([this](const QueuedRequest&, const Pending& p) { return !pool_.could_hold(p.need); })) {
    env_.log(ev::AllocDropped{.corr = q.pending.origin.corr,
                              .status = Status::ErrOutOfResource,
                              .detail = "a node went down: the machine can no longer hold it"});
    if (!q.pending.answered) answer(q.pending.origin, Status::ErrOutOfResource);
  }
  schedule();
}

void Scheduler::node_back(const std::string& name) {
  const auto n = cluster_.find(name);
  if (!n || !pool_.node_up(*n)) return;
  env_.log(ev::NodeRestored{.node = name});
  schedule();
}

void Scheduler::answer(const Origin& origin, Status status, InfoList info) {
  env_.log(ev::AllocAnswer{.corr = origin.corr, .to = env_.name_of(origin.address), .status = status});
  env_.send(origin.address, AllocResponse{origin.id, status, std::move(info), origin.corr});
}

void Scheduler::answer_ctrl(const Origin& origin, Status status) {
  env_.log(ev::SessionCtrlAnswer{.corr = origin.corr, .to = env_.name_of(origin.address), .status = status});
  env_.send(origin.address, SessionCtrlResponse{origin.id, status, {}, origin.corr});
}

}  // namespace pmixflow
