#include "pmixflow/roles/controller.hpp"

#include <algorithm>
#include <array>

#include "pmixflow/errors.hpp"
#include "pmixflow/hostlist.hpp"
#include "pmixflow/timespec.hpp"

namespace pmixflow {

std::string_view daemon_state_name(DaemonState s) {
  switch (s) {
    case DaemonState::None: return "none";
    case DaemonState::Starting: return "starting";
    case DaemonState::Up: return "up";
    case DaemonState::Failed: return "failed";
  }
  return "?";
}

namespace {

constexpr Proc kControllerProc{"prte", 0};

// The operational directives exclude each other (FLOW.md §4); SEP may ride along.
constexpr std::array<std::string_view, 9> kOperations{
    key::SESSION_INSTANTIATE, key::SESSION_PAUSE,     key::SESSION_RESUME, key::SESSION_PREEMPT,
    key::SESSION_RESTORE,     key::SESSION_SIGNAL,    key::SESSION_TERMINATE, key::SESSION_EXTEND,
    key::SESSION_COMPLETE};

// Resource *selection* belongs to the scheduler; the RM is only told which nodes.
constexpr std::array<std::string_view, 6> kSelection{key::SESSION_PROVISION_NODES, key::SESSION_PROVISION_IMAGE,
                                                     key::ALLOC_NUM_NODES,          key::ALLOC_NUM_CPUS,
                                                     key::ALLOC_MEM_SIZE,           key::ALLOC_QUEUE};

bool names_operation(const InfoList& d, std::string_view op) {
  // PMIX_SESSION_SIGNAL carries the signal number; the others are booleans set true.
  if (op == key::SESSION_SIGNAL) return d.has(op);
  return d.flag(op);
}

}  // namespace

Controller::Controller(Env& env, const Cluster& cluster, ControllerConfig config)
    : env_(env), cluster_(cluster), config_(std::move(config)), nodes_(cluster.size()) {}

void Controller::start() {
  nodes_[Cluster::kHead].daemon = DaemonState::Up;  // the controller is its own node's daemon
  if (env_.logging()) {
    env_.log(Event("controller.up").uint("nodes", cluster_.size()));
    log_node(Cluster::kHead);
  }
  std::vector<std::pair<NodeId, std::uint32_t>> initial;
  for (NodeId n : config_.initial_dvm)
    if (n != Cluster::kHead) initial.emplace_back(n, 0);
  grow_dvm(initial, "", "dvm-start", "");
  if (config_.connect_to_scheduler) {
    // Optional connection: the RM starts whether or not a scheduler is there.
    InfoList info;
    info.add(key::CONNECT_TO_SCHEDULER, true).add(key::TOOL_CONNECT_OPTIONAL, true);
    env_.send(Address::scheduler(), ConnectRequest{next_id_++, kControllerProc, std::move(info)});
  }
}

void Controller::handle(Address from, Message&& msg) {
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          on_alloc_request(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          on_session_ctrl(from, std::move(m));
        } else if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse>) {
          carry_back(std::move(m));
        } else if constexpr (std::is_same_v<T, ConnectRequest>) {
          const bool declares_scheduler = m.info.flag(key::SERVER_SCHEDULER);
          env_.send(from, ConnectResponse{m.id, Status::Success});
          if (declares_scheduler && from == Address::scheduler()) attach_scheduler("scheduler-connected");
        } else if constexpr (std::is_same_v<T, ConnectResponse>) {
          if (from == Address::scheduler() && m.status == Status::Success) attach_scheduler("rm-connected");
        } else if constexpr (std::is_same_v<T, DaemonReady>) {
          on_daemon_ready(m.node);
        } else if constexpr (std::is_same_v<T, ProcsStarted>) {
          on_procs_started(m);
        } else if constexpr (std::is_same_v<T, ProcsEnded>) {
          on_procs_ended(m);
        } else if constexpr (std::is_same_v<T, Unreachable>) {
          if (m.kind == MessageKind::ConnectRequest) {
            if (env_.logging()) env_.log(Event("scheduler.absent").str("detail", "optional connection: running without one"));
          } else if (m.kind == MessageKind::DaemonReady) {
            on_daemon_failed(m.to.index);
          } else if (m.to == Address::scheduler()) {
            detach_scheduler();
          }
        } else if constexpr (std::is_same_v<T, PeerLost>) {
          if (m.peer == Address::scheduler()) detach_scheduler();
        }
      },
      std::move(msg));
}

