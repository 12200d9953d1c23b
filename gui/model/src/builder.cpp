#include "builder.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

namespace pmixflow::view {

namespace {

using log::EventKind;
using log::Field;

DaemonState daemon_state(std::string_view s) {
  if (s == "starting") return DaemonState::Starting;
  if (s == "up") return DaemonState::Up;
  if (s == "failed") return DaemonState::Failed;
  return DaemonState::None;
}

NodeUse node_use(std::string_view s) {
  if (s == "withheld") return NodeUse::Withheld;
  if (s == "busy") return NodeUse::Busy;
  return NodeUse::Free;
}

// "[3,5]": how many ids, and the first.
std::pair<std::uint16_t, std::uint32_t> session_ids(std::string_view json) {
  std::uint16_t count = 0;
  std::uint32_t first = kNone;
  for (std::size_t i = 0; i < json.size();) {
    if (json[i] < '0' || json[i] > '9') {
      ++i;
      continue;
    }
    std::uint32_t v = 0;
    const auto [end, ec] = std::from_chars(json.data() + i, json.data() + json.size(), v);
    if (ec == std::errc() && count++ == 0) first = v;
    i = static_cast<std::size_t>(end - json.data());
    if (ec != std::errc()) ++i;
  }
  return {count, first};
}

// "0-7 16-19" -> {0,7},{16,19}
std::vector<std::pair<std::uint32_t, std::uint32_t>> slot_ranges(std::string_view set) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const char* p = set.data();
  const char* end = p + set.size();
  while (p < end) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    std::uint32_t lo = 0;
    auto r = std::from_chars(p, end, lo);
    if (r.ec != std::errc()) break;
    std::uint32_t hi = lo;
    p = r.ptr;
    if (p < end && *p == '-') {
      r = std::from_chars(p + 1, end, hi);
      if (r.ec != std::errc()) break;
      p = r.ptr;
    }
    out.emplace_back(lo, hi);
  }
  return out;
}

// PMIX_SESSION_COMPLETE's jobs, [{"nspace":..,"status":"PMIX_..."}]: success unless one was not.
// PRRTE's PMIX_EVENT_JOB_END is a clean end as much as a kill by order: read as an end.
Status worst_of_reported(std::string_view jobs) {
  const auto list = nlohmann::json::parse(jobs, nullptr, false);
  if (!list.is_array()) return Status::Success;
  for (const auto& j : list) {
    const auto it = j.find("status");
    if (it == j.end() || !it->is_string()) continue;
    const auto s = parse_status(it->get<std::string>());
    if (s && *s != Status::Success && *s != Status::EventJobEnd) return *s;
  }
  return Status::Success;
}

std::string text(const log::EventView& e, Field f) { return std::string(e.str(f).value_or("")); }

}  // namespace

RunModel::Builder::Builder(RunModel& m, RunInfo info) : m_(m), info_(std::move(info)) {
  // The machine's own order first: a node's index is its place in Batsim's numbering.
  for (const auto& name : info_.compute_nodes) node(name);
  m_.total_slots_ = info_.total_slots();
}

