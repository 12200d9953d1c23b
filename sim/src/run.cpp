// `pmixflow sim`, as SimGrid's examples read: load the inputs, build the machine, deploy the
// parties on it, run, and hand the end to the outputs.
#include "pmixflow/sim/run.hpp"

#include <memory>
#include <ostream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/results/run_outputs.hpp"
#include "pmixflow/roles/controller.hpp"
#include "pmixflow/roles/daemon.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/sim/sim_machine.hpp"
#include "pmixflow/sim/timed_processes.hpp"
#include "pmixflow/sim/world.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/stop_signals.hpp"
#include "progress.hpp"
#include "release_memory.hpp"

namespace pmixflow::sim {
namespace {

WorldOptions world_options(const SimKnobs& k, std::uint64_t seed) {
  WorldOptions o;
  o.daemon_startup_s = k.daemon_startup_s;
  o.jitter = k.jitter;
  o.seed = seed;
  o.idle_actors = k.idle_actors;
  return o;
}

// Every party of the deployment on its host: the controller on the head node, the scheduler
// on its own, the requestors on the login host, the daemons where their nodes are.
void place(World& world, Deployment& d, const SimMachine& m, const std::string& policy, const SimKnobs& k,
           std::uint64_t seed) {
  const Cluster& cluster = m.cluster();
  world.add_party(
      Address::controller(), "controller", m.hosts().head,
      [&cluster, config = d.controller](Env& env) { return std::make_unique<Controller>(env, cluster, config); },
      d.controller_schedule);
  world.add_party(
      Address::scheduler(), "scheduler", m.hosts().scheduler,
      [&cluster, policy, config = d.scheduler](Env& env) {
        return std::make_unique<Scheduler>(env, cluster, make_policy(policy), config);
      },
      d.scheduler_schedule);
  for (std::uint32_t i = 0; i < d.requestors.size(); ++i) {
    RequestorDeployment& r = d.requestors[i];
    // The deployment outlives the world; each life's calls move into the Requestor made for it.
    world.add_party(
        Address::requestor(i), "requestor:" + r.name, m.hosts().login,
        [&r, life = std::size_t{0}](Env& env) mutable {
          return std::make_unique<Requestor>(env, r.identity, r.take_calls(life++));
        },
        r.schedule);
    world.set_credentials(i, r.credentials);
  }
  for (const auto& fault : d.faults) world.inject(fault);
  ProcessTiming timing;
  timing.jitter = k.jitter;
  timing.seed = seed;
  world.set_daemon_factory([timing, &cluster](Env& env, NodeId node) {
    return std::make_unique<Daemon>(env, node,
                                    std::make_unique<TimedProcesses>(env, node, timing, cluster.node(node).name));
  });
}

nlohmann::json stats(const World& world, double wall) {
  const WorldStats& s = world.stats();
  return {{"sim_time_s", s.end_time},
          {"wall_s", wall},
          {"messages", s.messages},
          {"bytes", s.bytes},
          {"daemons_started", s.daemons_started},
          {"daemon_wakeups", s.actor_wakeups}};
}

// A run stopped by `signal` at simulated time `at`: said, with what it leaves (a cut log, no
// report), and its exit status.
int interrupted(int signal, double at, const OutputOptions& o, std::ostream& err) {
  err << "pmixflow sim: " << stopped_by(signal) << " at t=" << at << " s";
  const bool log = o.events != log::Level::None && (!o.events_to.empty() || !o.dir.empty());
  if (log) err << ": the event log is cut there (pmixflow report --partial reads it)";
  if (!o.dir.empty()) err << (log ? "; " : ": ") << "no jobs.csv or summary.json written";
  err << "\n";
  return kStoppedBySignal;
}

}  // namespace

int run_simulation(const RunInputs& in, const SimKnobs& knobs, std::ostream& out, std::ostream& err) {
  // Before SimGrid starts a thread: Ctrl-C stops the run in order rather than in SimGrid's
  // handler (exit 1, nothing said).
  StopSignals signals;
  Workload workload = load_workload(in);
  const SimMachine machine(knobs, workload);
  plan_replay(workload, in, machine.compute_nodes());
  Deployment deployment = deploy(workload, in, machine.cluster());
  // The requestors hold the replay's jobs from now on: the trace's and the workload's copies go.
  // (Swapped with empty vectors: assigning {} would keep their capacity.)
  std::vector<ReplayJob>().swap(workload.replay);
  if (workload.trace) std::vector<SwfJob>().swap(workload.trace->jobs);
  RunInfo info = describe_run("sim", workload, in, machine.cluster(),
                              {machine.hosts().description, machine.shape().source, machine.shape().slots});
  info.calls_planned = deployment.calls_planned();
  // The simulator's own settings that change the results (the rest, such as --idle-actors, do not).
  info.options["daemon_startup"] = knobs.daemon_startup_s;
  info.options["jitter"] = knobs.jitter;
  RunOutputs outputs(in.outputs, std::move(info));
  auto world =
      std::make_unique<World>(machine.cluster(), machine.hosts(), world_options(knobs, in.seed), &outputs.log());
  place(*world, deployment, machine, workload.policy, knobs, in.seed);
  world->stop_when([&signals] { return signals.take(); });
  double wall = 0;
  {
    const Progress progress(*world, machine.hosts().login, deployment.last_call, in.outputs.quiet);
    world->run();
    wall = progress.wall();
  }
  if (const int signal = world->interrupted()) return interrupted(signal, world->failure()->at, in.outputs, err);
  // One that came after the run last looked: the log has no closing line yet, and gets none.
  if (const int signal = world->failure() ? 0 : signals.take())
    return interrupted(signal, world->stats().end_time, in.outputs, err);
  if (const auto& failed = world->failure()) {
    std::ostringstream where;
    where << "at t=" << failed->at << " s in " << failed->party << ": ";
    if (failed->policy) throw PolicyError(workload.policy, where.str() + failed->what);
    throw InternalError(where.str() + failed->what);
  }
  const double end_time = world->stats().end_time;
  const nlohmann::json run_stats = stats(*world, wall);
  const std::string stalled = world->stats().stalled;
  // The parties (their connections, their roles' state) go before the outputs are made: a
  // large replay's report then takes the memory they held rather than adding to it.
  world.reset();
  release_free_memory();
  const int status = outputs.finish(end_time, run_stats, out, err, stalled);
  // Held while the outputs were written: they are whole, and the run ended as they say.
  if (const int late = signals.take())
    err << "pmixflow sim: " << stopped_by(late) << " once the run had ended: its outputs are complete\n";
  return status;
}

}  // namespace pmixflow::sim