// ---------------------------------------------------------------- transport (FLOW.md §2)

void Controller::on_alloc_request(Address from, AllocRequest&& req) {
  if (req.directive == Directive::Activate) {
    // Answered by the RM itself (FLOW.md §5); not served by this version yet.
    return env_.send(from, AllocResponse{req.id, Status::ErrNotSupported, {}, req.corr});
  }
  forward_to_scheduler(from, std::move(req));
}

void Controller::forward_to_scheduler(Address from, Message&& msg) {
  if (!scheduler_attached_) {
    const std::string corr = *message_corr(msg);
    if (config_.no_scheduler == NoSchedulerMode::Refuse) {
      if (env_.logging()) env_.log(Event("request.refused").str("corr", corr).str("reason", "no scheduler attached"));
      const std::uint64_t id = message_id(msg);
      if (std::holds_alternative<AllocRequest>(msg))
        env_.send(from, AllocResponse{id, Status::ErrUnreach, {}, corr});
      else
        env_.send(from, SessionCtrlResponse{id, Status::ErrUnreach, {}, corr});
      return;
    }
    if (env_.logging()) env_.log(Event("request.held").str("corr", corr).str("reason", "no scheduler attached"));
    held_.emplace_back(from, std::move(msg));
    return;
  }
  const std::uint64_t id = next_id_++;
  std::visit(
      [&](auto& call) {
        using T = std::decay_t<decltype(call)>;
        if constexpr (std::is_same_v<T, AllocRequest> || std::is_same_v<T, SessionCtrlRequest>) {
          forwarded_.emplace(id, Forwarded{Origin{from, call.id, call.corr}, std::is_same_v<T, SessionCtrlRequest>});
          // The scheduler must know who really asked: a daemon relays its caller unchanged.
          InfoList& info = [&]() -> InfoList& {
            if constexpr (std::is_same_v<T, AllocRequest>) return call.info;
            else return call.directives;
          }();
          info.set(key::REQUESTOR, call.caller);
          if (env_.logging())
            env_.log(Event("request.forward").str("corr", call.corr).str("from", env_.name_of(from)).str("requestor", to_string(call.caller)));
          call.id = id;
          call.caller = kControllerProc;
        }
      },
      msg);
  env_.send(Address::scheduler(), std::move(msg));
}

template <class Response>
void Controller::carry_back(Response&& resp) {
  auto it = forwarded_.find(resp.id);
  if (it == forwarded_.end()) return;  // e.g. the answer to our own COMPLETE
  const Origin origin = it->second.origin;
  forwarded_.erase(it);
  if (env_.logging())
    env_.log(Event("answer.return").str("corr", resp.corr).str("to", env_.name_of(origin.address)).status("status", resp.status));
  resp.id = origin.id;
  env_.send(origin.address, std::forward<Response>(resp));
}

void Controller::fail_forwarded(Status status) {
  for (auto& [id, fwd] : forwarded_) {
    if (env_.logging())
      env_.log(Event("answer.return").str("corr", fwd.origin.corr).str("to", env_.name_of(fwd.origin.address)).status("status", status));
    if (fwd.session_ctrl)
      env_.send(fwd.origin.address, SessionCtrlResponse{fwd.origin.id, status, {}, fwd.origin.corr});
    else
      env_.send(fwd.origin.address, AllocResponse{fwd.origin.id, status, {}, fwd.origin.corr});
  }
  forwarded_.clear();
}

void Controller::attach_scheduler(std::string_view how) {
  if (scheduler_attached_) return;
  scheduler_attached_ = true;
  if (env_.logging()) env_.log(Event("scheduler.attached").str("how", how));
  // Completions first: the scheduler decides the held requests on a true view of what is free.
  for (auto& complete : held_completes_) env_.send(Address::scheduler(), std::move(complete));
  held_completes_.clear();
  release_held();
}