std::uint32_t RunModel::Builder::party(std::string_view name) {
  if (const auto it = m_.party_index_.find(name); it != m_.party_index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(m_.parties_.size());
  m_.party_index_.emplace(std::string(name), id);
  m_.parties_.push_back(Party{std::string(name), role_of(name)});
  return id;
}

std::uint32_t RunModel::Builder::node(std::string_view name) {
  if (const auto it = m_.node_index_.find(name); it != m_.node_index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(m_.nodes_.size());
  m_.node_index_.emplace(std::string(name), id);
  m_.nodes_.push_back(NodeRecord{std::string(name), info_.slots_per_node, 0});
  m_.live_.resize(m_.nodes_.size());
  return id;
}

std::uint32_t RunModel::Builder::request(const log::EventView& e) {
  const auto corr = e.str(Field::corr);
  if (!corr || corr->empty()) return kNone;
  if (const auto it = m_.request_index_.find(*corr); it != m_.request_index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(m_.requests_.size());
  m_.request_index_.emplace(std::string(*corr), id);
  m_.requests_.emplace_back();
  m_.requests_.back().corr = std::string(*corr);
  return id;
}

SessionRecord* RunModel::Builder::session(std::uint32_t id) {
  const auto it = m_.session_index_.find(id);
  return it == m_.session_index_.end() ? nullptr : &m_.sessions_[it->second];
}

SessionRecord* RunModel::Builder::session_of_alloc(std::string_view alloc) {
  const auto it = alloc_session_.find(alloc);
  return it == alloc_session_.end() ? nullptr : session(it->second);
}

void RunModel::Builder::op(StateOp o) {
  m_.live_.apply(o, [this](std::uint32_t j) -> const std::vector<std::uint32_t>& { return m_.jobs_[j].nodes; });
  m_.ops_.push_back(o);
}

std::vector<std::uint32_t> RunModel::Builder::nodes_of(std::string_view list, char item_end) {
  std::vector<std::uint32_t> out;
  std::size_t at = 0;
  while (at < list.size()) {
    auto comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    auto item = list.substr(at, comma - at);
    item = item.substr(0, item.find(item_end));
    if (!item.empty()) out.push_back(node(item));
    at = comma + 1;
  }
  return out;
}

void RunModel::Builder::add(const log::EventView& e, std::uint64_t offset, std::uint64_t line,
                            std::optional<std::uint64_t> send_line) {
  const auto index = static_cast<std::uint32_t>(m_.events_.size());
  const auto session_id = e.uint(Field::session);
  EventRow row{e.t,
               offset,
               static_cast<std::uint32_t>(line),
               party(e.who),
               request(e),
               session_id ? static_cast<std::uint32_t>(*session_id) : kNone,
               e.kind,
               row_of_line(send_line)};
  m_.events_.push_back(row);
  m_.time_index_.push_back(m_.time_index_.empty() ? e.t : std::max(m_.time_index_.back(), e.t));
  if (row.request != kNone) m_.requests_[row.request].events.push_back(index);
  switch (e.kind) {
    case EventKind::Send:
    case EventKind::Recv: return on_message(e, index);
    case EventKind::Call:
    case EventKind::Answer: return on_call(e, index);
    case EventKind::Node:
    case EventKind::NodeFail:
    case EventKind::NodeDown: return on_node(e, index);
    case EventKind::SessionInstantiate:
    case EventKind::AllocInstantiated:
    case EventKind::SessionTerminate:
    case EventKind::SessionTimeout:
    case EventKind::SessionDependentEnd:
    case EventKind::SessionReclaimed:
    case EventKind::SessionExtend: return on_session(e);
    case EventKind::JobLaunch:
    case EventKind::JobStart:
    case EventKind::JobSuspend:
    case EventKind::JobContinue:
    case EventKind::JobEnd: return on_job(e, index);
    case EventKind::AllocQueued:
    case EventKind::AllocGrant:
    case EventKind::AllocCancelled:
    case EventKind::AllocDropped:
    case EventKind::AllocRequeued:
    case EventKind::AllocPreempt:
    case EventKind::AllocExtended:
    case EventKind::SessionCompleted: return on_accounting(e);
    default: return;
  }
}

std::uint32_t RunModel::Builder::row_of_line(std::optional<std::uint64_t> line) const {
  if (!line) return kNone;
  const auto& rows = m_.events_;
  const auto it =
      std::lower_bound(rows.begin(), rows.end(), *line, [](const EventRow& r, std::uint64_t l) { return r.line < l; });
  return it != rows.end() && it->line == *line ? static_cast<std::uint32_t>(it - rows.begin()) : kNone;
}

std::uint32_t RunModel::Builder::kind_id(std::string_view msg) {
  if (const auto it = kinds_.find(msg); it != kinds_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(kinds_.size());
  kinds_.emplace(std::string(msg), id);
  return id;
}

void RunModel::Builder::on_message(const log::EventView& e, std::uint32_t index) {
  const bool sent = e.kind == EventKind::Send;
  const auto me = party(e.who);
  const auto peer = party(e.str(sent ? Field::to : Field::from).value_or(""));
  const auto from = sent ? me : peer;
  const auto to = sent ? peer : me;
  const auto kind = e.str(Field::msg).value_or("");
  const auto req = m_.events_[index].request;
  const MessageKey key{from, to, kind_id(kind), req};
  if (sent) {
    unreceived_[key].push_back(static_cast<std::uint32_t>(m_.messages_.size()));
    m_.messages_.push_back(Message{index, kNone, from, to, req, std::string(kind), e.t, std::nullopt});
    if (req != kNone) m_.requests_[req].messages.push_back(static_cast<std::uint32_t>(m_.messages_.size() - 1));
    return;
  }
  const auto it = unreceived_.find(key);
  if (it != unreceived_.end() && !it->second.empty()) {
    auto& msg = m_.messages_[it->second.front()];
    it->second.erase(it->second.begin());
    if (it->second.empty()) unreceived_.erase(it);
    msg.recv = index;
    msg.received_at = e.t;
    return;
  }
  // Received with no send on record (its sender's log was cut): shown as arriving from nowhere.
  m_.messages_.push_back(Message{kNone, index, from, to, req, std::string(kind), e.t, e.t});
  if (req != kNone) m_.requests_[req].messages.push_back(static_cast<std::uint32_t>(m_.messages_.size() - 1));
}

void RunModel::Builder::on_call(const log::EventView& e, std::uint32_t index) {
  const auto req = m_.events_[index].request;
  if (req == kNone) return;
  auto& r = m_.requests_[req];
  if (e.kind == EventKind::Call) {
    r.requestor = party(e.who);
    r.what = text(e, Field::what);
    r.via = text(e, Field::via);
    r.info = std::string(e.json(Field::info).value_or("[]"));
    r.call = index;
    return;
  }
  r.answered = index;
  r.status = e.status(Field::status);
  r.answer = std::string(e.json(Field::info).value_or("[]"));
}

void RunModel::Builder::on_node(const log::EventView& e, std::uint32_t index) {
  const auto n = node(e.str(Field::node).value_or(""));
  if (e.kind != EventKind::Node) return op(StateOp{.kind = StateOp::Kind::NodeDown, .event = index, .target = n});
  const auto [count, first] = session_ids(e.json(Field::sessions).value_or("[]"));
  op(StateOp{.kind = StateOp::Kind::NodeSet,
             .event = index,
             .target = n,
             .daemon = daemon_state(e.str(Field::daemon).value_or("")),
             .use = node_use(e.str(Field::use).value_or("")),
             .sessions = count,
             .session = first});
}

void RunModel::Builder::session_phase(SessionRecord& s, double t, SessionPhase p) {
  if (!s.phases.empty() && s.phases.back().second == p) return;
  if (!s.phases.empty() && s.phases.back().second == SessionPhase::Reclaimed) return;
  s.phases.emplace_back(t, p);
}

void RunModel::Builder::on_session(const log::EventView& e) {
  const auto id = static_cast<std::uint32_t>(e.uint(Field::session).value_or(kNone));
  if (e.kind == EventKind::SessionInstantiate) {
    m_.session_index_[id] = static_cast<std::uint32_t>(m_.sessions_.size());
    SessionRecord s;
    s.id = id;
    s.alloc = text(e, Field::alloc);
    s.owner = text(e, Field::owner);
    s.corr = text(e, Field::corr);
    s.time_limit = e.num(Field::time_limit).value_or(0);
    s.limit_from = e.t;
    s.nodes = nodes_of(e.str(Field::node_list).value_or(""), ':');
    s.event = static_cast<std::uint32_t>(m_.events_.size() - 1);
    s.phases.emplace_back(e.t, SessionPhase::Instantiating);
    if (!s.alloc.empty()) alloc_session_[s.alloc] = id;
    m_.sessions_.push_back(std::move(s));
    return;
  }
  if (e.kind == EventKind::AllocInstantiated) {
    auto* s = session_of_alloc(e.str(Field::alloc).value_or(""));
    if (s && e.status(Field::status) == Status::Success) session_phase(*s, e.t, SessionPhase::Active);
    return;
  }
  auto* s = session(id);
  if (!s) return;
  switch (e.kind) {
    case EventKind::SessionExtend:
      s->time_limit = e.num(Field::time_limit).value_or(s->time_limit);
      s->limit_from = e.t;
      return;
    case EventKind::SessionReclaimed: return session_phase(*s, e.t, SessionPhase::Reclaimed);
    default: return session_phase(*s, e.t, SessionPhase::Terminating);
  }
}

void RunModel::Builder::on_job(const log::EventView& e, std::uint32_t index) {
  const std::string nspace = text(e, Field::nspace);
  if (e.kind == EventKind::JobLaunch) {
    job_index_[nspace] = static_cast<std::uint32_t>(m_.jobs_.size());
    JobRecord j;
    j.nspace = nspace;
    j.session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(kNone));
    j.corr = text(e, Field::corr);
    j.nodes = nodes_of(e.str(Field::rank_map).value_or(""), ':');
    j.launched = e.t;
    j.phases.emplace_back(e.t, JobPhase::Launching);
    if (auto* s = session(j.session)) s->jobs.push_back(static_cast<std::uint32_t>(m_.jobs_.size()));
    m_.jobs_.push_back(std::move(j));
    return op(StateOp{.kind = StateOp::Kind::JobOn, .event = index, .target = job_index_[nspace]});
  }
  const auto it = job_index_.find(nspace);
  if (it == job_index_.end()) return;
  auto& j = m_.jobs_[it->second];
  auto* s = session(j.session);
  using K = StateOp::Kind;
  if (e.kind == EventKind::JobStart) {
    j.started = e.t;
    j.phases.emplace_back(e.t, JobPhase::Running);
    if (s && s->phases.back().second == SessionPhase::Instantiating) session_phase(*s, e.t, SessionPhase::Active);
  } else if (e.kind == EventKind::JobSuspend) {
    j.phases.emplace_back(e.t, JobPhase::Stopped);
    if (s)
      session_phase(*s, e.t, e.flag(Field::preempted).value_or(false) ? SessionPhase::Preempted : SessionPhase::Paused);
    op(StateOp{.kind = K::JobStop, .event = index, .target = it->second});
  } else if (e.kind == EventKind::JobContinue) {
    j.phases.emplace_back(e.t, JobPhase::Running);
    if (s && (s->phases.back().second == SessionPhase::Paused || s->phases.back().second == SessionPhase::Preempted))
      session_phase(*s, e.t, SessionPhase::Active);
    op(StateOp{.kind = K::JobGo, .event = index, .target = it->second});
  } else {
    j.ended = e.t;
    j.status = e.status(Field::status);
    j.phases.emplace_back(e.t, JobPhase::Ended);
    op(StateOp{.kind = K::JobOff, .event = index, .target = it->second});
  }
}

Status RunModel::Builder::worst_job_status(const log::EventView& completed) {
  // How each job ended, from the RM's job.end: the COMPLETE's statuses are PRRTE's
  // conversion, where a job killed to make room reads as one that finished.
  const auto* s = session(static_cast<std::uint32_t>(completed.uint(Field::session).value_or(kNone)));
  bool heard = false;
  if (s)
    for (const std::uint32_t j : s->jobs) {
      const auto& status = m_.jobs_[j].status;
      heard = heard || status.has_value();
      if (status && *status != Status::Success) return *status;
    }
  return heard ? Status::Success : worst_of_reported(completed.json(Field::jobs).value_or("[]"));
}

void RunModel::Builder::step(StepSeries& s, double t, double delta) {
  const double before = s.v.empty() ? 0 : s.v.back();
  if (!s.t.empty() && s.t.back() == t) {
    s.v.back() += delta;
    return;
  }
  s.t.push_back(t);
  s.v.push_back(before + delta);
}

void RunModel::Builder::open_execution(const log::EventView& e, std::string_view alloc, std::string_view resources) {
  Execution x;
  x.request = m_.events_.back().request;
  x.alloc = std::string(alloc);
  x.ranges = slot_ranges(resources);
  x.start = e.t;
  step(m_.used_, e.t, static_cast<double>(x.slot_count()));
  open_execution_[x.alloc] = static_cast<std::uint32_t>(m_.executions_.size());
  m_.executions_.push_back(std::move(x));
}

void RunModel::Builder::close_execution(std::string_view alloc, double t, bool preempted) {
  const auto it = open_execution_.find(alloc);
  if (it == open_execution_.end()) return;
  auto& x = m_.executions_[it->second];
  x.end = t;
  x.preempted = preempted;
  step(m_.used_, t, -static_cast<double>(x.slot_count()));
  open_execution_.erase(it);
}

void RunModel::Builder::on_accounting(const log::EventView& e) {
  const auto alloc = e.str(Field::alloc).value_or("");
  switch (e.kind) {
    case EventKind::AllocQueued:
    case EventKind::AllocRequeued: return step(m_.queued_, e.t, +1);
    case EventKind::AllocCancelled:
    case EventKind::AllocDropped: return step(m_.queued_, e.t, -1);
    case EventKind::AllocGrant:
      step(m_.queued_, e.t, -1);
      return open_execution(e, alloc, e.str(Field::resources).value_or(""));
    case EventKind::AllocExtended:
      close_execution(alloc, e.t, false);
      return open_execution(e, alloc, e.str(Field::resources).value_or(""));
    case EventKind::AllocPreempt: return close_execution(alloc, e.t, true);
    default:  // SessionCompleted: the stretch ends with its jobs' worst status
      if (const auto it = open_execution_.find(alloc); it != open_execution_.end())
        m_.executions_[it->second].status = worst_job_status(e);
      return close_execution(alloc, e.t, false);
  }
}

}  // namespace pmixflow::view
