#include "pmixflow/roles/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {
namespace {

// PMIX_SESSION_COMPLETE's job statuses as session.completed carries them.
std::string jobs_json(const std::vector<std::pair<std::string, Status>>& jobs) {
  std::string out = "[";
  for (const auto& [nspace, status] : jobs) {
    if (out.size() > 1) out += ',';
    out += "{\"nspace\":";
    json_quote_into(out, nspace);
    out += ",\"status\":";
    json_quote_into(out, status_name(status));
    out += '}';
  }
  return out + "]";
}

}  // namespace

class Scheduler::View final : public SchedulingView {
 public:
  explicit View(const Scheduler& s) : s_(s) {}
  double now() const override { return s_.env_.now(); }
  std::uint64_t total_cpus() const override { return s_.total_; }
  std::uint64_t free_cpus() const override { return s_.free_total_; }
  bool fits_now(const QueuedRequest& r) const override { return s_.fits(Need{r.cpus, r.nodes}); }
  std::span<const QueuedRequest> queue() const override { return s_.queue_view_; }
  std::span<const RunningAllocation> running() const override { return s_.running_view_; }

 private:
  const Scheduler& s_;
};

Scheduler::Scheduler(Env& env, const Cluster& cluster, std::unique_ptr<Policy> policy, SchedulerConfig config)
    : env_(env), cluster_(cluster), policy_(std::move(policy)), config_(config) {
  free_slots_.resize(cluster_.size(), 0);
  down_.resize(cluster_.size(), false);
  for (NodeId n = 0; n < cluster_.size(); ++n)
    if (cluster_.node(n).schedulable) free_slots_[n] = cluster_.node(n).slots;
  total_ = free_total_ = whole_free_slots_ = cluster_.schedulable_slots();
  for (const auto& n : cluster_.nodes()) schedulable_nodes_ += n.schedulable ? 1 : 0;
  whole_free_nodes_ = schedulable_nodes_;
}

Scheduler::~Scheduler() = default;

void Scheduler::start() {
  // A (re)started scheduler has lost the calls that were in flight: their callers were told
  // PMIX_ERR_UNREACH when the connection broke. Allocations it granted are kept, as a real
  // scheduler recovers them from its own state.
  env_.log(ev::SchedulerUp{.policy = policy_->name()});
  for (const auto& q : queue_) {
    records_[q.record].status = Status::ErrUnreach;
    env_.log(ev::AllocDropped{.corr = q.origin.corr,
                              .status = Status::ErrUnreach,
                              .detail = "the scheduler restarted: the requests it had queued are lost"});
  }
  queue_.clear();
  queue_view_.clear();
  outstanding_.clear();
  rm_connected_ = false;
  if (config_.attach_at_start) {
    InfoList info;
    info.add(key::SERVER_SCHEDULER, true);
    env_.send(Address::controller(), ConnectRequest{next_call_++, Proc{"scheduler", 0}, std::move(info)});
  }
}

void Scheduler::handle(Address from, Message&& msg) {
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          on_alloc_request(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          on_session_ctrl(from, std::move(m));
        } else if constexpr (std::is_same_v<T, SessionCtrlResponse>) {
          on_session_ctrl_response(std::move(m));
        } else if constexpr (std::is_same_v<T, ConnectRequest>) {
          // The RM looking for its scheduler at start-up, or a tool attaching to submit.
          const bool rm = from == Address::controller();
          env_.send(from, ConnectResponse{m.id, Status::Success});
          if (rm) {
            rm_connected_ = true;
            env_.log(ev::SchedulerAttached{.how = "rm-connected"});
            schedule();
          }
        } else if constexpr (std::is_same_v<T, ConnectResponse>) {
          if (from == Address::controller() && m.status == Status::Success) {
            rm_connected_ = true;
            env_.log(ev::SchedulerAttached{.how = "scheduler-connected"});
            schedule();
          }
        } else if constexpr (std::is_same_v<T, Unreachable>) {
          if (m.kind == MessageKind::ConnectRequest) {
            env_.log(ev::RmAbsent{.detail = "no controller yet; waiting for it to connect"});
          } else if (m.kind == MessageKind::SessionCtrlRequest) {
            on_peer_lost(m.to);
          }
        } else if constexpr (std::is_same_v<T, PeerLost>) {
          on_peer_lost(m.peer);
        } else if constexpr (std::is_same_v<T, Notification>) {
          if (m.code == Status::EventNodeDown)
            if (const auto* name = m.info.template get<std::string>(key::HOSTNAME)) node_down(*name);
        }
      },
      std::move(msg));
}

