#include "pmixflow/trace/replay.hpp"

#include <algorithm>
#include <random>

#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {

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
  for (const auto& job : trace.jobs) {
    ScenarioCall call;
    call.line = job.record.line;
    if (job.record.wait >= 0) call.recorded_wait = job.record.wait;
    call.at = options.warm_up + job.submit;
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
    req.info.add(key::SESSION_APP, std::vector<App>{app});
    call.call = std::move(req);
    sc.calls.push_back(std::move(call));
  }
  return sc;
}

}  // namespace pmixflow
