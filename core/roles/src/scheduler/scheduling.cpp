// The policy's passes: what it may look at, the requests it starts, the sessions it takes back.
#include <cmath>
#include <limits>

#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {

class Scheduler::View final : public SchedulingView {
 public:
  explicit View(const Scheduler& s) : s_(s) {}
  double now() const override { return s_.instant_; }
  std::uint64_t total_cpus() const override { return s_.pool_.total(); }
  std::uint64_t free_cpus() const override { return s_.pool_.free(); }
  bool fits_now(const QueuedRequest& r) const override { return s_.pool_.fits(s_.need_of(r)); }
  std::span<const QueuedRequest> queue() const override { return s_.queue_.view(); }
  std::span<const RunningAllocation> running() const override { return s_.running_view_; }

 private:
  const Scheduler& s_;
};

namespace {

// The scheduler's clock as a batched pass reads it: in steps of 1/1024 s, exact in binary, so
// that a start plus a whole-second limit lands exactly on a later instant, as it does in a
// bare loop, and the flow's microseconds of latency do not tell apart what happened together.
// Slurm plans in whole seconds for the same reason.
constexpr double kClockSteps = 1024;

}  // namespace

template <class F>
auto Scheduler::consult(F&& ask) -> decltype(ask()) {
  try {
    return ask();
  } catch (const std::exception& e) {
    throw PolicyError(std::string(policy_->name()), e.what());
  } catch (...) {
    throw PolicyError(std::string(policy_->name()), "it threw something that is not a std::exception",
                      std::current_exception());
  }
}

void Scheduler::schedule() {
  if (config_.batch_delay <= 0) {
    instant_ = env_.now();
    return pass();
  }
  // Every event until the timer fires is seen by the one pass it brings: two jobs ending in
  // the same second, or an end and a submission, are decided together whatever order their
  // messages came in, as of the instant the first of them arrived.
  if (pass_timer_ != 0) return;
  batch_opened_ = env_.now();
  pass_timer_ = env_.after(config_.batch_delay, [this] {
    pass_timer_ = 0;
    instant_ = std::floor(batch_opened_ * kClockSteps) / kClockSteps;
    pass();
  });
}

void Scheduler::pass() {
  if (!rm_connected_ || queue_.empty()) return;
  live_.running(running_view_);
  View view(*this);
  while (auto key = consult([&] { return policy_->next(view); })) {
    const auto* q = [&]() -> const QueuedRequest* {
      for (const auto& v : queue_.view())
        if (v.key == *key) return &v;
      return nullptr;
    }();
    if (!q || !pool_.fits(need_of(*q))) break;  // a policy must only pick what fits now
    grant(std::move(*queue_.take(*key)));
  }
  if (!queue_.empty()) {
    const auto victims = consult([&] { return policy_->preempt(view); });
    if (!victims.empty()) preempt(victims);
  }
}

Need Scheduler::need_of(const QueuedRequest& r) const {
  if (const Pending* p = queue_.pending(r.key)) return p->need;
  return Need{r.cpus, r.nodes, {}};
}

void Scheduler::preempt(const std::vector<std::uint64_t>& keys) {
  // Taking resources back is a TERMINATE: PREEMPT only suspends and keeps the nodes
  // (FLOW.md section 4). The request is requeued once the RM reports the session complete.
  for (const std::uint64_t key : keys) {
    Live* live = live_.by_key(key);
    if (!live || !live->view.preemptible) continue;  // only what the view offered
    live->view.preemptible = false;
    live->view.ending = true;
    live->view.expected_end = instant_;
    env_.log(ev::AllocPreempt{
        .corr = live->corr, .alloc = live->alloc_id, .session = live->session_id, .cpus = live->view.cpus});
    InfoList directives;
    directives.add(key::SESSION_TERMINATE, true);
    rm_.call(live->session_id, std::move(directives), live->corr,
             Outstanding{.kind = RmCall::Preempt, .alloc_id = live->alloc_id});
  }
}

namespace {

// PMIX_SESSION_INSTANTIATE for a grant: its resources, its owner, its job, what it passes on.
InfoList instantiation(const Pending& p, const std::string& alloc_id, const std::string& nodes) {
  InfoList resources;
  resources.add(key::ALLOC_NODE_LIST, nodes).add(key::ALLOC_ID, alloc_id);
  if (!p.req_id.empty()) resources.add(key::ALLOC_REQ_ID, p.req_id);
  if (p.time_limit > 0) resources.add(key::ALLOC_TIME, format_alloc_time(p.time_limit));
  if (p.inheritance) resources.add(key::ALLOC_INHERITANCE, *p.inheritance);
  InfoList directives;
  directives.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_RESOURCES, std::move(resources));
  // The session's owner, for the RM's own checks: its process and its user.
  directives.add(key::REQUESTOR, p.requestor.proc);
  add_ids(directives, p.requestor);
  for (const auto& item : p.apps_and_job.items) directives.items.push_back(item);
  for (const auto& item : p.passed_on.items) directives.items.push_back(item);
  return directives;
}

}  // namespace

void Scheduler::grant(QueueEntry&& q) {
  const std::uint32_t session_id = next_session_++;
  Live live;
  live.alloc_id = "alloc-" + std::to_string(session_id);
  live.session_id = session_id;
  live.owner = q.pending.requestor;
  live.corr = q.pending.origin.corr;
  live.slots = pool_.take(q.pending.need);
  live.granted_at = env_.now();
  // Preemptible only once the RM holds the session: there is nothing to terminate before.
  const double limit = q.pending.time_limit;
  live.view = RunningAllocation{q.view.key,
                                q.pending.need.cpus,
                                instant_,
                                limit > 0 ? instant_ + limit : std::numeric_limits<double>::infinity(),
                                q.view.priority,
                                false,
                                false};
  if (q.view.preemptible) live.requeue = q;  // the request as it was queued, to requeue
  running_view_.push_back(live.view);
  const std::string nodes = pool_.node_list(live.slots);
  env_.log(ev::AllocGrant{.corr = live.corr,
                          .alloc = live.alloc_id,
                          .session = session_id,
                          .node_list = nodes,
                          .resources = pool_.resources(live.slots)});
  InfoList directives = instantiation(q.pending, live.alloc_id, nodes);
  // A requeued request was answered with its first session; its later ones are the RM's news.
  Outstanding out{.kind = RmCall::Instantiate, .alloc_id = live.alloc_id, .origin = q.pending.origin};
  out.requeued = q.pending.answered;
  if (!config_.instantiates) {
    // Granted and never told to the RM: the requestor has its answer, no session exists, the
    // resources stay held here until the requestor releases them.
    InfoList info;
    info.add(key::ALLOC_ID, live.alloc_id).add(key::ALLOC_NODE_LIST, nodes);
    live_.add(std::move(live));
    if (!out.requeued) answer(out.origin, Status::Success, std::move(info));
    return;
  }
  live_.add(std::move(live));
  rm_.call(session_id, std::move(directives), q.pending.origin.corr, std::move(out));
}

}  // namespace pmixflow
