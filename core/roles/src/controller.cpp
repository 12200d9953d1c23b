#include "pmixflow/roles/controller.hpp"

#include <algorithm>
#include <array>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/timespec.hpp"

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
    key::SESSION_INSTANTIATE, key::SESSION_PAUSE,     key::SESSION_RESUME, key::SESSION_PREEMPT, key::SESSION_RESTORE,
    key::SESSION_SIGNAL,      key::SESSION_TERMINATE, key::SESSION_EXTEND, key::SESSION_COMPLETE};

// Resource *selection* belongs to the scheduler; the RM is only told which nodes.
constexpr std::array<std::string_view, 6> kSelection{key::SESSION_PROVISION_NODES, key::SESSION_PROVISION_IMAGE,
                                                     key::ALLOC_NUM_NODES,         key::ALLOC_NUM_CPUS,
                                                     key::ALLOC_MEM_SIZE,          key::ALLOC_QUEUE};

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
  // Every node's starting state, so that a reader sees the allocated nodes that have no
  // daemon yet as well as those that do (FLOW.md §§6, 8).
  env_.log(ev::ControllerUp{.num_nodes = cluster_.size()});
  log_node(Cluster::kHead);
  std::vector<std::pair<NodeId, std::uint32_t>> initial;
  for (NodeId n : config_.initial_dvm)
    if (n != Cluster::kHead) initial.emplace_back(n, 0);
  grow_dvm(initial, "", "dvm-start", "");
  for (NodeId n = 1; n < cluster_.size(); ++n)
    if (nodes_[n].daemon == DaemonState::None) log_node(n);  // allocated, outside the DVM
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
        if constexpr (std::is_same_v<T, AllocRequest> || std::is_same_v<T, SessionCtrlRequest> ||
                      std::is_same_v<T, SpawnRequest>) {
          if (from.kind == PartyKind::Requestor) clients_[from] = m.caller;
        }
        if constexpr (std::is_same_v<T, AllocRequest>) {
          on_alloc_request(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          on_session_ctrl(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SpawnRequest>) {
          on_spawn(from, std::move(m));
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
            env_.log(ev::SchedulerAbsent{.detail = "optional connection: running without one"});
          } else if (m.kind == MessageKind::DaemonReady) {
            on_daemon_failed(m.to.index);
          } else if (m.to == Address::scheduler()) {
            detach_scheduler();
          } else if (m.to.kind == PartyKind::Daemon) {
            on_node_failed(m.to.index);
          }
        } else if constexpr (std::is_same_v<T, Notification>) {
          // A daemon or the scheduler lost a client of theirs: sessions tied to it end.
          if (m.code == Status::ErrLostConnection)
            if (const auto* gone = m.info.template get<Proc>(key::PROCID)) {
              if (env_.wants<ev::RequestorGone>())
                env_.log(ev::RequestorGone{.requestor = to_string(*gone), .via = env_.name_of(from)});
              end_dependents(gone->nspace, 0, Status::ErrJobKilledByCmd);
            }
        } else if constexpr (std::is_same_v<T, PeerLost>) {
          if (m.peer == Address::scheduler()) {
            detach_scheduler();
          } else if (m.peer.kind == PartyKind::Daemon) {
            on_node_failed(m.peer.index);
          } else if (auto client = clients_.find(m.peer); client != clients_.end()) {
            // A tool that goes away takes with it the sessions tied to its lifetime (SEP=false).
            const Proc gone = client->second;
            clients_.erase(client);
            if (env_.wants<ev::RequestorGone>()) env_.log(ev::RequestorGone{.requestor = to_string(gone)});
            end_dependents(gone.nspace, 0, Status::ErrJobKilledByCmd);
          }
        }
      },
      std::move(msg));
}

// ---------------------------------------------------------------- transport (FLOW.md §2)

void Controller::on_alloc_request(Address from, AllocRequest&& req) {
  const Origin origin{from, req.id, req.corr};
  if (req.directive == Directive::Activate) {
    // Answered by the RM itself, never by a scheduler (FLOW.md §5).
    std::vector<NodeId> nodes;
    const Status st = activate(req.info, req.caller, from, req.corr, nodes);
    InfoList info;
    if (const auto* alloc = req.info.get<std::string>(key::ALLOC_ID)) info.add(key::ALLOC_ID, *alloc);
    return reply_alloc(origin, st, std::move(info));
  }
  if (!scheduler_attached_ && config_.no_scheduler == NoSchedulerMode::Serve)
    return serve_standalone(origin, std::move(req));
  forward_to_scheduler(from, std::move(req));
}