void Controller::detach_scheduler() {
  if (!scheduler_attached_) return;
  scheduler_attached_ = false;
  if (env_.logging()) env_.log(Event("scheduler.detached").uint("pending", forwarded_.size()));
  // Nobody is left hanging: every request in flight to the scheduler fails now (FLOW.md §3).
  fail_forwarded(Status::ErrUnreach);
}

void Controller::release_held() {
  auto held = std::move(held_);
  held_.clear();
  for (auto& [from, msg] : held) forward_to_scheduler(from, std::move(msg));
}

// ---------------------------------------------------------------- session control (FLOW.md §4)

void Controller::on_session_ctrl(Address from, SessionCtrlRequest&& req) {
  if (from == Address::scheduler()) {
    const Origin origin{from, req.id, req.corr};
    return execute(origin, std::move(req));
  }
  // From anyone else the scheduler decides; the RM forwards with PMIX_REQUESTOR.
  forward_to_scheduler(from, std::move(req));
}

void Controller::execute(const Origin& origin, SessionCtrlRequest&& req) {
  const InfoList& d = req.directives;
  std::vector<std::string_view> ops;
  for (auto op : kOperations)
    if (names_operation(d, op)) ops.push_back(op);
  if (env_.logging()) {
    std::string names;
    for (auto op : ops) names += (names.empty() ? "" : "+") + std::string(session_op_name(*parse_session_op(op)));
    env_.log(Event("session_ctrl.execute").str("corr", req.corr).uint("session", req.session_id).str("ops", names).str("by", env_.name_of(origin.address)));
  }
  if (ops.size() != 1) return answer(origin, Status::ErrBadParam);
  for (auto sel : kSelection)
    if (d.has(sel)) return answer(origin, Status::ErrNotSupported);
  const std::string_view op = ops.front();

  if (op == key::SESSION_COMPLETE) return answer(origin, Status::ErrNotSupported);  // what the RM sends, never takes
  if (op == key::SESSION_INSTANTIATE) {
    const Status st = instantiate(origin, req.session_id, d);
    if (st != Status::Success) answer(origin, st);
    return;
  }
  auto it = sessions_.find(req.session_id);
  if (it == sessions_.end()) return answer(origin, Status::ErrNotFound);
  Session& s = it->second;
  if (op == key::SESSION_TERMINATE) {
    const Status st = terminate(s, &origin, Status::ErrJobKilledByCmd);
    if (st != Status::Success) answer(origin, st);
    return;
  }
  if (op == key::SESSION_EXTEND) return answer(origin, extend(s, d));
  answer(origin, Status::ErrNotSupported);
}