void Scheduler::on_alloc_request(Address from, AllocRequest&& req) {
  if (from.kind == PartyKind::Requestor) tools_[from] = req.caller;
  // Relayed by the RM: the real caller is in PMIX_REQUESTOR. Direct from a tool: the caller.
  Proc requestor = req.caller;
  if (const auto* p = req.info.get<Proc>(key::REQUESTOR)) requestor = *p;
  if (env_.wants<ev::AllocDecide>())
    env_.log(ev::AllocDecide{.corr = req.corr,
                             .directive = directive_name(req.directive),
                             .requestor = to_string(requestor),
                             .via = env_.name_of(from)});
  switch (req.directive) {
    case Directive::New: on_new(from, std::move(req), requestor); break;
    case Directive::Extend: on_extend(from, std::move(req), requestor); break;
    case Directive::Release: on_release(from, std::move(req), requestor); break;
    case Directive::ReqCancel: on_cancel(from, std::move(req), requestor); break;
    default: answer(Origin{from, req.id, req.corr}, Status::ErrNotSupported);
  }
}

std::optional<Scheduler::Need> Scheduler::parse_need(const InfoList& info, Status& why) const {
  Need need;
  if (auto n = info.get_uint(key::ALLOC_NUM_NODES)) {
    need.nodes = static_cast<std::uint32_t>(*n);
    for (NodeId id = 0; id < cluster_.size() && need.cpus == 0; ++id)
      if (cluster_.node(id).schedulable) need.cpus = std::uint64_t{cluster_.node(id).slots} * need.nodes;
  } else if (auto c = info.get_uint(key::ALLOC_NUM_CPUS)) {
    need.cpus = *c;
  }
  if (need.cpus == 0 && need.nodes == 0) {
    why = Status::ErrBadParam;
    return std::nullopt;
  }
  return need;
}

void Scheduler::on_new(Address from, AllocRequest&& req, const Proc& requestor) {
  const Origin origin{from, req.id, req.corr};
  Status why = Status::Success;
  auto need = parse_need(req.info, why);
  double limit = 0;
  try {
    limit = read_alloc_time(req.info).value_or(0.0);
  } catch (const InputError&) {
    why = Status::ErrBadParam;
    need.reset();
  }
  if (!need) return answer(origin, why);
  const auto priority = queue_priority(req.info);
  if (!priority) return answer(origin, Status::ErrBadParam);
  if (need->cpus > total_ || need->nodes > schedulable_nodes_)
    return answer(origin, Status::ErrOutOfResource);  // could never be granted: refuse now, not never

  Queued q;
  q.view.key = next_key_++;
  q.view.submit_time = env_.now();
  q.view.cpus = need->cpus;
  q.view.nodes = need->nodes;
  q.view.estimate = limit;
  q.view.preemptible = req.info.flag(key::ALLOC_PREEMPTIBLE);
  q.view.priority = *priority;
  q.origin = origin;
  q.requestor = requestor;
  if (const auto* id = req.info.get<std::string>(key::ALLOC_REQ_ID)) q.req_id = *id;
  q.need = *need;
  q.time_limit = limit;
  for (const auto& item : req.info.items)
    if (item.key == key::SESSION_APP || item.key == key::SESSION_JOB) q.apps_and_job.items.push_back(item);
  if (auto inheritance = req.info.get_uint(key::ALLOC_INHERITANCE))
    q.inheritance = static_cast<std::uint32_t>(*inheritance);
  for (const auto& item : req.info.items)
    if (item.key == key::ALLOC_CHILD_SEP || item.key == key::SESSION_SEP) q.passed_on.items.push_back(item);
  q.record = records_.size();
  AllocationRecord rec;
  rec.corr = req.corr;
  rec.requestor = to_string(requestor);
  rec.submitted = env_.now();
  rec.cpus = need->cpus;
  rec.time_limit = limit;
  rec.priority = *priority;
  records_.push_back(std::move(rec));
  if (env_.wants<ev::AllocQueued>()) {
    ev::AllocQueued e{.corr = req.corr,
                      .requestor = to_string(requestor),
                      .cpus = need->cpus,
                      .num_nodes = need->nodes,
                      .time_limit = limit};
    if (*priority != 0 || q.view.preemptible) {
      e.priority = *priority;
      e.preemptible = q.view.preemptible;
    }
    env_.log(e);
  }
  enqueue(std::move(q));
  schedule();
}

