#include "pmixflow/trace/bare_replay.hpp"

#include <algorithm>
#include <queue>
#include <string>

namespace pmixflow {
namespace {

class LoopView final : public SchedulingView {
 public:
  double time = 0;
  std::uint64_t total = 0, free = 0;
  std::vector<QueuedRequest> waiting;
  std::vector<RunningAllocation> active;
  double now() const override { return time; }
  std::uint64_t total_cpus() const override { return total; }
  std::uint64_t free_cpus() const override { return free; }
  bool fits_now(const QueuedRequest& r) const override { return r.cpus <= free; }
  std::span<const QueuedRequest> queue() const override { return waiting; }
  std::span<const RunningAllocation> running() const override { return active; }
};

struct End {
  double at;
  std::uint64_t key;
  bool operator>(const End& o) const { return at != o.at ? at > o.at : key > o.key; }
};

}  // namespace

JobOutcomes bare_replay(const SwfTrace& trace, Policy& policy, std::uint64_t procs) {
  LoopView view;
  view.total = view.free = procs;
  std::priority_queue<End, std::vector<End>, std::greater<>> ends;
  JobOutcomes outcomes;
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) outcomes.emplace_back();
  std::size_t next = 0;
  while (next < trace.jobs.size() || !ends.empty()) {
    const double t =
        std::min(next < trace.jobs.size() ? trace.jobs[next].submit : 1e300, ends.empty() ? 1e300 : ends.top().at);
    view.time = t;
    while (!ends.empty() && ends.top().at == t) {
      const auto key = ends.top().key;
      ends.pop();
      auto it = std::find_if(view.active.begin(), view.active.end(), [&](const auto& r) { return r.key == key; });
      view.free += it->cpus;
      view.active.erase(it);
    }
    while (next < trace.jobs.size() && trace.jobs[next].submit == t) {
      const auto& job = trace.jobs[next];
      view.waiting.push_back({next, t, job.procs, 0, job.estimate, 0, false});
      JobOutcome& o = outcomes[next];
      o.job_id = std::to_string(job.record.job);
      o.submitted = t;
      o.requested = job.procs;
      o.requested_time = job.estimate;
      ++next;
    }
    while (auto key = policy.next(view)) {
      auto it = std::find_if(view.waiting.begin(), view.waiting.end(), [&](const auto& q) { return q.key == *key; });
      if (it == view.waiting.end() || !view.fits_now(*it)) break;  // as the scheduler: only what fits
      const auto& job = trace.jobs[*key];
      view.free -= job.procs;
      view.active.push_back({*key, job.procs, t, t + job.estimate, 0, false, false});
      // A job that outlives its estimate (--estimates recorded) is ended at it, as the flow's limit ends it.
      const bool limited = job.estimate > 0 && job.runtime > job.estimate;
      const double ran = limited ? job.estimate : job.runtime;
      outcomes[*key].started = t;
      outcomes[*key].finished = t + ran;
      outcomes[*key].final_state = limited ? "COMPLETED_WALLTIME_REACHED" : "COMPLETED_SUCCESSFULLY";
      outcomes[*key].allocated_count = job.procs;  // what the utilisation counts
      ends.push({t + ran, *key});
      view.waiting.erase(it);
    }
  }
  return outcomes;
}

}  // namespace pmixflow