Status Controller::instantiate(const Origin& origin, std::uint32_t id, const InfoList& directives) {
  if (sessions_.count(id)) return Status::ErrExists;
  // Resources come inside PMIX_SESSION_RESOURCES, or given directly beside the directive.
  const InfoList* res = directives.get<InfoList>(key::SESSION_RESOURCES);
  if (!res) res = &directives;
  const auto* apps = directives.get<std::vector<App>>(key::SESSION_APP);
  const auto* list = res->get<std::string>(key::ALLOC_NODE_LIST);
  if (!list) return Status::ErrBadParam;  // apps without resources are refused up front

  Session s;
  s.id = id;
  s.corr = origin.corr;
  s.by_scheduler = origin.address == Address::scheduler();
  s.started = env_.now();
  if (const auto* owner = directives.get<Proc>(key::REQUESTOR)) s.owner = *owner;
  if (const auto* a = res->get<std::string>(key::ALLOC_ID)) s.alloc_id = *a;
  if (const auto* r = res->get<std::string>(key::ALLOC_REQ_ID)) s.req_id = *r;
  if (auto inh = res->get_uint(key::ALLOC_INHERITANCE); inh && *inh >= 1 && *inh <= 4)
    s.inheritance = static_cast<Inheritance>(*inh);
  try {
    const HostSpec spec = parse_host_list(*list, HostUse::NodeList, "PMIX_ALLOC_NODE_LIST");
    for (const auto& h : spec.hosts) {
      auto n = cluster_.find(h.name);
      if (!n || !cluster_.node(*n).schedulable) return Status::ErrBadParam;
      s.nodes.emplace_back(*n, h.slots.value_or(cluster_.node(*n).slots));
    }
    s.time_limit = read_alloc_time(*res).value_or(0.0);
    if (auto t = res->get_uint(key::TIMEOUT)) s.time_limit = static_cast<double>(*t);
  } catch (const InputError&) {
    return Status::ErrBadParam;
  }
  if (s.nodes.empty()) return Status::ErrBadParam;

  Job job;
  if (apps && !apps->empty()) {
    std::uint64_t slots = 0, procs = 0;
    for (const auto& [n, k] : s.nodes) slots += k;
    for (const auto& app : *apps) procs += app.maxprocs == 0 ? slots : app.maxprocs;
    if (procs > slots) return Status::ErrOutOfResource;  // would oversubscribe what was granted
    s.has_apps = true;
    job.nspace = "job-" + std::to_string(id) + "." + std::to_string(++s.jobs_created);
    job.session = id;
    job.apps = *apps;
    job.corr = origin.corr;
    // Map by slot over the session's nodes, in order: PRRTE's default mapping.
    auto node = s.nodes.begin();
    std::uint32_t used = 0;
    for (std::uint64_t p = 0; p < procs; ++p) {
      while (used == node->second) {
        ++node;
        used = 0;
      }
      if (job.placement.empty() || job.placement.back().first != node->first) job.placement.emplace_back(node->first, 0);
      ++job.placement.back().second;
      ++used;
    }
    s.live_jobs.push_back(job.nspace);
    s.instantiate_answer = origin;
  }

  for (const auto& [n, k] : s.nodes) nodes_[n].sessions.push_back(id);
  if (env_.logging()) {
    std::vector<HostEntry> hosts;
    for (const auto& [n, k] : s.nodes) hosts.push_back(HostEntry{cluster_.node(n).name, k});
    env_.log(Event("session.instantiate")
                 .str("corr", s.corr)
                 .uint("session", id)
                 .str("alloc", s.alloc_id)
                 .str("nodes", format_host_list(hosts))
                 .str("by", env_.name_of(origin.address))
                 .num("time_limit", s.time_limit)
                 .flag("apps", s.has_apps));
    for (const auto& [n, k] : s.nodes) log_node(n);
  }
  auto [it, inserted] = sessions_.emplace(id, std::move(s));
  Session& session = it->second;
  arm_limit(session);
  const bool growing = grow_dvm(session.nodes, session.alloc_id, session.corr, session.req_id);
  if (!session.has_apps) {
    // A standing reservation: granted now; its daemons are reported by PMIX_DVM_IS_READY.
    InfoList info;
    info.add(key::SESSION_ID, id).add(key::ALLOC_ID, session.alloc_id);
    answer(origin, Status::Success, std::move(info));
    return Status::Success;
  }
  auto [job_it, ok] = jobs_.emplace(job.nspace, std::move(job));
  if (growing || !changes_.empty()) {
    if (env_.logging()) env_.log(Event("job.fenced").str("nspace", job_it->first).str("corr", session.corr).str("reason", "DVM changing size"));
    fenced_.push_back(job_it->first);
  } else {
    launch(job_it->second);
  }
  return Status::Success;
}

void Controller::arm_limit(Session& s) {
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  if (s.time_limit <= 0) return;
  const double remaining = std::max(0.0, s.started + s.time_limit - env_.now());
  const std::uint32_t id = s.id;
  s.limit_timer = env_.after(remaining, [this, id] {
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    it->second.limit_timer = 0;
    if (env_.logging()) env_.log(Event("session.timeout").uint("session", id).str("corr", it->second.corr));
    terminate(it->second, nullptr, Status::ErrTimeout);
  });
}

Status Controller::terminate(Session& s, const Origin* answer_to, Status reason) {
  if (answer_to) s.terminate_answers.push_back(*answer_to);
  if (s.terminating) return Status::Success;  // already on its way out; answered when reclaimed
  s.terminating = true;
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  if (env_.logging()) env_.log(Event("session.terminate").uint("session", s.id).str("corr", s.corr).status("reason", reason));
  if (s.live_jobs.empty()) {
    reclaim(s);
    return Status::Success;
  }
  const auto live = s.live_jobs;  // job_ended() edits the list
  for (const auto& nspace : live) {
    Job& job = jobs_.at(nspace);
    job.status = reason;
    if (job.state == JobState::Fenced) {
      std::erase(fenced_, nspace);
      job_ended(job);
      continue;
    }
    for (const auto& [n, procs] : job.placement) env_.send(Address::daemon(n), KillProcs{nspace, reason});
  }
  return Status::Success;
}