std::optional<int> Scheduler::queue_priority(const InfoList& info) const {
  const auto* queue = info.get<std::string>(key::ALLOC_QUEUE);
  if (!queue) return 0;
  if (auto it = config_.queue_priorities.find(*queue); it != config_.queue_priorities.end()) return it->second;
  return parse_whole<int>(*queue);
}

void Scheduler::enqueue(Queued&& q) {
  // Queue order is submit order: a new request goes last, a requeued one back to its place.
  auto at = std::upper_bound(queue_.begin(), queue_.end(), q.view, [](const QueuedRequest& v, const Queued& e) {
    return v.submit_time != e.view.submit_time ? v.submit_time < e.view.submit_time : v.key < e.view.key;
  });
  queue_view_.insert(queue_view_.begin() + (at - queue_.begin()), q.view);
  queue_.insert(at, std::move(q));
}

void Scheduler::schedule() {
  if (!rm_connected_ || queue_.empty()) return;
  running_view_.clear();
  for (const auto& [id, live] : live_) running_view_.push_back(live.view);
  View view(*this);
  while (auto key = policy_->next(view)) {
    auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Queued& q) { return q.view.key == *key; });
    if (it == queue_.end() || !fits(it->need)) break;  // a policy must only pick what fits now
    Queued q = std::move(*it);
    queue_view_.erase(queue_view_.begin() + (it - queue_.begin()));
    queue_.erase(it);
    grant(std::move(q));
  }
  if (!queue_.empty()) {
    auto victims = policy_->preempt(view);
    if (!victims.empty()) preempt(victims);
  }
}

void Scheduler::preempt(const std::vector<std::uint64_t>& keys) {
  // Taking resources back is a TERMINATE: PREEMPT only suspends and keeps the nodes
  // (FLOW.md section 4). The request is requeued once the RM reports the session complete.
  for (const std::uint64_t key : keys) {
    auto it = std::find_if(live_.begin(), live_.end(), [&](const auto& e) { return e.second.view.key == key; });
    if (it == live_.end() || !it->second.view.preemptible) continue;  // only what the view offered
    Live& live = it->second;
    live.view.preemptible = false;
    live.view.ending = true;
    live.view.expected_end = env_.now();
    const std::string& corr = records_[live.record].corr;
    env_.log(ev::AllocPreempt{.corr = corr, .alloc = it->first, .session = live.session_id, .cpus = live.view.cpus});
    InfoList directives;
    directives.add(key::SESSION_TERMINATE, true);
    call_rm(live.session_id, std::move(directives), corr, Outstanding{CallKind::Preempt, it->first, {}, {}, 0});
  }
}

