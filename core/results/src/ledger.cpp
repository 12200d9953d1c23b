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

log::KindSet CallLedger::kinds() { return log::kind_set({EventKind::Call, EventKind::Answer, EventKind::PartyDown}); }

void CallLedger::apply(const log::EventView& e) {
  if (e.kind == EventKind::Call) {
    CallRecord c;
    c.corr = text(e, Field::corr);
    c.requestor = std::string(e.who);
    c.what = text(e, Field::what);
    c.via = text(e, Field::via);
    c.directive = text(e, Field::directive);
    c.info = std::string(e.json(Field::info).value_or("[]"));
    c.line = e.uint(Field::line).value_or(0);
    c.expect = e.status(Field::expect);
    c.recorded_wait = e.num(Field::recorded_wait);
    c.sent = e.t;
    by_corr_[c.corr] = calls_.size();
    waiting_[c.requestor].push_back(calls_.size());
    calls_.push_back(std::move(c));
  } else if (e.kind == EventKind::Answer) {
    const auto it = by_corr_.find(text(e, Field::corr));
    if (it == by_corr_.end()) return;
    CallRecord& c = calls_[it->second];
    if (c.answers++ > 0) return;  // the requestor's library takes the first answer only
    c.answered = e.t;
    c.status = e.status(Field::status).value_or(Status::Error);
    c.answer_info = std::string(e.json(Field::info).value_or("[]"));
  } else if (e.kind == EventKind::PartyDown) {
    // Whatever it still waited for, nobody will take now.
    const auto it = waiting_.find(std::string(e.who));
    if (it == waiting_.end()) return;
    for (std::size_t i : it->second)
      if (!calls_[i].answered && !calls_[i].caller_gone) calls_[i].caller_gone = e.t;
    waiting_.erase(it);
  }
}

const CallRecord* CallLedger::find(std::string_view corr) const {
  const auto it = by_corr_.find(std::string(corr));
  return it == by_corr_.end() ? nullptr : &calls_[it->second];
}

std::vector<const CallRecord*> CallLedger::by_requestor() const {
  std::map<std::string, std::size_t> first_line;
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
                        EventKind::SessionInstantiate, EventKind::JobEnd, EventKind::SessionReclaimed});
}

AllocationAccount* AllocationLedger::by_corr(std::string_view corr) {
  const auto it = corr_index_.find(std::string(corr));
  return it == corr_index_.end() ? nullptr : &accounts_[it->second];
}

AllocationAccount* AllocationLedger::by_alloc(std::string_view alloc) {
  const auto it = alloc_index_.find(std::string(alloc));
  return it == alloc_index_.end() ? nullptr : &accounts_[it->second];
}

const AllocationAccount* AllocationLedger::find(std::string_view corr) const {
  const auto it = corr_index_.find(std::string(corr));
  return it == corr_index_.end() ? nullptr : &accounts_[it->second];
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
      a.requestor = text(e, Field::requestor);
      a.submitted = e.t;
      a.cpus = e.uint(Field::cpus).value_or(0);
      a.time_limit = e.num(Field::time_limit).value_or(0);
      a.priority = e.sint(Field::priority).value_or(0);
      corr_index_[a.corr] = accounts_.size();
      accounts_.push_back(std::move(a));
      return;
    }
    case EventKind::AllocGrant: return granted(e);
    case EventKind::AllocInstantiated: return instantiated(e);
    case EventKind::AllocCancelled:
      if (auto* a = by_corr(text(e, Field::corr))) a->status = Status::ErrJobCanceled;
      return;
    case EventKind::AllocDropped:
      if (auto* a = by_corr(text(e, Field::corr))) a->status = e.status(Field::status).value_or(Status::Error);
      return;
    case EventKind::AllocExtended:
      if (auto* a = by_alloc(text(e, Field::alloc))) {
        a->node_list = text(e, Field::node_list);
        a->resources = text(e, Field::resources);
      }
      return;
    case EventKind::SessionCompleted: return completed(e);
    case EventKind::AllocRequeued: return requeued(e);
    default: return;
  }
}

void AllocationLedger::granted(const log::EventView& e) {
  AllocationAccount* a = by_corr(text(e, Field::corr));
  if (!a) return;
  a->alloc_id = text(e, Field::alloc);
  a->session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
  a->started = e.t;
  a->node_list = text(e, Field::node_list);
  a->resources = text(e, Field::resources);
  alloc_index_[a->alloc_id] = static_cast<std::size_t>(a - accounts_.data());
}

void AllocationLedger::requeued(const log::EventView& e) {
  AllocationAccount* a = by_alloc(text(e, Field::alloc));
  if (!a) return;
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
}

void AllocationLedger::controller_event(const log::EventView& e) {
  // A standalone RM's own allocations: served (alloc.standalone), instantiated as its own
  // decision (session.instantiate by the controller), their jobs ended, reclaimed.
  switch (e.kind) {
    case EventKind::AllocStandalone: {
      if (e.str(Field::directive) != directive_name(Directive::New)) return;
      AllocationAccount a;
      a.corr = text(e, Field::corr);
      a.standalone = true;
      a.submitted = e.t;
      corr_index_[a.corr] = accounts_.size();
      accounts_.push_back(std::move(a));
      return;
    }
    case EventKind::SessionInstantiate: {
      AllocationAccount* a = by_corr(text(e, Field::corr));
      if (!a || !a->standalone || e.str(Field::by) != "controller" || a->started >= 0) return;
      a->alloc_id = text(e, Field::alloc);
      a->session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
      a->started = e.t;
      a->node_list = text(e, Field::node_list);
      a->time_limit = e.num(Field::time_limit).value_or(0);
      standalone_sessions_[a->session] = static_cast<std::size_t>(a - accounts_.data());
      return;
    }
    case EventKind::JobEnd: {
      const auto it = standalone_sessions_.find(static_cast<std::uint32_t>(e.uint(Field::session).value_or(0)));
      if (it != standalone_sessions_.end())
        accounts_[it->second].jobs.emplace_back(text(e, Field::nspace),
                                                e.status(Field::status).value_or(Status::Error));
      return;
    }
    case EventKind::SessionReclaimed: {
      const auto it = standalone_sessions_.find(static_cast<std::uint32_t>(e.uint(Field::session).value_or(0)));
      if (it == standalone_sessions_.end()) return;
      accounts_[it->second].ended = e.t;
      standalone_sessions_.erase(it);
      return;
    }
    default: return;
  }
}

void AllocationLedger::instantiated(const log::EventView& e) {
  AllocationAccount* a = by_alloc(text(e, Field::alloc));
  if (!a) return;
  const Status status = e.status(Field::status).value_or(Status::Error);
  // Answered after the session already completed (its launch failed): only a failure counts.
  if (a->ended >= 0) {
    if (status != Status::Success) a->status = status;
    return;
  }
  a->status = status;
  if (status != Status::Success) a->ended = e.t;
}

void AllocationLedger::completed(const log::EventView& e) {
  AllocationAccount* a = by_alloc(text(e, Field::alloc));
  if (!a) return;
  a->ended = e.t;
  a->jobs.clear();
  const auto jobs = nlohmann::json::parse(e.json(Field::jobs).value_or("[]"), nullptr, false);
  if (!jobs.is_array()) return;
  for (const auto& j : jobs) {
    if (!j.is_object()) continue;
    const auto status = parse_status(j.value("status", ""));
    a->jobs.emplace_back(j.value("nspace", ""), status.value_or(Status::Error));
  }
}

}  // namespace pmixflow