Status Controller::extend(Session& s, const InfoList& d) {
  bool changed = false;
  try {
    if (const auto* list = d.get<std::string>(key::ALLOC_NODE_LIST)) {
      std::vector<std::pair<NodeId, std::uint32_t>> added;
      for (const auto& h : parse_host_list(*list, HostUse::NodeList, "PMIX_ALLOC_NODE_LIST").hosts) {
        auto n = cluster_.find(h.name);
        if (!n || !cluster_.node(*n).schedulable) return Status::ErrBadParam;
        added.emplace_back(*n, h.slots.value_or(cluster_.node(*n).slots));
      }
      for (const auto& [n, k] : added) {
        auto same = std::find_if(s.nodes.begin(), s.nodes.end(), [&](const auto& e) { return e.first == n; });
        if (same != s.nodes.end()) same->second += k;
        else {
          s.nodes.emplace_back(n, k);
          nodes_[n].sessions.push_back(s.id);
        }
        if (env_.logging()) log_node(n);
      }
      changed = !added.empty();
      grow_dvm(added, s.alloc_id, s.corr, s.req_id);
    }
    std::optional<double> limit = read_alloc_time(d);
    if (auto t = d.get_uint(key::TIMEOUT)) limit = static_cast<double>(*t);
    if (limit && *limit != s.time_limit) {
      s.time_limit = *limit;
      arm_limit(s);
      changed = true;
    }
  } catch (const InputError&) {
    return Status::ErrBadParam;
  }
  if (auto inh = d.get_uint(key::ALLOC_INHERITANCE); inh && *inh >= 1 && *inh <= 4 &&
                                                      static_cast<Inheritance>(*inh) != s.inheritance) {
    s.inheritance = static_cast<Inheritance>(*inh);
    changed = true;
  }
  if (!changed) return Status::ErrBadParam;  // an extend that changes nothing is an error
  if (env_.logging()) env_.log(Event("session.extend").uint("session", s.id).str("corr", s.corr).num("time_limit", s.time_limit).uint("nodes", s.nodes.size()));
  return Status::Success;
}

void Controller::reclaim(Session& s) {
  // Tear down first, then tell the scheduler: COMPLETE goes out only once the resources
  // really are free (FLOW.md §4).
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  const bool keep_daemons = s.inheritance == Inheritance::Default || s.inheritance == Inheritance::ChildDefault;
  for (const auto& [n, k] : s.nodes) {
    std::erase(nodes_[n].sessions, s.id);
    // A node another session still holds keeps its daemon whatever this one's inheritance says.
    if (!keep_daemons && n != Cluster::kHead && nodes_[n].sessions.empty() && nodes_[n].daemon == DaemonState::Up) {
      env_.send(Address::daemon(n), DaemonShutdown{});
      nodes_[n].daemon = DaemonState::None;
    }
    if (env_.logging()) log_node(n);
  }
  if (env_.logging())
    env_.log(Event("session.reclaimed").uint("session", s.id).str("alloc", s.alloc_id).str("corr", s.corr)
                 .str("nodes_to", keep_daemons ? "dvm-pool" : "scheduler").uint("jobs", s.ended_jobs.size()));
  const std::uint32_t id = s.id;
  // An instantiation still waiting for its launch is answered with how its job ended.
  Status unlaunched = Status::ErrJobKilledByCmd;
  for (const auto& item : s.ended_jobs.items)
    if (const auto* st = std::get<InfoList>(item.value).get<Status>(key::JOB_TERM_STATUS); st && *st != Status::Success) {
      unlaunched = *st;
      break;
    }
  if (s.by_scheduler) {
    InfoList d;
    d.add(key::SESSION_COMPLETE, true).add(key::SESSION_ID, s.id).add(key::ALLOC_ID, s.alloc_id);
    for (auto& item : s.ended_jobs.items) d.items.push_back(std::move(item));
    SessionCtrlRequest complete{next_id_++, s.id, std::move(d), kControllerProc, s.corr};
    if (env_.logging()) env_.log(Event("session.complete").uint("session", s.id).str("alloc", s.alloc_id).str("corr", s.corr));
    if (scheduler_attached_) env_.send(Address::scheduler(), std::move(complete));
    else held_completes_.push_back(std::move(complete));
  }
  for (const auto& origin : s.terminate_answers) answer(origin, Status::Success);
  if (s.instantiate_answer) answer(*s.instantiate_answer, unlaunched);
  sessions_.erase(id);
}