void Scheduler::grant(Queued&& q) {
  const std::uint32_t session_id = next_session_++;
  const std::string alloc_id = "alloc-" + std::to_string(session_id);
  Live live;
  live.session_id = session_id;
  live.owner = q.requestor;
  live.nodes = take(q.need);
  live.record = q.record;
  // Preemptible only once the RM holds the session: there is nothing to terminate before.
  live.view = RunningAllocation{q.view.key,
                                q.need.cpus,
                                env_.now(),
                                q.time_limit > 0 ? env_.now() + q.time_limit : std::numeric_limits<double>::infinity(),
                                q.view.priority,
                                false,
                                false};
  if (q.view.preemptible) live.requeue = q;  // before its apps move into the instantiation
  running_view_.push_back(live.view);
  const std::string nodes = node_list(live.nodes);
  AllocationRecord& rec = records_[q.record];
  rec.alloc_id = alloc_id;
  rec.session_id = session_id;
  rec.started = env_.now();
  rec.node_list = nodes;
  env_.log(ev::AllocGrant{.corr = q.origin.corr, .alloc = alloc_id, .session = session_id, .node_list = nodes});

  InfoList resources;
  resources.add(key::ALLOC_NODE_LIST, nodes).add(key::ALLOC_ID, alloc_id);
  if (!q.req_id.empty()) resources.add(key::ALLOC_REQ_ID, q.req_id);
  if (q.time_limit > 0) resources.add(key::ALLOC_TIME, format_alloc_time(q.time_limit));
  if (q.inheritance) resources.add(key::ALLOC_INHERITANCE, *q.inheritance);
  InfoList directives;
  directives.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_RESOURCES, std::move(resources));
  directives.add(key::REQUESTOR, q.requestor);  // the session's owner, for the RM's own checks
  for (auto& item : q.apps_and_job.items) directives.items.push_back(std::move(item));
  for (auto& item : q.passed_on.items) directives.items.push_back(std::move(item));
  live_.emplace(alloc_id, std::move(live));
  Outstanding out{CallKind::Instantiate, alloc_id, q.origin, {}, 0};
  // A requeued request was answered with its first session; its later ones are the RM's news.
  out.requeued = q.answered;
  call_rm(session_id, std::move(directives), q.origin.corr, std::move(out));
}

std::uint64_t Scheduler::call_rm(std::uint32_t session_id, InfoList directives, const std::string& corr,
                                 Outstanding out) {
  const std::uint64_t id = next_call_++;
  outstanding_.emplace(id, std::move(out));
  env_.send(Address::controller(),
            SessionCtrlRequest{id, session_id, std::move(directives), Proc{"scheduler", 0}, corr});
  return id;
}

void Scheduler::on_session_ctrl_response(SessionCtrlResponse&& resp) {
  auto it = outstanding_.find(resp.id);
  if (it == outstanding_.end()) return;
  Outstanding out = std::move(it->second);
  outstanding_.erase(it);
  auto live_it = live_.find(out.alloc_id);
  switch (out.kind) {
    case CallKind::Instantiate: {
      // A requeued request's requestor has its answer already: its later sessions are logged.
      env_.log(ev::AllocInstantiated{.corr = out.origin.corr,
                                     .alloc = out.alloc_id,
                                     .status = resp.status,
                                     .requeued = out.requeued ? std::optional<bool>(true) : std::nullopt});
      // A requeued request's requestor has its answer already: its later sessions are logged.
      auto reply = [&](Status status, InfoList info = {}) {
        if (!out.requeued) answer(out.origin, status, std::move(info));
      };
      if (live_it == live_.end()) {
        // Already reclaimed (the RM's COMPLETE came first): the launch failed; say how.
        if (resp.status == Status::Success) return reply(Status::ErrNotFound);
        for (auto& rec : records_)
          if (rec.alloc_id == out.alloc_id) rec.status = resp.status;
        return reply(resp.status);
      }
      Live& live = live_it->second;
      records_[live.record].status = resp.status;
      if (resp.status != Status::Success) {
        give_back(live.nodes);
        records_[live.record].ended = env_.now();
        live_.erase(live_it);
        reply(resp.status);
        return schedule();
      }
      live.instantiated = true;
      live.view.preemptible = live.requeue.has_value();
      InfoList info;
      info.add(key::ALLOC_ID, out.alloc_id).add(key::SESSION_ID, live.session_id);
      info.add(key::ALLOC_NODE_LIST, node_list(live.nodes));
      for (const auto& item : resp.info.items)
        if (item.key == key::NSPACE) info.items.push_back(item);
      reply(Status::Success, std::move(info));
      // Now preemptible, it may be what a waiting request of higher priority needs.
      if (live.requeue && !queue_.empty()) schedule();
      return;
    }
    case CallKind::Terminate: return answer(out.origin, resp.status);
    case CallKind::Preempt:
      // The session is reclaimed and reported complete by the RM; that is where the request
      // is requeued. A session that had already ended is simply not there any more.
      if (resp.status != Status::Success)
        env_.log(ev::AllocPreemptRefused{.alloc = out.alloc_id, .status = resp.status});
      return;
    case CallKind::OnBehalf: {
      auto d = decisions_.find(out.group);
      if (d == decisions_.end()) return;
      if (d->second.status == Status::Success) d->second.status = resp.status;
      if (--d->second.left > 0) return;
      const Decision decision = d->second;
      decisions_.erase(d);
      return answer_ctrl(decision.origin, decision.status);
    }
    case CallKind::Extend: {
      if (live_it == live_.end() || resp.status != Status::Success) {
        give_back(out.added);
        answer(out.origin, resp.status == Status::Success ? Status::ErrNotFound : resp.status);
        return schedule();
      }
      Live& live = live_it->second;
      for (const auto& added : out.added) {
        auto same =
            std::find_if(live.nodes.begin(), live.nodes.end(), [&](const auto& n) { return n.first == added.first; });
        if (same != live.nodes.end())
          same->second += added.second;
        else
          live.nodes.push_back(added);
        live.view.cpus += added.second;
      }
      if (out.new_limit > 0) live.view.expected_end = live.view.start_time + out.new_limit;
      records_[live.record].node_list = node_list(live.nodes);
      if (env_.wants<ev::AllocExtended>())
        env_.log(ev::AllocExtended{.corr = out.origin.corr, .alloc = out.alloc_id, .node_list = node_list(live.nodes)});
      InfoList info;
      info.add(key::ALLOC_ID, out.alloc_id)
          .add(key::SESSION_ID, live.session_id)
          .add(key::ALLOC_NODE_LIST, node_list(live.nodes));
      return answer(out.origin, Status::Success, std::move(info));
    }
  }
}