void Controller::forward_to_scheduler(Address from, Message&& msg) {
  if (!scheduler_attached_) {
    const std::string corr = *message_corr(msg);
    if (config_.no_scheduler == NoSchedulerMode::Refuse) {
      env_.log(ev::RequestRefused{.corr = corr, .detail = "no scheduler attached"});
      const Origin origin{from, message_id(msg), corr};
      if (std::holds_alternative<AllocRequest>(msg))
        reply_alloc(origin, Status::ErrUnreach, {});
      else
        answer(origin, Status::ErrUnreach);
      return;
    }
    if (config_.no_scheduler == NoSchedulerMode::Serve && std::holds_alternative<AllocRequest>(msg)) {
      auto& req = std::get<AllocRequest>(msg);
      return serve_standalone(Origin{from, req.id, req.corr}, std::move(req));
    }
    env_.log(ev::RequestHeld{.corr = corr, .detail = "no scheduler attached"});
    held_.emplace_back(from, std::move(msg));
    return;
  }
  const std::uint64_t id = next_id_++;
  std::visit(
      [&](auto& call) {
        using T = std::decay_t<decltype(call)>;
        if constexpr (std::is_same_v<T, AllocRequest> || std::is_same_v<T, SessionCtrlRequest>) {
          forwarded_.emplace(id, Forwarded{Origin{from, call.id, call.corr}, kind_of<T>()});
          // The scheduler must know who really asked: a daemon relays its caller unchanged.
          InfoList& info = [&]() -> InfoList& {
            if constexpr (std::is_same_v<T, AllocRequest>)
              return call.info;
            else
              return call.directives;
          }();
          info.set(key::REQUESTOR, call.caller);
          if (env_.wants<ev::RequestForward>())
            env_.log(
                ev::RequestForward{.corr = call.corr, .from = env_.name_of(from), .requestor = to_string(call.caller)});
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
  if constexpr (std::is_same_v<std::decay_t<Response>, AllocResponse>) {
    reply_alloc(origin, resp.status, std::move(resp.info));
  } else {
    env_.log(ev::AnswerReturn{.corr = resp.corr, .to = env_.name_of(origin.address), .status = resp.status});
    resp.id = origin.id;
    env_.send(origin.address, std::forward<Response>(resp));
  }
}

void Controller::reply_alloc(const Origin& origin, Status status, InfoList info) {
  if (origin.address == Address::controller()) return on_spawn_allocated(origin.id, status, info);
  env_.log(ev::AnswerReturn{.corr = origin.corr, .to = env_.name_of(origin.address), .status = status});
  env_.send(origin.address, AllocResponse{origin.id, status, std::move(info), origin.corr});
}

void Controller::fail_forwarded(Status status) {
  auto forwarded = std::move(forwarded_);
  forwarded_.clear();
  for (auto& [id, fwd] : forwarded) {
    if (fwd.kind == MessageKind::SessionCtrlRequest)
      answer(fwd.origin, status);
    else
      reply_alloc(fwd.origin, status, {});
  }
}

void Controller::attach_scheduler(std::string_view how) {
  if (scheduler_attached_) return;
  scheduler_attached_ = true;
  env_.log(ev::SchedulerAttached{.how = how});
  // Completions first: the scheduler decides the held requests on a true view of what is free.
  for (auto& complete : held_completes_) env_.send(Address::scheduler(), std::move(complete));
  held_completes_.clear();
  release_held();
}

void Controller::detach_scheduler() {
  if (!scheduler_attached_) return;
  scheduler_attached_ = false;
  env_.log(ev::SchedulerDetached{.num_pending = forwarded_.size()});
  // Nobody is left hanging: every request in flight to the scheduler fails now (FLOW.md §3).
  fail_forwarded(Status::ErrUnreach);
}

void Controller::release_held() {
  auto held = std::move(held_);
  held_.clear();
  for (auto& [from, msg] : held) forward_to_scheduler(from, std::move(msg));
}

void Controller::serve_standalone(const Origin& origin, AllocRequest&& req) {
  // A standalone DVM answers from its own pool of known nodes (PRRTE's ras/hosts).
  env_.log(ev::AllocStandalone{.corr = req.corr, .directive = directive_name(req.directive)});
  if (req.directive == Directive::Release) {
    const auto* alloc = req.info.get<std::string>(key::ALLOC_ID);
    auto it = std::find_if(sessions_.begin(), sessions_.end(),
                           [&](const auto& e) { return alloc && e.second.alloc_id == *alloc; });
    if (it == sessions_.end()) return reply_alloc(origin, Status::ErrNotFound, {});
    if (it->second.owner.nspace != req.caller.nspace) return reply_alloc(origin, Status::ErrNoPermissions, {});
    terminate(it->second, nullptr, Status::ErrJobKilledByCmd);
    return reply_alloc(origin, Status::Success, {});
  }
  if (req.directive != Directive::New) return reply_alloc(origin, Status::ErrNotSupported, {});
  std::uint64_t cpus = req.info.get_uint(key::ALLOC_NUM_CPUS).value_or(0);
  const std::uint64_t whole = req.info.get_uint(key::ALLOC_NUM_NODES).value_or(0);
  if (cpus == 0 && whole == 0) return reply_alloc(origin, Status::ErrBadParam, {});
  std::vector<HostEntry> chosen;
  std::uint64_t nodes_left = whole;
  for (NodeId n = 0; n < cluster_.size() && (cpus > 0 || nodes_left > 0); ++n) {
    if (!cluster_.node(n).schedulable || !nodes_[n].sessions.empty() || nodes_[n].daemon == DaemonState::Failed)
      continue;
    const std::uint32_t slots = cluster_.node(n).slots;
    if (whole > 0) {
      chosen.push_back(HostEntry{cluster_.node(n).name, slots});
      --nodes_left;
    } else {
      const auto take = static_cast<std::uint32_t>(std::min<std::uint64_t>(cpus, slots));
      chosen.push_back(HostEntry{cluster_.node(n).name, take});
      cpus -= take;
    }
  }
  if (cpus > 0 || nodes_left > 0) return reply_alloc(origin, Status::ErrOutOfResource, {});
  const std::uint32_t id = next_rm_session_++;
  InfoList resources;
  resources.add(key::ALLOC_NODE_LIST, format_host_list(chosen))
      .add(key::ALLOC_ID, "dvm-alloc-" + std::to_string(id - 0x80000000u + 1));
  for (const auto& k : {key::ALLOC_TIME, key::ALLOC_INHERITANCE, key::ALLOC_REQ_ID})
    if (const Value* v = req.info.find(k)) resources.add(k, *v);
  InfoList directives;
  directives.add(key::SESSION_INSTANTIATE, true)
      .add(key::SESSION_RESOURCES, std::move(resources))
      .add(key::REQUESTOR, req.caller);
  for (const auto& item : req.info.items)
    if (item.key == key::SESSION_APP || item.key == key::ALLOC_CHILD_SEP || item.key == key::SESSION_SEP)
      directives.items.push_back(item);
  // Instantiated as the RM's own decision: answered as an allocation, not as session control,
  // and, with an app, once it is launched (as the scheduler's path answers).
  const Origin internal{Address::controller(), 0, req.corr};
  const Status st = instantiate(internal, id, directives);
  if (st != Status::Success) return reply_alloc(origin, st, {});
  Session& s = sessions_.at(id);
  s.owner = req.caller;
  InfoList info;
  info.add(key::ALLOC_ID, s.alloc_id).add(key::SESSION_ID, id).add(key::ALLOC_NODE_LIST, format_host_list(chosen));
  if (s.instantiate_answer) {
    standalone_answers_[id] = StandaloneAnswer{origin, std::move(info)};
    return;
  }
  reply_alloc(origin, Status::Success, std::move(info));
}

// ---------------------------------------------------------------- session control (FLOW.md §4)

void Controller::on_session_ctrl(Address from, SessionCtrlRequest&& req) {
  const Origin origin{from, req.id, req.corr};
  // An order from the scheduler is carried out. From anyone else the scheduler decides (the
  // RM forwards with PMIX_REQUESTOR); with none attached, the controller decides itself
  // after checking the caller owns the session (FLOW.md §4).
  if (from == Address::scheduler()) return execute(origin, std::move(req), true);
  if (scheduler_attached_) {
    // COMPLETE is what the RM sends, never what it takes: not even the scheduler's to decide.
    if (req.directives.flag(key::SESSION_COMPLETE)) return answer(origin, Status::ErrNotSupported);
    return forward_to_scheduler(from, std::move(req));
  }
  execute(origin, std::move(req), false);
}

void Controller::execute(const Origin& origin, SessionCtrlRequest&& req, bool by_scheduler) {
  const InfoList& d = req.directives;
  std::vector<std::string_view> ops;
  for (auto op : kOperations)
    if (names_operation(d, op)) ops.push_back(op);
  const bool sep = d.has(key::SESSION_SEP);
  if (env_.wants<ev::SessionCtrlExecute>()) {
    std::string names;
    for (auto op : ops) names += (names.empty() ? "" : "+") + std::string(session_op_name(*parse_session_op(op)));
    if (sep) names += std::string(names.empty() ? "" : "+") + "PMIX_SESSION_SEP";
    env_.log(ev::SessionCtrlExecute{.corr = req.corr,
                                    .session = req.session_id,
                                    .ops = names,
                                    .by = env_.name_of(origin.address),
                                    .decided_by = by_scheduler ? "scheduler" : "controller"});
  }
  // Provisioning and resource selection are refused whatever else is asked: the RM is told
  // which nodes, choosing them is the scheduler's job.
  const InfoList* res = d.get<InfoList>(key::SESSION_RESOURCES);
  for (auto sel : kSelection)
    if (d.has(sel) || (res && res->has(sel))) return answer(origin, Status::ErrNotSupported);
  // One operation per request; SEP may ride along, or stand alone.
  if (ops.size() > 1 || (ops.empty() && !sep)) return answer(origin, Status::ErrBadParam);
  const std::string_view op = ops.empty() ? key::SESSION_SEP : ops.front();
  if (op == key::SESSION_COMPLETE) return answer(origin, Status::ErrNotSupported);  // what the RM sends, never takes
  if (op == key::SESSION_INSTANTIATE) {
    if (req.session_id == kAllSessions) return answer(origin, Status::ErrBadParam);
    // "PRRTE only creates a session object as a result of a call from the scheduler" (the
    // seed): nobody else may instantiate, not even with no scheduler attached.
    if (!by_scheduler) return answer(origin, Status::ErrNoPermissions);
    const Status st = instantiate(origin, req.session_id, req.directives);
    if (st != Status::Success) answer(origin, st);
    return;
  }

  // The sessions this call acts on: one, or (UINT32_MAX) every session the caller controls.
  std::vector<std::uint32_t> targets;
  if (req.session_id == kAllSessions) {
    for (const auto& [id, session] : sessions_)
      if (by_scheduler ? session.by_scheduler : session.owner.nspace == req.caller.nspace) targets.push_back(id);
  } else {
    auto it = sessions_.find(req.session_id);
    if (it == sessions_.end()) return answer(origin, Status::ErrNotFound);
    if (!by_scheduler && it->second.owner.nspace != req.caller.nspace) return answer(origin, Status::ErrNoPermissions);
    targets.push_back(req.session_id);
  }
  std::vector<std::string> named;
  for (const auto& item : d.items)
    if (item.key == key::NSPACE)
      if (const auto* ns = std::get_if<std::string>(&item.value)) named.push_back(*ns);
  // Across several sessions a named job need only be in one of them; each session acts on
  // the named jobs it has.
  auto named_in = [&](const Session& session) {
    if (req.session_id != kAllSessions) return named;
    std::vector<std::string> here;
    for (const auto& ns : named)
      if (std::find(session.live_jobs.begin(), session.live_jobs.end(), ns) != session.live_jobs.end())
        here.push_back(ns);
    return here;
  };
  if (req.session_id == kAllSessions)
    for (const auto& ns : named) {
      const bool somewhere = std::any_of(targets.begin(), targets.end(), [&](std::uint32_t id) {
        const auto& jobs = sessions_.at(id).live_jobs;
        return std::find(jobs.begin(), jobs.end(), ns) != jobs.end();
      });
      if (!somewhere) return answer(origin, Status::ErrNotFound);
    }

  Status result = Status::Success;
  const bool answer_on_reclaim = op == key::SESSION_TERMINATE && targets.size() == 1;
  for (std::uint32_t id : targets) {
    auto it = sessions_.find(id);
    if (it == sessions_.end()) continue;  // ended by an earlier target (a child of its parent)
    Session& session = it->second;
    Status st = Status::Success;
    if (sep) {
      const Value* v = d.find(key::SESSION_SEP);
      session.sep = !(v && std::holds_alternative<bool>(*v) && !std::get<bool>(*v));
      env_.log(ev::SessionSep{.session = id, .sep = *session.sep});
    }
    const auto jobs = named_in(session);
    if ((op == key::SESSION_PREEMPT || op == key::SESSION_RESTORE || op == key::SESSION_SIGNAL) && !named.empty() &&
        jobs.empty())
      continue;  // none of the named jobs is here
    if (op == key::SESSION_PAUSE)
      st = stop_jobs(session, {}, false, true);
    else if (op == key::SESSION_RESUME)
      st = stop_jobs(session, {}, false, false);
    else if (op == key::SESSION_PREEMPT)
      st = stop_jobs(session, jobs, true, true);
    else if (op == key::SESSION_RESTORE)
      st = stop_jobs(session, jobs, true, false);
    else if (op == key::SESSION_SIGNAL) {
      const auto sig = d.get_uint(key::SESSION_SIGNAL);  // int32 upstream; any integer accepted
      st = sig ? signal_jobs(session, jobs, static_cast<int>(*sig)) : Status::ErrBadParam;
    } else if (op == key::SESSION_EXTEND)
      st = extend(session, d);
    else if (op == key::SESSION_TERMINATE)
      st = terminate(session, answer_on_reclaim ? &origin : nullptr, Status::ErrJobKilledByCmd);
    if (result == Status::Success) result = st;
  }
  if (!answer_on_reclaim || result != Status::Success) answer(origin, result);
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
    s.has_apps = true;
    job.nspace = "job-" + std::to_string(id) + "." + std::to_string(++s.jobs_created);
    job.session = id;
    job.apps = *apps;
    job.corr = origin.corr;
    if (!map_job(job, s.nodes)) return Status::ErrOutOfResource;  // would oversubscribe what was granted
    s.live_jobs.push_back(job.nspace);
    s.instantiate_answer = origin;
  }
  // Sessions made by session control are detached by default; SEP=false ties one to its
  // requestor. A session asked for from inside another is that one's child (FLOW.md §4).
  if (const Value* v = directives.find(key::SESSION_SEP); v && std::holds_alternative<bool>(*v))
    s.sep = std::get<bool>(*v);
  s.child_sep = directives.flag(key::ALLOC_CHILD_SEP) || res->flag(key::ALLOC_CHILD_SEP);
  s.parent = session_of_requestor(s.owner);

  for (const auto& [n, k] : s.nodes) nodes_[n].sessions.push_back(id);
  if (env_.wants<ev::SessionInstantiate>()) {
    std::vector<HostEntry> hosts;
    for (const auto& [n, k] : s.nodes) hosts.push_back(HostEntry{cluster_.node(n).name, k});
    env_.log(ev::SessionInstantiate{.corr = s.corr,
                                    .session = id,
                                    .alloc = s.alloc_id,
                                    .node_list = format_host_list(hosts),
                                    .by = env_.name_of(origin.address),
                                    .time_limit = s.time_limit,
                                    .with_apps = s.has_apps,
                                    .owner = to_string(s.owner),
                                    .sep = s.sep,
                                    .parent = s.parent});
  }
  for (const auto& [n, k] : s.nodes) log_node(n);
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
  start_or_fence(job_it->second, growing);
  return Status::Success;
}

bool Controller::map_job(Job& job, const std::vector<std::pair<NodeId, std::uint32_t>>& slots) {
  // By slot over the given nodes, in order: PRRTE's default mapping. Never oversubscribes.
  std::uint64_t total = 0, procs = 0;
  for (const auto& [n, k] : slots) total += k;
  for (const auto& app : job.apps) procs += app.maxprocs == 0 ? total : app.maxprocs;
  if (procs == 0 || procs > total) return false;
  job.placement.clear();
  auto node = slots.begin();
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
  return true;
}

void Controller::start_or_fence(Job& job, bool growing) {
  // While the DVM changes size, new jobs wait before mapping: the launch fence (FLOW.md §5).
  if (growing || !changes_.empty()) {
    env_.log(ev::JobFenced{.nspace = job.nspace, .corr = job.corr, .detail = "DVM changing size"});
    fenced_.push_back(job.nspace);
  } else {
    launch(job);
  }
}

std::uint32_t Controller::session_of_requestor(const Proc& p) const {
  // A requestor is "inside" a session when it is a process of one of that session's jobs.
  auto it = jobs_.find(p.nspace);
  return it == jobs_.end() ? 0 : it->second.session;
}

void Controller::arm_limit(Session& s) {
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  // A session instantiated with its app counts its time from the job's start, as a batch
  // system counts walltime (its daemons may first have to start); a reservation from its
  // instantiation. The grace lets a job that ends exactly at its limit report its own end
  // (its report crosses the network as the limit expires) rather than be killed.
  if (s.time_limit <= 0 || (s.has_apps && !s.clock_started)) return;
  constexpr double kGrace = 1e-3;
  const double remaining = std::max(0.0, s.started + s.time_limit + (s.has_apps ? kGrace : 0.0) - env_.now());
  const std::uint32_t id = s.id;
  s.limit_timer = env_.after(remaining, [this, id] {
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    it->second.limit_timer = 0;
    env_.log(ev::SessionTimeout{.session = id, .corr = it->second.corr});
    terminate(it->second, nullptr, Status::ErrTimeout);
  });
}

Status Controller::terminate(Session& s, const Origin* answer_to, Status reason) {
  if (answer_to) s.terminate_answers.push_back(*answer_to);
  if (s.terminating) return Status::Success;  // already on its way out; answered when reclaimed
  s.terminating = true;
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  env_.log(ev::SessionTerminate{.session = s.id, .corr = s.corr, .reason = reason});
  if (s.live_jobs.empty()) {
    reclaim(s);
    return Status::Success;
  }
  const auto live = s.live_jobs;  // job_ended() edits the list
  for (const auto& nspace : live) {
    auto it = jobs_.find(nspace);
    if (it == jobs_.end()) continue;
    Job& job = it->second;
    job.status = reason;
    if (job.state == JobState::Fenced) {
      std::erase(fenced_, nspace);
      job_ended(job);
      continue;
    }
    set_stopped(job, false, false);  // stopped processes are continued first, then killed
    for (const auto& [n, procs] : job.placement) env_.send(Address::daemon(n), KillProcs{nspace, reason});
  }
  return Status::Success;
}

Status Controller::stop_jobs(Session& s, const std::vector<std::string>& named, bool preempt, bool stop) {
  // PAUSE/RESUME act on every job; PREEMPT/RESTORE on the named ones (all if none named).
  // Preemption suspends and keeps the resources: without checkpointing, RESTORE could not
  // be honoured otherwise (the deliberate deviation of FLOW.md §4).
  for (const auto& ns : named)
    if (std::find(s.live_jobs.begin(), s.live_jobs.end(), ns) == s.live_jobs.end()) return Status::ErrNotFound;
  for (const auto& ns : s.live_jobs) {
    if (!named.empty() && std::find(named.begin(), named.end(), ns) == named.end()) continue;
    Job& job = jobs_.at(ns);
    if (preempt)
      set_stopped(job, job.paused, stop);
    else
      set_stopped(job, stop, job.preempted);
  }
  return Status::Success;
}

void Controller::set_stopped(Job& job, bool paused, bool preempted) {
  const bool was = job.paused || job.preempted;
  job.paused = paused;
  job.preempted = preempted;
  const bool now = paused || preempted;
  // A job is never signalled twice for the same state.
  if (was == now || job.state == JobState::Fenced || job.state == JobState::Ended) return;
  if (now)
    env_.log(ev::JobSuspend{.nspace = job.nspace, .session = job.session, .paused = paused, .preempted = preempted});
  else
    env_.log(ev::JobContinue{.nspace = job.nspace, .session = job.session, .paused = paused, .preempted = preempted});
  for (const auto& [n, procs] : job.placement)
    env_.send(Address::daemon(n), SignalProcs{job.nspace, now ? kSigStop : kSigCont});
}

Status Controller::signal_jobs(Session& s, const std::vector<std::string>& named, int signal) {
  if (signal <= 0 || signal > 64) return Status::ErrBadParam;
  std::vector<std::string> doomed;
  for (const auto& ns : named)
    if (std::find(s.live_jobs.begin(), s.live_jobs.end(), ns) == s.live_jobs.end()) return Status::ErrNotFound;
  for (const auto& ns : s.live_jobs) {
    if (!named.empty() && std::find(named.begin(), named.end(), ns) == named.end()) continue;
    const Job& job = jobs_.at(ns);
    env_.log(ev::JobSignal{.nspace = ns, .session = s.id, .signal = signal});
    if (job.state == JobState::Fenced) {
      // Its processes do not exist yet: a terminating signal ends it before it launches,
      // any other has nobody to reach.
      if (signal == kSigHup || signal == kSigInt || signal == kSigKill || signal == kSigTerm) doomed.push_back(ns);
      continue;
    }
    for (const auto& [n, procs] : job.placement) env_.send(Address::daemon(n), SignalProcs{ns, signal});
  }
  for (const auto& ns : doomed) {
    std::erase(fenced_, ns);
    Job& job = jobs_.at(ns);
    job.status = Status::ErrJobAbortedBySig;
    job_ended(job);  // may reclaim the session: nothing of `s` is used after this loop
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
        if (same != s.nodes.end())
          same->second += k;
        else {
          s.nodes.emplace_back(n, k);
          nodes_[n].sessions.push_back(s.id);
        }
        log_node(n);
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
  if (auto inh = d.get_uint(key::ALLOC_INHERITANCE);
      inh && *inh >= 1 && *inh <= 4 && static_cast<Inheritance>(*inh) != s.inheritance) {
    s.inheritance = static_cast<Inheritance>(*inh);
    changed = true;
  }
  if (!changed) return Status::ErrBadParam;  // an extend that changes nothing is an error
  env_.log(ev::SessionExtend{.session = s.id, .corr = s.corr, .time_limit = s.time_limit, .num_nodes = s.nodes.size()});
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
    log_node(n);
  }
  env_.log(ev::SessionReclaimed{.session = s.id,
                                .alloc = s.alloc_id,
                                .corr = s.corr,
                                .nodes_to = keep_daemons ? "dvm-pool" : "scheduler",
                                .num_jobs = s.ended_jobs.size()});
  const std::uint32_t id = s.id;
  // An instantiation still waiting for its launch is answered with how its job ended.
  Status unlaunched = Status::ErrJobKilledByCmd;
  for (const auto& item : s.ended_jobs.items)
    if (const auto* st = std::get<InfoList>(item.value).get<Status>(key::JOB_TERM_STATUS);
        st && *st != Status::Success) {
      unlaunched = *st;
      break;
    }
  if (s.by_scheduler) {
    InfoList d;
    d.add(key::SESSION_COMPLETE, true).add(key::SESSION_ID, s.id).add(key::ALLOC_ID, s.alloc_id);
    for (auto& item : s.ended_jobs.items) d.items.push_back(std::move(item));
    SessionCtrlRequest complete{next_id_++, s.id, std::move(d), kControllerProc, s.corr};
    env_.log(ev::SessionComplete{.session = s.id, .alloc = s.alloc_id, .corr = s.corr});
    if (scheduler_attached_)
      env_.send(Address::scheduler(), std::move(complete));
    else
      held_completes_.push_back(std::move(complete));
  }
  for (const auto& origin : s.terminate_answers) answer(origin, Status::Success);
  if (s.instantiate_answer) answer(*s.instantiate_answer, unlaunched);
  if (auto pending = standalone_answers_.find(id); pending != standalone_answers_.end()) {
    const Origin to = pending->second.origin;
    standalone_answers_.erase(pending);
    reply_alloc(to, unlaunched, {});
  }
  sessions_.erase(id);
  // Children end with their parent unless separated (FLOW.md §4).
  end_dependents("", id, Status::ErrJobKilledByCmd);
}

void Controller::end_dependents(const std::string& owner_nspace, std::uint32_t parent, Status reason) {
  std::vector<std::uint32_t> doomed;
  for (const auto& [sid, session] : sessions_) {
    const bool child = parent != 0 && session.parent == parent && !session.child_sep && session.sep != true;
    const bool tied = !owner_nspace.empty() && session.owner.nspace == owner_nspace && session.sep == false;
    if ((child || tied) && !session.terminating) doomed.push_back(sid);
  }
  for (std::uint32_t sid : doomed) {
    auto it = sessions_.find(sid);
    if (it == sessions_.end()) continue;
    env_.log(ev::SessionDependentEnd{.session = sid, .parent = parent, .owner_nspace = owner_nspace});
    terminate(it->second, nullptr, reason);
  }
}

void Controller::answer(const Origin& origin, Status status, InfoList info) {
  if (origin.address == Address::controller()) return;  // the RM's own decision (standalone)
  env_.log(ev::SessionCtrlAnswer{.corr = origin.corr, .to = env_.name_of(origin.address), .status = status});
  env_.send(origin.address, SessionCtrlResponse{origin.id, status, std::move(info), origin.corr});
}

// ---------------------------------------------------------------- PMIX_ALLOC_ACTIVATE (FLOW.md §5)

Status Controller::activate(const InfoList& info, const Proc& requestor, Address notify, const std::string& corr,
                            std::vector<NodeId>& nodes) {
  // Daemons on nodes the requestor already holds: nothing is added to the allocation and no
  // slot count changes, so no scheduler is asked, even where it owns the allocation.
  const auto* host = info.get<std::string>(key::HOST);
  const auto* hostfile = info.get<std::string>(key::HOSTFILE);
  if (!host && !hostfile) return Status::ErrBadParam;
  // What the requestor holds: the named allocation, else the DVM's own allocation.
  std::vector<std::string> allocated;
  std::string alloc_id, req_id;
  if (const auto* a = info.get<std::string>(key::ALLOC_ID)) {
    auto it = std::find_if(sessions_.begin(), sessions_.end(), [&](const auto& e) { return e.second.alloc_id == *a; });
    if (it == sessions_.end()) return Status::ErrNotFound;
    if (it->second.owner.nspace != requestor.nspace && requestor.nspace != kControllerProc.nspace)
      return Status::ErrNoPermissions;
    for (const auto& [n, k] : it->second.nodes) allocated.push_back(cluster_.node(n).name);
    alloc_id = *a;
  } else {
    allocated = cluster_.schedulable_names();
  }
  if (const auto* r = info.get<std::string>(key::ALLOC_REQ_ID)) req_id = *r;
  std::vector<std::string> chosen;
  try {
    HostSpec spec;
    if (host) spec = parse_host_list(*host, HostUse::Activate, "PMIX_HOST");
    if (hostfile) merge_host_specs(spec, parse_hostfile(*hostfile, HostUse::Activate));
    chosen = resolve_hosts(spec, allocated, "PMIX_HOST");
  } catch (const InputError& e) {
    env_.log(ev::ActivateRefused{.corr = corr, .detail = e.detail()});
    return Status::ErrBadParam;  // `:N`, `+e`, a node outside the allocation, a bad file
  }
  std::vector<std::pair<NodeId, std::uint32_t>> to_start;
  for (const auto& name : chosen) {
    const NodeId n = *cluster_.find(name);
    nodes.push_back(n);
    // Already in the DVM is already satisfied, not an error (nor is +all with nothing left).
    if (nodes_[n].daemon != DaemonState::Up && nodes_[n].daemon != DaemonState::Starting) to_start.emplace_back(n, 0);
  }
  env_.log(ev::Activate{.corr = corr, .num_nodes = nodes.size(), .num_starting = to_start.size(), .alloc = alloc_id});
  // Answered on grant; the daemons are reported by PMIX_DVM_IS_READY to whoever asked.
  grow_dvm(to_start, alloc_id, corr, req_id, notify);
  return Status::Success;
}

// ---------------------------------------------------------------- PMIx_Spawn (FLOW.md §7)

void Controller::on_spawn(Address from, SpawnRequest&& req) {
  const std::uint64_t key = next_id_++;
  Spawn& spawn =
      spawns_.emplace(key, Spawn{Origin{from, req.id, req.corr}, std::move(req), {}, 0, Status::Success}).first->second;
  const InfoList& job_info = spawn.request.job_info;
  if (spawn.request.apps.empty()) return finish_spawn(key, Status::ErrBadParam, {});
  const auto* alloc = job_info.get<InfoList>(key::SPAWN_ALLOC);
  if (!alloc) {
    // No allocation carried: into a session the caller names, or the DVM's general pool.
    std::vector<std::pair<NodeId, std::uint32_t>> slots;
    std::uint32_t session = 0;
    if (auto sid = job_info.get_uint(key::SESSION_ID)) {
      auto it = sessions_.find(static_cast<std::uint32_t>(*sid));
      if (it == sessions_.end()) return finish_spawn(key, Status::ErrNotFound, {});
      if (it->second.owner.nspace != spawn.request.caller.nspace)
        return finish_spawn(key, Status::ErrNoPermissions, {});
      // Only what the session's running jobs leave free: a spawn never oversubscribes.
      for (const auto& [n, k] : it->second.nodes) {
        std::uint32_t used = 0;
        for (const auto& ns : it->second.live_jobs)
          for (const auto& [jn, procs] : jobs_.at(ns).placement)
            if (jn == n) used += procs;
        if (used < k) slots.emplace_back(n, k - used);
      }
      session = it->first;
    } else {
      for (NodeId n = 0; n < cluster_.size(); ++n)  // withheld nodes are only for their session's jobs
        if (cluster_.node(n).schedulable && nodes_[n].daemon == DaemonState::Up && nodes_[n].sessions.empty() &&
            nodes_[n].procs < cluster_.node(n).slots)
          slots.emplace_back(n, cluster_.node(n).slots - nodes_[n].procs);
    }
    return launch_spawn(key, std::move(slots), session);
  }
  // The allocation first, exactly as the standalone request would be served.
  const auto* directive = alloc->get<Directive>(key::ALLOC_REQ_DIRECTIVE);
  if (!directive) return finish_spawn(key, Status::ErrBadParam, {});
  AllocRequest request{key, *directive, *alloc, spawn.request.caller, spawn.request.corr};
  request.info.erase(key::ALLOC_REQ_DIRECTIVE);
  env_.log(ev::SpawnAlloc{.corr = spawn.request.corr, .directive = directive_name(*directive)});
  const Origin self{Address::controller(), key, spawn.request.corr};
  if (*directive == Directive::Activate) {
    std::vector<NodeId> nodes;
    const Status st = activate(request.info, request.caller, spawn.origin.address, request.corr, nodes);
    if (st != Status::Success) return finish_spawn(key, Status::ErrJobAllocFailed, {});
    std::vector<std::pair<NodeId, std::uint32_t>> slots;
    for (NodeId n : nodes) slots.emplace_back(n, cluster_.node(n).slots);
    return launch_spawn(key, std::move(slots), 0);
  }
  if (!scheduler_attached_ && config_.no_scheduler == NoSchedulerMode::Serve)
    return serve_standalone(self, std::move(request));
  forward_to_scheduler(Address::controller(), std::move(request));
}

void Controller::on_spawn_allocated(std::uint64_t key, Status status, const InfoList& info) {
  auto it = spawns_.find(key);
  if (it == spawns_.end()) return;
  Spawn& spawn = it->second;
  if (!spawn.alloc_id.empty()) {
    // The answer to our RELEASE after a failed launch: only now does the spawn fail.
    return finish_spawn(key, spawn.launch_error, {});
  }
  if (status != Status::Success) {
    env_.log(ev::SpawnAllocRefused{.corr = spawn.request.corr, .status = status});
    return finish_spawn(key, Status::ErrJobAllocFailed, {});  // nothing is launched
  }
  const auto* alloc_id = info.get<std::string>(key::ALLOC_ID);
  auto session = std::find_if(sessions_.begin(), sessions_.end(),
                              [&](const auto& e) { return alloc_id && e.second.alloc_id == *alloc_id; });
  if (session == sessions_.end()) return finish_spawn(key, Status::ErrJobAllocFailed, {});
  spawn.alloc_id = *alloc_id;
  spawn.session = session->first;
  launch_spawn(key, session->second.nodes, session->first);
}

void Controller::launch_spawn(std::uint64_t key, std::vector<std::pair<NodeId, std::uint32_t>> slots,
                              std::uint32_t session) {
  Spawn& spawn = spawns_.at(key);
  Job job;
  job.session = session;
  job.apps = spawn.request.apps;
  job.corr = spawn.request.corr;
  job.spawn = key;
  if (session != 0) {
    Session& s = sessions_.at(session);
    job.nspace = "job-" + std::to_string(session) + "." + std::to_string(++s.jobs_created);
  } else {
    job.nspace = "job-dvm." + std::to_string(++pool_jobs_);
  }
  // Mapped only onto what it was given, never onto anything else the DVM holds.
  if (!map_job(job, slots)) {
    spawn.launch_error = Status::ErrOutOfResource;
    if (spawn.alloc_id.empty()) return finish_spawn(key, Status::ErrOutOfResource, {});
    InfoList release;
    release.add(key::ALLOC_ID, spawn.alloc_id);
    return forward_to_scheduler(Address::controller(), AllocRequest{key, Directive::Release, std::move(release),
                                                                    spawn.request.caller, spawn.request.corr});
  }
  if (session != 0) sessions_.at(session).live_jobs.push_back(job.nspace);
  env_.log(ev::SpawnLaunch{.corr = job.corr, .nspace = job.nspace, .session = session});
  auto [it, ok] = jobs_.emplace(job.nspace, std::move(job));
  // Nodes whose daemon is already starting belong to a change under way; only the others
  // need one of their own.
  bool growing = false;
  std::vector<std::pair<NodeId, std::uint32_t>> to_start;
  for (const auto& [n, procs] : it->second.placement) {
    growing = growing || nodes_[n].daemon != DaemonState::Up;
    if (nodes_[n].daemon == DaemonState::None || nodes_[n].daemon == DaemonState::Failed) to_start.emplace_back(n, 0);
  }
  if (!to_start.empty()) grow_dvm(to_start, session ? sessions_.at(session).alloc_id : "", it->second.corr, "");
  start_or_fence(it->second, growing);
}

void Controller::finish_spawn(std::uint64_t key, Status status, const std::string& nspace) {
  auto it = spawns_.find(key);
  if (it == spawns_.end()) return;
  const Spawn spawn = std::move(it->second);
  spawns_.erase(it);
  InfoList info;
  if (!spawn.alloc_id.empty() && status == Status::Success)
    info.add(key::ALLOC_ID, spawn.alloc_id).add(key::SESSION_ID, spawn.session);
  env_.log(ev::SpawnAnswer{
      .corr = spawn.origin.corr, .to = env_.name_of(spawn.origin.address), .status = status, .nspace = nspace});
  env_.send(spawn.origin.address, SpawnResponse{spawn.origin.id, status, nspace, std::move(info), spawn.origin.corr});
}

// ---------------------------------------------------------------- DVM and jobs (FLOW.md §6)

bool Controller::grow_dvm(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes, const std::string& alloc_id,
                          const std::string& corr, const std::string& req_id, Address notify) {
  DvmChange change;
  change.corr = corr;
  if (!alloc_id.empty()) change.alloc_ids.push_back(alloc_id);
  if (!req_id.empty()) change.req_ids.push_back(req_id);
  if (notify != Address::controller()) change.notify.push_back(notify);
  for (const auto& [n, k] : nodes) {
    if (nodes_[n].daemon == DaemonState::Up) continue;
    if (nodes_[n].daemon != DaemonState::Starting) {
      nodes_[n].daemon = DaemonState::Starting;
      env_.start_daemon(n);
      log_node(n);
    }
    change.pending.push_back(n);
  }
  if (change.pending.empty()) {
    // Nothing to start: the change is complete at once, and still reported, after the answer
    // that granted it (this handler sends that answer before any timer fires).
    if (!change.notify.empty()) {
      env_.after(0, [this, change = std::move(change)] {
        InfoList info;
        for (const auto& a : change.alloc_ids) info.add(key::ALLOC_ID, a);
        for (const auto& r : change.req_ids) info.add(key::ALLOC_REQ_ID, r);
        env_.log(ev::DvmReady{.corr = change.corr, .code = Status::DvmIsReady, .info = info});
        for (Address to : change.notify) env_.send(to, Notification{Status::DvmIsReady, info, change.corr});
      });
    }
    return false;
  }
  env_.log(ev::DvmGrow{.corr = corr, .num_daemons = change.pending.size(), .alloc = alloc_id});
  changes_.push_back(std::move(change));
  return true;
}

void Controller::on_daemon_ready(NodeId node) {
  if (node >= nodes_.size()) return;
  nodes_[node].daemon = DaemonState::Up;
  log_node(node);
  for (auto& c : changes_) std::erase(c.pending, node);
  finish_changes();
}

void Controller::on_daemon_failed(NodeId node) {
  if (node >= nodes_.size()) return;
  nodes_[node].daemon = DaemonState::Failed;
  env_.log(ev::DaemonFailed{.node = cluster_.node(node).name});
  log_node(node);
  for (auto& c : changes_)
    if (std::erase(c.pending, node)) c.failed = true;
  finish_changes();
}

void Controller::on_node_failed(NodeId node) {
  // A node that dies takes its daemon and its processes with it: every job with ranks there
  // is aborted, and the scheduler is told the node is down (PMIX_EVENT_NODE_DOWN).
  if (node >= nodes_.size() || node == Cluster::kHead || nodes_[node].daemon == DaemonState::Failed) return;
  const bool was_starting = nodes_[node].daemon == DaemonState::Starting;
  if (was_starting) return on_daemon_failed(node);
  nodes_[node].daemon = DaemonState::Failed;
  nodes_[node].procs = 0;
  InfoList info;
  info.add(key::HOSTNAME, cluster_.node(node).name);
  env_.log(ev::NodeDown{.node = cluster_.node(node).name, .code = Status::EventNodeDown});
  log_node(node);
  if (scheduler_attached_) env_.send(Address::scheduler(), Notification{Status::EventNodeDown, info, {}});
  std::vector<std::string> hit;
  for (const auto& [ns, job] : jobs_)
    for (const auto& [n, procs] : job.placement)
      if (n == node && job.state != JobState::Ended) hit.push_back(ns);
  std::sort(hit.begin(), hit.end());
  for (const auto& ns : hit) {
    auto it = jobs_.find(ns);
    if (it == jobs_.end()) continue;
    Job& job = it->second;
    job.status = Status::ErrJobAbortedBySysEvent;
    for (const auto& [n, procs] : job.placement)
      if (n != node) env_.send(Address::daemon(n), KillProcs{ns, Status::ErrJobAbortedBySysEvent});
    if (job.state == JobState::Fenced) {
      std::erase(fenced_, ns);
      job_ended(job);
    } else {
      on_procs_ended(ProcsEnded{ns, node, Status::ErrJobAbortedBySysEvent, 0});
    }
  }
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
    env_.log(ev::DvmReady{.corr = it->corr, .code = code, .info = info});
    for (Address to : it->notify) env_.send(to, Notification{code, info, it->corr});
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
  env_.log(ev::JobLaunch{
      .nspace = job.nspace, .session = job.session, .corr = job.corr, .num_daemons = job.placement.size()});
  // Each daemon runs its share; a daemon hosting ranks of several apps runs them together.
  std::uint32_t rank = 0;
  std::vector<NodeId> unreachable;
  for (const auto& [n, procs] : job.placement) {
    App local = job.apps.front();
    for (const auto& app : job.apps) {
      local.runtime_s = std::max(local.simulated_runtime(), app.simulated_runtime());
      if (local.exit_code == 0) local.exit_code = app.exit_code;
      local.fail_launch = local.fail_launch || app.fail_launch;
    }
    if (nodes_[n].daemon != DaemonState::Up) {
      unreachable.push_back(n);
    } else {
      env_.send(Address::daemon(n), LaunchProcs{job.nspace, job.session, std::move(local), procs, rank, job.corr});
      // Paused or preempted while it waited behind the fence: it starts stopped.
      if (job.paused || job.preempted) env_.send(Address::daemon(n), SignalProcs{job.nspace, kSigStop});
    }
    rank += procs;
  }
  // Ranks whose daemon never came up cannot start; the job may end here, so it is looked up
  // again rather than held by reference.
  const std::string nspace = job.nspace;
  for (NodeId n : unreachable) on_procs_started(ProcsStarted{nspace, n, Status::ErrJobFailedToLaunch});
}

void Controller::on_procs_started(const ProcsStarted& m) {
  auto it = jobs_.find(m.nspace);
  if (it == jobs_.end()) return;
  Job& job = it->second;
  if (m.status != Status::Success) {
    // A launch that fails anywhere fails the job: the ranks that did start are killed.
    env_.log(ev::JobLaunchFailed{.nspace = job.nspace, .node = cluster_.node(m.node).name, .status = m.status});
    if (job.status == Status::Success) {
      job.status = m.status;
      for (const auto& [n, procs] : job.placement)
        if (n != m.node && nodes_[n].daemon == DaemonState::Up)
          env_.send(Address::daemon(n), KillProcs{job.nspace, m.status});
    }
    return on_procs_ended(ProcsEnded{m.nspace, m.node, m.status, 0});
  }
  for (const auto& [n, procs] : job.placement)
    if (n == m.node) nodes_[n].procs += procs;
  job.running_on.insert(m.node);
  log_node(m.node);
  if (++job.started < job.placement.size() || job.state != JobState::Launching || job.status != Status::Success) return;
  job.state = JobState::Running;
  if (auto owner = sessions_.find(job.session);
      owner != sessions_.end() && owner->second.has_apps && !owner->second.clock_started) {
    owner->second.clock_started = true;
    owner->second.started = env_.now();
    arm_limit(owner->second);
  }
  env_.log(ev::JobStart{.nspace = job.nspace, .session = job.session, .corr = job.corr, .code = Status::EventJobStart});
  if (job.spawn) {
    // A job started for an allocation it brought (PMIX_SPAWN_ALLOC): the session is its own
    // and ends with it. Until it started, a failed launch hands the allocation back instead.
    if (auto sp = spawns_.find(*job.spawn); sp != spawns_.end() && !sp->second.alloc_id.empty())
      if (auto s = sessions_.find(job.session); s != sessions_.end()) s->second.has_apps = true;
    finish_spawn(*job.spawn, Status::Success, job.nspace);
  }
  job.spawn.reset();
  if (auto pending = standalone_answers_.find(job.session); pending != standalone_answers_.end()) {
    StandaloneAnswer a = std::move(pending->second);
    standalone_answers_.erase(pending);
    a.info.add(key::NSPACE, job.nspace);
    reply_alloc(a.origin, Status::Success, std::move(a.info));
  }
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
  // Only ranks that really started held slots there (a dead node holds none any more).
  if (job.running_on.erase(m.node) && nodes_[m.node].daemon != DaemonState::Failed)
    for (const auto& [n, procs] : job.placement)
      if (n == m.node) nodes_[n].procs -= std::min(nodes_[n].procs, procs);
  if (m.node < nodes_.size()) log_node(m.node);
  // The job's status is the first failure any of its daemons reports.
  if (job.status == Status::Success && m.status != Status::Success) job.status = m.status;
  if (++job.ended < job.placement.size()) return;
  job_ended(job);
}

void Controller::job_ended(Job& job) {
  job.state = JobState::Ended;
  env_.log(ev::JobEnd{.nspace = job.nspace,
                      .session = job.session,
                      .corr = job.corr,
                      .status = job.status,
                      .code = Status::EventJobEnd});
  const std::string nspace = job.nspace;
  const std::uint32_t session_id = job.session;
  const Status status = job.status;
  const std::optional<std::uint64_t> spawn = job.spawn;
  InfoList record;
  record.add(key::NSPACE, nspace).add(key::JOB_TERM_STATUS, status);
  jobs_.erase(nspace);
  if (spawn) {
    // The launch failed after its allocation was granted: hand the allocation back (RELEASE)
    // before the spawn returns its own error, so nothing stays held for no job (FLOW.md §7).
    Spawn& sp = spawns_.at(*spawn);
    sp.launch_error = status == Status::Success ? Status::ErrJobFailedToLaunch : status;
    if (!sp.alloc_id.empty()) {
      env_.log(ev::SpawnRelease{.corr = sp.request.corr, .alloc = sp.alloc_id});
      InfoList release;
      release.add(key::ALLOC_ID, sp.alloc_id);
      AllocRequest req{*spawn, Directive::Release, std::move(release), sp.request.caller, sp.request.corr};
      if (!scheduler_attached_ && config_.no_scheduler == NoSchedulerMode::Serve)
        serve_standalone(Origin{Address::controller(), *spawn, sp.request.corr}, std::move(req));
      else
        forward_to_scheduler(Address::controller(), std::move(req));
    } else {
      finish_spawn(*spawn, sp.launch_error, {});
    }
  }
  // Sessions tied to this job (requested from inside it with SEP=false) end with it.
  end_dependents(nspace, 0, Status::ErrJobKilledByCmd);
  auto s = sessions_.find(session_id);
  if (s == sessions_.end()) return;
  Session& session = s->second;
  session.ended_jobs.add(key::JOB_INFO_ARRAY, std::move(record));
  std::erase(session.live_jobs, nspace);
  // With apps, the session is reclaimed when its last job ends (FLOW.md §4).
  if (session.live_jobs.empty() && (session.has_apps || session.terminating)) reclaim(session);
}

void Controller::log_node(NodeId n) {
  if (!env_.wants<ev::Node>()) return;
  const NodeState& st = nodes_[n];
  const char* use = st.procs > 0 ? "busy" : !st.sessions.empty() ? "withheld" : "free";
  std::string sessions = "[";
  for (std::size_t i = 0; i < st.sessions.size(); ++i) sessions += (i ? "," : "") + std::to_string(st.sessions[i]);
  sessions += ']';
  env_.log(ev::Node{
      .node = cluster_.node(n).name, .daemon = daemon_state_name(st.daemon), .use = use, .sessions = sessions});
}

}  // namespace pmixflow