void Controller::answer(const Origin& origin, Status status, InfoList info) {
  if (env_.logging())
    env_.log(Event("session_ctrl.answer").str("corr", origin.corr).str("to", env_.name_of(origin.address)).status("status", status));
  env_.send(origin.address, SessionCtrlResponse{origin.id, status, std::move(info), origin.corr});
}

// ---------------------------------------------------------------- DVM and jobs (FLOW.md §6)

bool Controller::grow_dvm(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes, const std::string& alloc_id,
                          const std::string& corr, const std::string& req_id) {
  DvmChange change;
  change.corr = corr;
  if (!alloc_id.empty()) change.alloc_ids.push_back(alloc_id);
  if (!req_id.empty()) change.req_ids.push_back(req_id);
  for (const auto& [n, k] : nodes) {
    if (nodes_[n].daemon == DaemonState::Up) continue;
    if (nodes_[n].daemon != DaemonState::Starting) {
      nodes_[n].daemon = DaemonState::Starting;
      env_.start_daemon(n);
      if (env_.logging()) log_node(n);
    }
    change.pending.push_back(n);
  }
  if (change.pending.empty()) return false;
  if (env_.logging()) env_.log(Event("dvm.grow").str("corr", corr).uint("daemons", change.pending.size()).str("alloc", alloc_id));
  changes_.push_back(std::move(change));
  return true;
}

void Controller::on_daemon_ready(NodeId node) {
  if (node >= nodes_.size()) return;
  nodes_[node].daemon = DaemonState::Up;
  if (env_.logging()) log_node(node);
  for (auto& c : changes_) std::erase(c.pending, node);
  finish_changes();
}

void Controller::on_daemon_failed(NodeId node) {
  if (node >= nodes_.size()) return;
  nodes_[node].daemon = DaemonState::Failed;
  if (env_.logging()) log_node(node);
  for (auto& c : changes_)
    if (std::erase(c.pending, node)) c.failed = true;
  finish_changes();
}

void Controller::finish_changes() {
  // Every size change ends with one event naming its allocations (FLOW.md §5).
  for (auto it = changes_.begin(); it != changes_.end();) {
    if (!it->pending.empty()) {
      ++it;
      continue;
    }
    const Status code = it->failed ? Status::ErrDvmMod : Status::DvmIsReady;
    InfoList info;
    for (const auto& a : it->alloc_ids) info.add(key::ALLOC_ID, a);
    for (const auto& r : it->req_ids) info.add(key::ALLOC_REQ_ID, r);
    if (env_.logging()) env_.log(Event("dvm.ready").str("corr", it->corr).status("code", code).info("info", info));
    if (scheduler_attached_) env_.send(Address::scheduler(), Notification{code, std::move(info), it->corr});
    it = changes_.erase(it);
  }
  if (!changes_.empty()) return;
  // The launch fence lifts with the ready event.
  auto fenced = std::move(fenced_);
  fenced_.clear();
  for (const auto& nspace : fenced)
    if (auto it = jobs_.find(nspace); it != jobs_.end()) launch(it->second);
}