Scheduler::Live* Scheduler::find_alloc(const InfoList& info, std::string* alloc_id) {
  if (const auto* id = info.get<std::string>(key::ALLOC_ID)) {
    auto it = live_.find(*id);
    if (it == live_.end()) return nullptr;
    *alloc_id = it->first;
    return &it->second;
  }
  if (auto sid = info.get_uint(key::SESSION_ID))
    for (auto& [id, live] : live_)
      if (live.session_id == *sid) {
        *alloc_id = id;
        return &live;
      }
  return nullptr;
}

void Scheduler::on_release(Address from, AllocRequest&& req, const Proc& requestor) {
  const Origin origin{from, req.id, req.corr};
  std::string alloc_id;
  Live* live = find_alloc(req.info, &alloc_id);
  if (!live || !live->instantiated) return answer(origin, Status::ErrNotFound);
  if (live->owner.nspace != requestor.nspace) return answer(origin, Status::ErrNoPermissions);
  if (const auto* list = req.info.get<std::string>(key::ALLOC_NODE_LIST); list && *list != node_list(live->nodes))
    return answer(origin, Status::ErrNotSupported);  // a session cannot shrink; release all of it
  InfoList directives;
  directives.add(key::SESSION_TERMINATE, true);
  call_rm(live->session_id, std::move(directives), req.corr, Outstanding{CallKind::Terminate, alloc_id, origin, {}, 0});
}

void Scheduler::on_extend(Address from, AllocRequest&& req, const Proc& requestor) {
  const Origin origin{from, req.id, req.corr};
  std::string alloc_id;
  Live* live = find_alloc(req.info, &alloc_id);
  if (!live || !live->instantiated) return answer(origin, Status::ErrNotFound);
  if (live->owner.nspace != requestor.nspace) return answer(origin, Status::ErrNoPermissions);
  double more_time = 0;
  try {
    more_time = read_alloc_time(req.info).value_or(0.0);
  } catch (const InputError&) {
    return answer(origin, Status::ErrBadParam);
  }
  Status why = Status::Success;
  auto need = parse_need(req.info, why);
  if (!need && more_time <= 0) return answer(origin, Status::ErrBadParam);  // an extend must change something
  if (need && !fits(*need)) return answer(origin, Status::ErrOutOfResource);
  Outstanding out{CallKind::Extend, alloc_id, origin, {}, 0};
  InfoList directives;
  directives.add(key::SESSION_EXTEND, true);
  if (need) {
    out.added = take(*need);
    directives.add(key::ALLOC_NODE_LIST, node_list(out.added));
  }
  if (more_time > 0) {
    const double current = live->view.expected_end - live->view.start_time;
    out.new_limit = (std::isfinite(current) ? current : 0.0) + more_time;
    directives.add(key::ALLOC_TIME, format_alloc_time(out.new_limit));
  }
  if (env_.wants<ev::AllocExtend>())
    env_.log(ev::AllocExtend{
        .corr = req.corr, .alloc = alloc_id, .node_list = node_list(out.added), .time_limit = out.new_limit});
  call_rm(live->session_id, std::move(directives), req.corr, std::move(out));
}

