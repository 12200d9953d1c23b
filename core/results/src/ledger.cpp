#include "pmixflow/results/ledger.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "pmixflow/log/catalogue.hpp"

namespace pmixflow {
namespace {

using log::EventKind;
using log::Field;

std::string text(const log::EventView& e, Field f) { return std::string(e.str(f).value_or("")); }

}  // namespace

RequestAsked read_asked(std::string_view info_json, StringPool& pool) {
  RequestAsked a;
  const auto info = nlohmann::json::parse(info_json, nullptr, false);
  if (!info.is_array()) return a;
  for (const auto& item : info) {
    if (!item.is_array() || item.size() != 2 || !item[0].is_string()) continue;
    const std::string& key = item[0].get_ref<const std::string&>();
    const auto& value = item[1];
    if (key == key::SESSION_APP && value.is_array() && !value.empty() && value[0].is_object() &&
        a.profile == "reservation")
      a.profile = pool(value[0].value("cmd", std::string(a.profile)));
    else if (key == key::ALLOC_NUM_CPUS && value.is_number_unsigned() && a.cpus == 0)
      a.cpus = value.get<std::uint64_t>();
    else if (key == key::ALLOC_NUM_NODES && value.is_number_unsigned() && a.nodes == 0)
      a.nodes = value.get<std::uint64_t>();
    else if (key == key::ALLOC_NODE_LIST && value.is_string() && a.node_list.empty())
      a.node_list = pool(value.get_ref<const std::string&>());
  }
  return a;
}

log::KindSet CallLedger::kinds() { return log::kind_set({EventKind::Call, EventKind::Answer, EventKind::PartyDown}); }

void CallLedger::apply(const log::EventView& e) {
  if (e.kind == EventKind::Call) {
    CallRecord c;
    c.corr = text(e, Field::corr);
    c.requestor = names_(e.who);
    c.what = names_(e.str(Field::what).value_or(""));
    c.via = names_(e.str(Field::via).value_or(""));
    c.directive = names_(e.str(Field::directive).value_or(""));
    const std::string_view info = e.json(Field::info).value_or("[]");
    c.asked = read_asked(info, names_);
    if (detail_) c.detail = std::make_unique<CallRecord::Detail>(CallRecord::Detail{std::string(info), "[]"});
    c.line = e.uint(Field::line).value_or(0);
    c.expect = e.status(Field::expect);
    c.recorded_wait = e.num(Field::recorded_wait);
    c.sent = e.t;
    waiting_[c.requestor].push_back(calls_.size());
    const CallRecord& kept = calls_.emplace_back(std::move(c));
    by_corr_[kept.corr] = calls_.size() - 1;
  } else if (e.kind == EventKind::Answer) {
    const auto it = by_corr_.find(e.str(Field::corr).value_or(""));
    if (it == by_corr_.end()) return;
    CallRecord& c = calls_[it->second];
    if (c.answers++ > 0) return;  // the requestor's library takes the first answer only
    c.answered = e.t;
    c.status = e.status(Field::status).value_or(Status::Error);
    if (c.detail) c.detail->answer_info = std::string(e.json(Field::info).value_or("[]"));
  } else if (e.kind == EventKind::PartyDown) {
    // Whatever it still waited for, nobody will take now.
    const auto it = waiting_.find(e.who);
    if (it == waiting_.end()) return;
    for (std::size_t i : it->second)
      if (!calls_[i].answered && !calls_[i].caller_gone) calls_[i].caller_gone = e.t;
    waiting_.erase(it);
  }
}

const CallRecord* CallLedger::find(std::string_view corr) const {
  const auto it = by_corr_.find(corr);
  return it == by_corr_.end() ? nullptr : &calls_[it->second];
}

std::vector<const CallRecord*> CallLedger::by_requestor() const {
  std::map<std::string_view, std::size_t> first_line;
  for (const auto& c : calls_) {
    auto [it, added] = first_line.emplace(c.requestor, c.line);
    if (!added) it->second = std::min(it->second, c.line);
  }
  std::vector<const CallRecord*> out;
  for (const auto& c : calls_) out.push_back(&c);
  // Stable: each requestor's calls stay in the order they were placed.
  std::stable_sort(out.begin(), out.end(), [&](const CallRecord* a, const CallRecord* b) {
    return std::tie(first_line[a->requestor], a->requestor) < std::tie(first_line[b->requestor], b->requestor);
  });
  return out;
}

log::KindSet AllocationLedger::kinds() {
  return log::kind_set({EventKind::AllocQueued, EventKind::AllocGrant, EventKind::AllocInstantiated,
                        EventKind::AllocCancelled, EventKind::AllocDropped, EventKind::AllocExtended,
                        EventKind::SessionCompleted, EventKind::AllocRequeued, EventKind::AllocStandalone,
                        EventKind::SessionInstantiate, EventKind::JobEnd, EventKind::SessionReclaimed,
                        EventKind::SessionComplete, EventKind::SessionCtrlAnswer, EventKind::SchedulerAttached,
                        EventKind::SchedulerDetached, EventKind::PartyDown});
}

std::size_t AllocationLedger::index_by_corr(std::string_view corr) const {
  const auto it = corr_index_.find(corr);
  return it == corr_index_.end() ? kNone : it->second;
}

std::size_t AllocationLedger::index_by_alloc(std::string_view alloc) const {
  const auto it = alloc_index_.find(alloc);
  return it == alloc_index_.end() ? kNone : it->second;
}

AllocationAccount* AllocationLedger::by_corr(std::string_view corr) {
  const std::size_t i = index_by_corr(corr);
  return i == kNone ? nullptr : &accounts_[i];
}

AllocationAccount* AllocationLedger::by_alloc(std::string_view alloc) {
  const std::size_t i = index_by_alloc(alloc);
  return i == kNone ? nullptr : &accounts_[i];
}

const AllocationAccount* AllocationLedger::find(std::string_view corr) const {
  const std::size_t i = index_by_corr(corr);
  return i == kNone ? nullptr : &accounts_[i];
}

AllocationAccount& AllocationLedger::add(AllocationAccount&& a) {
  const std::size_t i = accounts_.size();
  rm_.emplace_back();
  AllocationAccount& added = accounts_.emplace_back(std::move(a));
  corr_index_[added.corr] = i;
  return added;
}

void AllocationLedger::apply(const log::EventView& e) {
  if (e.who == "scheduler") return scheduler_event(e);
  if (e.who == "controller") return controller_event(e);
}

void AllocationLedger::scheduler_event(const log::EventView& e) {
  switch (e.kind) {
    case EventKind::AllocQueued: {
      AllocationAccount a;
      a.corr = text(e, Field::corr);
      if (detail_) a.requestor = names_(e.str(Field::requestor).value_or(""));
      a.submitted = e.t;
      a.cpus = e.uint(Field::cpus).value_or(0);
      a.time_limit = e.num(Field::time_limit).value_or(0);
      a.priority = e.sint(Field::priority).value_or(0);
      add(std::move(a));
      return;
    }
    case EventKind::AllocGrant: return granted(e);
    case EventKind::AllocInstantiated: return instantiated(e);
    case EventKind::AllocCancelled:
      if (auto* a = by_corr(e.str(Field::corr).value_or(""))) a->status = Status::ErrJobCanceled;
      return;
    case EventKind::AllocDropped:
      if (auto* a = by_corr(e.str(Field::corr).value_or("")))
        a->status = e.status(Field::status).value_or(Status::Error);
      return;
    case EventKind::AllocExtended:
      if (auto* a = by_alloc(e.str(Field::alloc).value_or(""))) {
        if (detail_) a->node_list = text(e, Field::node_list);
        a->resources = text(e, Field::resources);
      }
      return;
    case EventKind::SessionCompleted: return completed(e);
    case EventKind::AllocRequeued: return requeued(e);
    default: return;
  }
}

void AllocationLedger::granted(const log::EventView& e) {
  const std::size_t i = index_by_corr(e.str(Field::corr).value_or(""));
  if (i == kNone) return;
  AllocationAccount* a = &accounts_[i];
  a->alloc_id = text(e, Field::alloc);
  a->session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
  a->started = e.t;
  if (detail_) a->node_list = text(e, Field::node_list);
  a->resources = text(e, Field::resources);
  alloc_index_[a->alloc_id] = i;
}

void AllocationLedger::requeued(const log::EventView& e) {
  const std::size_t i = index_by_alloc(e.str(Field::alloc).value_or(""));
  if (i == kNone) return;
  AllocationAccount* a = &accounts_[i];
  alloc_index_.erase(a->alloc_id);
  ++a->preemptions;
  a->lost_cpu_s += e.num(Field::lost_cpu_s).value_or(0);
  a->started = a->ended = -1;
  a->alloc_id.clear();
  a->session = 0;
  a->node_list.clear();
  a->resources.clear();
  a->jobs.clear();
  a->status = Status::Success;
  // Its next session, if any, is a new one: what the RM said of the last one no longer counts.
  rm_[i] = RmView{};
}

void AllocationLedger::controller_event(const log::EventView& e) {
  // A standalone RM's own allocations (served, instantiated as its own decision, their jobs
  // ended, reclaimed), and what the RM logged of the sessions the scheduler granted.
  switch (e.kind) {
    case EventKind::AllocStandalone: {
      if (e.str(Field::directive) != directive_name(Directive::New)) return;
      AllocationAccount a;
      a.corr = text(e, Field::corr);
      a.standalone = true;
      a.submitted = e.t;
      add(std::move(a));
      return;
    }
    case EventKind::SessionInstantiate:
      return e.str(Field::by) == "controller" ? standalone_instantiated(e) : rm_instantiated(e);
    case EventKind::JobEnd: return job_ended(e);
    case EventKind::SessionReclaimed: {
      const auto it = standalone_sessions_.find(static_cast<std::uint32_t>(e.uint(Field::session).value_or(0)));
      if (it == standalone_sessions_.end()) return;
      accounts_[it->second].ended = e.t;
      standalone_sessions_.erase(it);
      return;
    }
    case EventKind::SessionComplete: return rm_complete(e);
    case EventKind::SessionCtrlAnswer: return rm_refused(e);
    case EventKind::SchedulerAttached: rm_has_scheduler_ = true; return;
    case EventKind::SchedulerDetached: return scheduler_lost();
    case EventKind::PartyDown: return rm_down(e.t);
    default: return;
  }
}

void AllocationLedger::standalone_instantiated(const log::EventView& e) {
  const std::size_t i = index_by_corr(e.str(Field::corr).value_or(""));
  if (i == kNone) return;
  AllocationAccount* a = &accounts_[i];
  if (!a->standalone || a->started >= 0) return;
  a->alloc_id = text(e, Field::alloc);
  a->session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
  a->started = e.t;
  a->node_list = text(e, Field::node_list);
  a->time_limit = e.num(Field::time_limit).value_or(0);
  standalone_sessions_[a->session] = i;
}

void AllocationLedger::job_ended(const log::EventView& e) {
  const auto session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
  std::pair<std::string, Status> job{text(e, Field::nspace), e.status(Field::status).value_or(Status::Error)};
  if (const auto it = standalone_sessions_.find(session); it != standalone_sessions_.end())
    accounts_[it->second].jobs.push_back(std::move(job));
  else if (const auto at = rm_sessions_.find(session); at != rm_sessions_.end())
    rm_[at->second].jobs.push_back(std::move(job));
}

void AllocationLedger::instantiated(const log::EventView& e) {
  const std::size_t i = index_by_alloc(e.str(Field::alloc).value_or(""));
  if (i == kNone) return;
  AllocationAccount* a = &accounts_[i];
  const Status status = e.status(Field::status).value_or(Status::Error);
  // Answered after the session already completed (its launch failed): only a failure counts.
  if (rm_[i].scheduler_ended) {
    if (status != Status::Success) a->status = status;
    return;
  }
  a->status = status;
  if (status != Status::Success) ended_by_scheduler(i, e.t);
}

void AllocationLedger::completed(const log::EventView& e) {
  const std::size_t i = index_by_alloc(e.str(Field::alloc).value_or(""));
  if (i == kNone) return;
  AllocationAccount* a = &accounts_[i];
  ended_by_scheduler(i, e.t);
  // How each job ended, as the RM logged it (job.end), when the log has it: the COMPLETE
  // carries PRRTE's conversion, where a killed job and a finished one are both
  // PMIX_EVENT_JOB_END.
  if (a->jobs.empty()) a->jobs = std::move(rm_[i].jobs);
  if (!a->jobs.empty()) return;
  const auto jobs = nlohmann::json::parse(e.json(Field::jobs).value_or("[]"), nullptr, false);
  if (!jobs.is_array()) return;
  for (const auto& j : jobs) {
    if (!j.is_object()) continue;
    const auto status = parse_status(j.value("status", ""));
    a->jobs.emplace_back(j.value("nspace", ""), status.value_or(Status::Error));
  }
}

void AllocationLedger::ended_by_scheduler(std::size_t i, double t) {
  RmView& rm = rm_[i];
  rm.scheduler_ended = true;
  std::erase(awaiting_, i);
  // A scheduler that heard of the end only after coming back reports when it heard, not when
  // the session ended: the RM's time stands.
  accounts_[i].ended = rm.held && rm.ended >= 0 ? rm.ended : t;
}

void AllocationLedger::rm_instantiated(const log::EventView& e) {
  const std::size_t i = index_by_alloc(e.str(Field::alloc).value_or(""));
  if (i == kNone || accounts_[i].standalone) return;
  rm_[i].session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
  rm_sessions_[rm_[i].session] = i;
}

void AllocationLedger::rm_refused(const log::EventView& e) {
  // The RM refused the scheduler's INSTANTIATE outright (no session was made): the request ran
  // no job, and failed, whether or not the scheduler was still there to log the answer.
  if (e.str(Field::to) != "scheduler" || e.status(Field::status).value_or(Status::Success) == Status::Success) return;
  const std::size_t i = index_by_corr(e.str(Field::corr).value_or(""));
  if (i == kNone) return;
  AllocationAccount* a = &accounts_[i];
  if (a->standalone || a->started < 0) return;
  if (rm_[i].session != 0 || rm_[i].scheduler_ended || rm_[i].ended >= 0) return;
  a->status = e.status(Field::status).value_or(Status::Error);
  rm_ended(i, e.t);
}

void AllocationLedger::rm_complete(const log::EventView& e) {
  const auto it = rm_sessions_.find(static_cast<std::uint32_t>(e.uint(Field::session).value_or(0)));
  if (it == rm_sessions_.end()) return;
  const std::size_t i = it->second;
  rm_sessions_.erase(it);
  rm_ended(i, e.t);
}

void AllocationLedger::rm_ended(std::size_t i, double t) {
  RmView& rm = rm_[i];
  AllocationAccount& a = accounts_[i];
  rm.ended = t;
  if (rm.scheduler_ended) return;
  // Until the scheduler reports it (normally a hop later), the RM's word is the account's.
  a.ended = t;
  if (a.jobs.empty()) a.jobs = std::move(rm.jobs);  // the RM ends a session once: its list is not read again
  if (rm_has_scheduler_)
    awaiting_.push_back(i);
  else
    rm.held = true;  // kept for a scheduler that may come back
}

void AllocationLedger::scheduler_lost() {
  rm_has_scheduler_ = false;
  // Ends the scheduler was told of but had not logged: it went before it could.
  for (std::size_t i : awaiting_) rm_[i].held = true;
  awaiting_.clear();
}

void AllocationLedger::rm_down(double t) {
  // The DVM goes with its controller: every session it still held ends now, its jobs with it.
  for (auto& [session, i] : rm_sessions_) {
    accounts_[i].lost_with_rm = true;
    rm_ended(i, t);
  }
  rm_sessions_.clear();
  for (auto& [session, i] : standalone_sessions_) {
    accounts_[i].lost_with_rm = true;
    accounts_[i].ended = t;
  }
  standalone_sessions_.clear();
}

}  // namespace pmixflow
