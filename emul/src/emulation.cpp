// `pmixflow emul`, as the simulator's run reads: load the inputs, build the machine, deploy the
// parties as processes, run until the flow is quiet, and hand the end to the outputs.
#include "pmixflow/emul/emulation.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <ostream>

#include "conductor.hpp"
#include "pmixflow/results/run_outputs.hpp"
#include "pmixflow/trace/deployment.hpp"

namespace pmixflow::emul {
namespace {

// SIGINT, SIGTERM and SIGHUP as a descriptor the loop watches: the emulation stops its parties
// in order instead of dying with them running. Restores the signal mask when it goes.
class StopSignals {
 public:
  StopSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
    ::sigprocmask(SIG_BLOCK, &set, &old_);
    fd_ = UniqueFd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  }
  ~StopSignals() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int fd() const { return fd_.get(); }
  int take() {
    signalfd_siginfo info{};
    return ::read(fd_.get(), &info, sizeof info) == sizeof info ? static_cast<int>(info.ssi_signo) : 0;
  }

 private:
  UniqueFd fd_;
  sigset_t old_{};
};

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
  RunOutputs outputs(in.outputs, describe_run("emul", workload, in, machine.cluster(),
                                              {machine.description(), machine.shape().source, machine.shape().slots}));
  Loop loop;
  StopSignals signals;
  Conductor conductor(loop, options, in, machine.cluster(), deployment, outputs.log());
  loop.watch(signals.fd(), [&] {
    if (const int s = signals.take()) conductor.interrupt(std::string("stopped by ") + ::strsignal(s));
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
      return 130;
    default:
      err << "pmixflow emul: " << (conductor.failure().empty() ? "the run was cut" : conductor.failure())
          << ": every party stopped; the event log is cut at " << conductor.end_time() << " s\n";
      return 3;
  }
}

}  // namespace pmixflow::emul