void Scheduler::on_cancel(Address from, AllocRequest&& req, const Proc& requestor) {
  const Origin origin{from, req.id, req.corr};
  const auto* req_id = req.info.get<std::string>(key::ALLOC_REQ_ID);
  if (!req_id) return answer(origin, Status::ErrBadParam);
  auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Queued& q) {
    return q.req_id == *req_id && q.requestor.nspace == requestor.nspace;
  });
  if (it == queue_.end()) return answer(origin, Status::ErrNotFound);  // unknown, or already granted
  Queued q = std::move(*it);
  queue_view_.erase(queue_view_.begin() + (it - queue_.begin()));
  queue_.erase(it);
  records_[q.record].status = Status::ErrJobCanceled;
  env_.log(ev::AllocCancelled{.corr = q.origin.corr, .by_corr = req.corr});
  answer(q.origin, Status::ErrJobCanceled);
  answer(origin, Status::Success);
  schedule();
}

void Scheduler::on_session_ctrl(Address from, SessionCtrlRequest&& req) {
  // Only the RM reports a session complete; the same directive from anyone else is refused.
  if (req.directives.flag(key::SESSION_COMPLETE)) {
    if (from == Address::controller() && !req.directives.has(key::REQUESTOR)) return on_complete(from, std::move(req));
    return answer_ctrl(Origin{from, req.id, req.corr}, Status::ErrNotSupported);
  }
  decide_session_ctrl(from, std::move(req));
}

void Scheduler::decide_session_ctrl(Address from, SessionCtrlRequest&& req) {
  // A requestor's session control, forwarded by the RM (or sent here directly): the scheduler
  // decides, then orders the RM for each session the requestor owns (FLOW.md §4).
  const Origin origin{from, req.id, req.corr};
  Proc requestor = req.caller;
  if (const auto* p = req.directives.get<Proc>(key::REQUESTOR)) requestor = *p;
  InfoList directives = req.directives;
  directives.erase(key::REQUESTOR);
  if (env_.wants<ev::SessionCtrlDecide>())
    env_.log(ev::SessionCtrlDecide{.corr = req.corr, .session = req.session_id, .requestor = to_string(requestor)});
  // Choosing or changing resources is an allocation request's business, not session control's.
  if (directives.flag(key::SESSION_INSTANTIATE) || directives.has(key::ALLOC_NODE_LIST))
    return answer_ctrl(origin, Status::ErrNotSupported);
  if (!rm_connected_) return answer_ctrl(origin, Status::ErrUnreach);
  std::vector<std::pair<std::string, std::uint32_t>> targets;
  if (req.session_id == kAllSessions) {
    for (const auto& [id, live] : live_)
      if (live.instantiated && live.owner.nspace == requestor.nspace) targets.emplace_back(id, live.session_id);
  } else {
    auto it =
        std::find_if(live_.begin(), live_.end(), [&](const auto& e) { return e.second.session_id == req.session_id; });
    if (it == live_.end()) return answer_ctrl(origin, Status::ErrNotFound);
    if (it->second.owner.nspace != requestor.nspace) return answer_ctrl(origin, Status::ErrNoPermissions);
    targets.emplace_back(it->first, it->second.session_id);
  }
  if (targets.empty()) return answer_ctrl(origin, Status::Success);  // nothing of theirs to act on
  const std::uint64_t group = next_call_++;
  decisions_.emplace(group, Decision{origin, targets.size(), Status::Success});
  for (const auto& [alloc_id, session] : targets) {
    if (auto t = read_alloc_time(directives); t && directives.flag(key::SESSION_EXTEND)) {
      Live& live = live_.at(alloc_id);
      live.view.expected_end = live.view.start_time + *t;  // the policy plans with the new limit
    }
    Outstanding out{CallKind::OnBehalf, alloc_id, origin, {}, 0};
    out.group = group;
    call_rm(session, directives, req.corr, std::move(out));
  }
}

