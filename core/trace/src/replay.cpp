#include "pmixflow/trace/replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "pmixflow/model/app_behaviour.hpp"
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

Scenario scenario_from_trace(const SwfTrace& trace, std::uint32_t compute_nodes, const ReplayOptions& options) {
  Scenario sc;
  sc.origin = trace.path;
  sc.name = trace.path.substr(trace.path.find_last_of('/') + 1);
  sc.description = "SWF replay: " + std::to_string(trace.jobs.size()) + " jobs";
  sc.dvm = "all";
  sc.policy = options.policy;
  sc.time_origin = options.warm_up;
  sc.calls.reserve(trace.jobs.size());
  std::mt19937_64 random(options.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const bool ticks = whole_seconds(trace, options.warm_up);
  std::map<double, std::pair<int, int>> same_second;  // submit time -> jobs then, jobs placed
  for (const auto& job : trace.jobs) ++same_second[job.submit].first;
  for (const auto& job : trace.jobs) {
    ScenarioCall call;
    call.line = job.record.line;
    if (job.record.wait >= 0) call.recorded_wait = job.record.wait;
    auto& [jobs_then, placed] = same_second[job.submit];
    call.at = options.warm_up + job.submit + placed++ * std::min(kSameSecondStep, 0.5 / jobs_then);
    call.requestor = job.record.user >= 0 ? "user" + std::to_string(job.record.user) : "user-unknown";
    if (compute_nodes > 0 && unit(random) < options.via_daemon)
      call.via = "daemon:+n" + std::to_string(random() % compute_nodes);
    else
      call.via = "scheduler";
    AllocRequest req;
    req.directive = Directive::New;
    req.corr = "job" + std::to_string(job.record.job);
    req.info.add(key::ALLOC_NUM_CPUS, job.procs);
    req.info.add(key::ALLOC_TIME, format_alloc_time(job.estimate));
    req.info.add(key::ALLOC_REQ_ID, req.corr);
    if (job.record.queue >= 0) req.info.add(key::ALLOC_QUEUE, std::to_string(job.record.queue));
    if (options.all_preemptible || std::find(options.preemptible_queues.begin(), options.preemptible_queues.end(),
                                             job.record.queue) != options.preemptible_queues.end())
      req.info.add(key::ALLOC_PREEMPTIBLE, true);
    // The job itself travels with the request, as a batch script does, and becomes the
    // session's app when the scheduler instantiates it.
    App app;
    app.cmd = "sleep";
    app.argv = {json_number(job.runtime)};
    app.maxprocs = static_cast<std::uint32_t>(job.procs);
    if (ticks) {
      AppBehaviour behaviour;
      behaviour.runtime_s = job.runtime;
      behaviour.tick_s = 1;
      describe(app, behaviour);
    }
    req.info.add(key::SESSION_APP, std::vector<App>{app});
    call.call = std::move(req);
    sc.calls.push_back(std::move(call));
  }
  return sc;
}

}  // namespace pmixflow
