// `pmixflow emul`, as the simulator's run reads: load the inputs, build the machine, deploy the
// parties as processes, run until the flow is quiet, and hand the end to the outputs.
#include "pmixflow/emul/emulation.hpp"

#include <unistd.h>

#include <ostream>

#include "conductor.hpp"
#include "pmixflow/results/run_outputs.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/vocab/stop_signals.hpp"

namespace pmixflow::emul {
namespace {

void print_hold(const Conductor& c, std::ostream& out) {
  out << "pmixflow emul: holding; the emulation's servers are listed in " << c.run_dir().path() << "/servers.json\n"
      << "  attach: pmixflow request --emulation " << c.run_dir().path()
      << " --via controller PMIX_ALLOC_NEW PMIX_ALLOC_NUM_NODES=1\n"
      << "  stop: Ctrl-C (or kill " << ::getpid() << ")\n"
      << std::flush;
}

}  // namespace

int run_emulation(const RunInputs& in, const EmulOptions& options, std::ostream& out, std::ostream& err) {
  Workload workload = load_workload(in);
  const EmulMachine machine(options.machine, workload);
  plan_replay(workload, in, machine.compute_nodes());
  const Deployment deployment = deploy(workload, in, machine.cluster());
  RunInfo info = describe_run("emul", workload, in, machine.cluster(),
                               {machine.description(), machine.shape().source, machine.shape().slots});
  info.calls_planned = deployment.calls_planned();
  RunOutputs outputs(in.outputs, std::move(info));
  Loop loop;
  // The parties stop in order instead of dying with them running.
  StopSignals signals;
  Conductor conductor(loop, options, in, machine.cluster(), deployment, outputs.log());
  loop.watch(signals.fd(), [&] {
    if (const int s = signals.take()) conductor.interrupt(stopped_by(s));
  });
  // Said once every party is up and listed: a user attaching at once finds every server.
  conductor.start([&] {
    if (options.hold && !in.outputs.quiet) print_hold(conductor, out);
  });
  loop.run();
  switch (conductor.ending()) {
    case Ending::Quiet: return outputs.finish(conductor.end_time(), conductor.stats(), out, err);
    case Ending::Stalled:
      return outputs.finish(conductor.end_time(), conductor.stats(), out, err, conductor.failure());
    case Ending::Interrupted:
      err << "pmixflow emul: " << conductor.failure() << ": every party stopped; the event log is cut at "
          << conductor.end_time() << " s (pmixflow report --partial reads it)\n";
      return kStoppedBySignal;
    default:
      err << "pmixflow emul: " << (conductor.failure().empty() ? "the run was cut" : conductor.failure())
          << ": every party stopped; the event log is cut at " << conductor.end_time() << " s\n";
      return 3;
  }
}

}  // namespace pmixflow::emul