void Scheduler::answer_ctrl(const Origin& origin, Status status) {
  env_.log(ev::SessionCtrlAnswer{.corr = origin.corr, .to = env_.name_of(origin.address), .status = status});
  env_.send(origin.address, SessionCtrlResponse{origin.id, status, {}, origin.corr});
}

void Scheduler::on_complete(Address from, SessionCtrlRequest&& req) {
  std::string alloc_id;
  InfoList lookup;
  if (const auto* id = req.directives.get<std::string>(key::ALLOC_ID)) lookup.add(key::ALLOC_ID, *id);
  lookup.add(key::SESSION_ID, req.session_id);
  Live* live = find_alloc(lookup, &alloc_id);
  if (!live) {
    env_.send(from, SessionCtrlResponse{req.id, Status::ErrNotFound, {}, req.corr});
    return;
  }
  AllocationRecord& rec = records_[live->record];
  rec.ended = env_.now();
  for (const auto& item : req.directives.items) {
    if (item.key != key::JOB_INFO_ARRAY) continue;
    const auto& job = std::get<InfoList>(item.value);
    const auto* ns = job.get<std::string>(key::NSPACE);
    const auto* st = job.get<Status>(key::JOB_TERM_STATUS);
    rec.jobs.emplace_back(ns ? *ns : "", st ? *st : Status::Error);
  }
  if (env_.wants<ev::SessionCompleted>())
    env_.log(ev::SessionCompleted{
        .corr = req.corr, .alloc = alloc_id, .session = req.session_id, .jobs = jobs_json(rec.jobs)});
  give_back(live->nodes);
  const bool all_succeeded =
      std::all_of(rec.jobs.begin(), rec.jobs.end(), [](const auto& j) { return j.second == Status::Success; });
  if (live->view.ending && live->requeue && !(all_succeeded && !rec.jobs.empty())) {
    // Terminated to make room: the work done is lost and the request waits again, in its
    // original place. (A job that finished before the TERMINATE reached it simply completed.)
    Queued again = std::move(*live->requeue);
    again.answered = true;
    const double lost = (rec.ended - rec.started) * static_cast<double>(live->view.cpus);
    ++rec.preemptions;
    rec.lost_cpu_s += lost;
    env_.log(ev::AllocRequeued{.corr = rec.corr, .alloc = alloc_id, .lost_cpu_s = lost});
    rec.started = rec.ended = -1;
    rec.alloc_id.clear();
    rec.session_id = 0;
    rec.node_list.clear();
    rec.jobs.clear();
    rec.status = Status::Success;
    enqueue(std::move(again));
  }
  live_.erase(alloc_id);
  env_.send(from, SessionCtrlResponse{req.id, Status::Success, {}, req.corr});
  schedule();
}

void Scheduler::on_peer_lost(Address peer) {
  if (peer.kind == PartyKind::Requestor) {
    // A tool attached here went away: the RM ends the sessions tied to it (SEP=false).
    auto tool = tools_.find(peer);
    if (tool == tools_.end() || !rm_connected_) return;
    InfoList info;
    info.add(key::PROCID, tool->second);
    tools_.erase(tool);
    env_.send(Address::controller(), Notification{Status::ErrLostConnection, std::move(info), {}});
    return;
  }
  if (peer != Address::controller()) return;
  rm_connected_ = false;
  env_.log(ev::RmLost{});
  // Every call waiting on the RM is answered once, as the kind of call it was.
  // Nobody waits on a preemption's TERMINATE or on a requeued request's new session.
  for (auto& [id, out] : outstanding_)
    if (out.kind != CallKind::OnBehalf && out.kind != CallKind::Preempt && !out.requeued)
      answer(out.origin, Status::ErrUnreach);
  outstanding_.clear();
  for (auto& [group, decision] : decisions_) answer_ctrl(decision.origin, Status::ErrUnreach);
  decisions_.clear();
}

