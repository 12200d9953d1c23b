#include "pmixflow/trace/replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/vocab/human_text.hpp"
#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {
namespace {

// Jobs a trace submits in the same second reach the scheduler in the trace's order, this far
// apart at most (up to half a second for the whole second): relayed through a daemon, a job
// would otherwise arrive tens of microseconds after one submitted straight to the scheduler
// in the same instant, and be queued behind it.
constexpr double kSameSecondStep = 0.001;

// An SWF log's times are whole seconds, all but always: then the replay keeps the trace's
// clock (every job ends on a whole second, AppBehaviour::tick_s), so that ends the trace puts
// in one second reach the scheduler in one batch however long a chain of jobs led to them.
bool whole_seconds(const SwfTrace& trace, double warm_up) {
  auto whole = [](double t) { return t == std::floor(t); };
  if (!whole(warm_up)) return false;
  return std::all_of(trace.jobs.begin(), trace.jobs.end(),
                     [&](const SwfJob& j) { return whole(j.submit) && whole(j.runtime); });
}

}  // namespace

Scenario replay_scenario(const SwfTrace& trace, const ReplayOptions& options) {
  Scenario sc;
  sc.origin = trace.path;
  sc.name = trace.path.substr(trace.path.find_last_of('/') + 1);
  sc.description = "SWF replay: " + counted(trace.jobs.size(), "job");
  sc.dvm = "all";
  sc.policy = options.policy;
  sc.time_origin = options.warm_up;
  return sc;
}

std::vector<ReplayJob> replay_jobs(const SwfTrace& trace, std::uint32_t compute_nodes, const ReplayOptions& options) {
  std::vector<ReplayJob> out;
  out.reserve(trace.jobs.size());
  std::mt19937_64 random(options.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const bool ticks = whole_seconds(trace, options.warm_up);
  std::map<double, std::pair<int, int>> same_second;  // submit time -> jobs then, jobs placed
  for (const auto& job : trace.jobs) ++same_second[job.submit].first;
  const auto& preemptible = options.preemptible_queues;
  for (const auto& job : trace.jobs) {
    ReplayJob r;
    r.line = job.record.line;
    r.recorded_wait = job.record.wait;
    auto& [jobs_then, placed] = same_second[job.submit];
    r.at = options.warm_up + job.submit + placed++ * std::min(kSameSecondStep, 0.5 / jobs_then);
    r.user = job.record.user;
    if (compute_nodes > 0 && unit(random) < options.via_daemon)
      r.via_node = static_cast<std::int64_t>(random() % compute_nodes);
    r.job = job.record.job;
    r.procs = job.procs;
    r.runtime = job.runtime;
    r.estimate = job.estimate;
    r.queue = job.record.queue;
    r.preemptible = options.all_preemptible ||
                    std::find(preemptible.begin(), preemptible.end(), job.record.queue) != preemptible.end();
    r.ticks = ticks;
    out.push_back(r);
  }
  return out;
}

std::string replay_requestor(const ReplayJob& job) {
  return job.user >= 0 ? "user" + std::to_string(job.user) : "user-unknown";
}

std::string replay_via(const ReplayJob& job) {
  return job.via_node >= 0 ? "daemon:+n" + std::to_string(job.via_node) : "scheduler";
}

AllocRequest replay_request(const ReplayJob& job) {
  AllocRequest req;
  req.directive = Directive::New;
  req.corr = "job" + std::to_string(job.job);
  req.info.add(key::ALLOC_NUM_CPUS, job.procs);
  // No estimate (--estimates recorded, a trace's -1): no limit asked for, as a request without one.
  if (job.estimate > 0) req.info.add(key::ALLOC_TIME, format_alloc_time(job.estimate));
  req.info.add(key::ALLOC_REQ_ID, req.corr);
  if (job.queue >= 0) req.info.add(key::ALLOC_QUEUE, std::to_string(job.queue));
  if (job.preemptible) req.info.add(key::ALLOC_PREEMPTIBLE, true);
  // The job itself travels with the request, as a batch script does, and becomes the
  // session's app when the scheduler instantiates it.
  App app;
  app.cmd = "sleep";
  app.argv = {json_number(job.runtime)};
  app.maxprocs = static_cast<std::uint32_t>(job.procs);
  if (job.ticks) {
    AppBehaviour behaviour;
    behaviour.runtime_s = job.runtime;
    behaviour.tick_s = 1;
    describe(app, behaviour);
  }
  req.info.add(key::SESSION_APP, std::vector<App>{app});
  return req;
}

PlannedCall replay_call(const ReplayJob& job) {
  CallNotes notes;
  notes.line = job.line;
  if (job.recorded_wait >= 0) notes.recorded_wait = job.recorded_wait;
  return PlannedCall{job.at, job.via, replay_request(job), notes};
}

}  // namespace pmixflow