void Controller::launch(Job& job) {
  job.state = JobState::Launching;
  if (env_.logging()) env_.log(Event("job.launch").str("nspace", job.nspace).uint("session", job.session).str("corr", job.corr).uint("daemons", job.placement.size()));
  // Each daemon runs its share; a daemon hosting ranks of several apps runs them together.
  std::uint32_t rank = 0;
  std::vector<NodeId> unreachable;
  for (const auto& [n, procs] : job.placement) {
    App local = job.apps.front();
    for (const auto& app : job.apps) {
      local.runtime_s = std::max(local.simulated_runtime(), app.simulated_runtime());
      if (local.exit_code == 0) local.exit_code = app.exit_code;
    }
    if (nodes_[n].daemon != DaemonState::Up) unreachable.push_back(n);
    else env_.send(Address::daemon(n), LaunchProcs{job.nspace, job.session, std::move(local), procs, rank, job.corr});
    rank += procs;
  }
  // Ranks whose daemon never came up cannot start; the job may end here, so it is looked up
  // again rather than held by reference.
  const std::string nspace = job.nspace;
  for (NodeId n : unreachable) on_procs_ended(ProcsEnded{nspace, n, Status::ErrJobFailedToLaunch, 0});
}

void Controller::on_procs_started(const ProcsStarted& m) {
  auto it = jobs_.find(m.nspace);
  if (it == jobs_.end()) return;
  Job& job = it->second;
  for (const auto& [n, procs] : job.placement)
    if (n == m.node) nodes_[n].procs += procs;
  if (env_.logging()) log_node(m.node);
  if (++job.started < job.placement.size() || job.state != JobState::Launching) return;
  job.state = JobState::Running;
  if (env_.logging()) env_.log(Event("job.start").str("nspace", job.nspace).uint("session", job.session).str("corr", job.corr).status("event", Status::EventJobStart));
  auto s = sessions_.find(job.session);
  if (s != sessions_.end() && s->second.instantiate_answer) {
    // "answers only once the launch is done" (FLOW.md §4)
    InfoList info;
    info.add(key::SESSION_ID, s->second.id).add(key::ALLOC_ID, s->second.alloc_id).add(key::NSPACE, job.nspace);
    answer(*s->second.instantiate_answer, Status::Success, std::move(info));
    s->second.instantiate_answer.reset();
  }
}

void Controller::on_procs_ended(const ProcsEnded& m) {
  auto it = jobs_.find(m.nspace);
  if (it == jobs_.end()) return;
  Job& job = it->second;
  for (const auto& [n, procs] : job.placement)
    if (n == m.node && nodes_[n].procs >= procs && m.status != Status::ErrJobFailedToLaunch) nodes_[n].procs -= procs;
  if (env_.logging() && m.node < nodes_.size()) log_node(m.node);
  // The job's status is the first failure any of its daemons reports.
  if (job.status == Status::Success && m.status != Status::Success) job.status = m.status;
  if (++job.ended < job.placement.size()) return;
  job_ended(job);
}

void Controller::job_ended(Job& job) {
  job.state = JobState::Ended;
  if (env_.logging())
    env_.log(Event("job.end").str("nspace", job.nspace).uint("session", job.session).str("corr", job.corr).status("status", job.status).status("event", Status::EventJobEnd));
  const std::string nspace = job.nspace;
  const std::uint32_t session_id = job.session;
  InfoList record;
  record.add(key::NSPACE, nspace).add(key::JOB_TERM_STATUS, job.status);
  jobs_.erase(nspace);
  auto s = sessions_.find(session_id);
  if (s == sessions_.end()) return;
  Session& session = s->second;
  session.ended_jobs.add(key::JOB_INFO_ARRAY, std::move(record));
  std::erase(session.live_jobs, nspace);
  // With apps, the session is reclaimed when its last job ends (FLOW.md §4).
  if (session.live_jobs.empty() && (session.has_apps || session.terminating)) reclaim(session);
}

void Controller::log_node(NodeId n) {
  const NodeState& st = nodes_[n];
  const char* use = st.procs > 0 ? "busy" : !st.sessions.empty() ? "withheld" : "free";
  std::string sessions = "[";
  for (std::size_t i = 0; i < st.sessions.size(); ++i) sessions += (i ? "," : "") + std::to_string(st.sessions[i]);
  Event e("node");
  e.str("node", cluster_.node(n).name).str("daemon", daemon_state_name(st.daemon)).str("use", use).raw("sessions", sessions + "]");
  env_.log(e);
}

}  // namespace pmixflow