bool Scheduler::fits(const Need& need) const {
  // Counters, not a scan: policies ask this for every queued request on every pass.
  if (need.nodes > 0) return whole_free_nodes_ >= need.nodes;
  if (config_.exclusive_nodes) return whole_free_slots_ >= need.cpus;
  return need.cpus <= free_total_;
}

void Scheduler::use_slots(NodeId n, std::uint32_t slots) {
  if (free_slots_[n] == cluster_.node(n).slots) {
    --whole_free_nodes_;
    whole_free_slots_ -= free_slots_[n];
  }
  free_slots_[n] -= slots;
  free_total_ -= slots;
}

std::vector<std::pair<NodeId, std::uint32_t>> Scheduler::take(const Need& need) {
  // First fit in node order: deterministic, and it packs sessions onto few nodes.
  std::vector<std::pair<NodeId, std::uint32_t>> out;
  const bool whole_nodes = need.nodes > 0 || config_.exclusive_nodes;
  std::uint64_t left = whole_nodes && need.nodes > 0 ? need.nodes : need.cpus;
  for (NodeId n = 0; n < cluster_.size() && left > 0; ++n) {
    if (!cluster_.node(n).schedulable || free_slots_[n] == 0) continue;
    if (whole_nodes) {
      if (free_slots_[n] != cluster_.node(n).slots) continue;
      const std::uint32_t slots = free_slots_[n];
      out.emplace_back(n, slots);
      use_slots(n, slots);
      left -= need.nodes > 0 ? 1 : std::min<std::uint64_t>(left, slots);
    } else {
      const auto slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, free_slots_[n]));
      out.emplace_back(n, slots);
      use_slots(n, slots);
      left -= slots;
    }
  }
  return out;
}

void Scheduler::node_down(const std::string& name) {
  // A dead node leaves the pool for good: what it held is never handed out again.
  auto n = cluster_.find(name);
  if (!n || down_[*n]) return;
  down_[*n] = true;
  if (free_slots_[*n] == cluster_.node(*n).slots && cluster_.node(*n).schedulable) {
    --whole_free_nodes_;
    whole_free_slots_ -= free_slots_[*n];
  }
  free_total_ -= free_slots_[*n];
  if (cluster_.node(*n).schedulable) {
    total_ -= cluster_.node(*n).slots;
    --schedulable_nodes_;
  }
  free_slots_[*n] = 0;
  env_.log(ev::NodeRemoved{.node = name});
  // What the smaller machine can never hold is refused now rather than left to wait forever.
  for (std::size_t i = 0; i < queue_.size();) {
    const Queued& q = queue_[i];
    if (q.need.cpus <= total_ && q.need.nodes <= schedulable_nodes_) {
      ++i;
      continue;
    }
    records_[q.record].status = Status::ErrOutOfResource;
    env_.log(ev::AllocDropped{.corr = q.origin.corr,
                              .status = Status::ErrOutOfResource,
                              .detail = "a node went down: the machine can no longer hold it"});
    answer(q.origin, Status::ErrOutOfResource);
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    queue_view_.erase(queue_view_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  schedule();
}

void Scheduler::give_back(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes) {
  for (const auto& [n, slots] : nodes) {
    if (down_[n]) continue;
    free_slots_[n] += slots;
    free_total_ += slots;
    if (free_slots_[n] == cluster_.node(n).slots) {
      ++whole_free_nodes_;
      whole_free_slots_ += free_slots_[n];
    }
  }
}

std::string Scheduler::node_list(const std::vector<std::pair<NodeId, std::uint32_t>>& nodes) const {
  std::vector<HostEntry> hosts;
  hosts.reserve(nodes.size());
  for (const auto& [n, slots] : nodes) hosts.push_back(HostEntry{cluster_.node(n).name, slots});
  return format_host_list(hosts);
}

void Scheduler::answer(const Origin& origin, Status status, InfoList info) {
  env_.log(ev::AllocAnswer{.corr = origin.corr, .to = env_.name_of(origin.address), .status = status});
  env_.send(origin.address, AllocResponse{origin.id, status, std::move(info), origin.corr});
}

}  // namespace pmixflow
