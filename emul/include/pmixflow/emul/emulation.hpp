// `pmixflow emul`: a run on real OpenPMIx processes. The emulation loads the same inputs as the
// simulator, makes a private directory, starts the controller, the scheduler and the requestors
// as processes of their own (and the daemons when the controller asks for them), hands each its
// set-up and its go at the scenario's times, injects the scenario's faults for real (a daemon's
// process killed, the scheduler's killed and restarted), writes the one event log from what the
// parties report, and ends when the flow is quiet: every party stopped, nothing left behind.
#pragma once

#include <sys/types.h>

#include <iosfwd>
#include <string>
#include <vector>

#include "pmixflow/emul/emul_machine.hpp"
#include "pmixflow/trace/run.hpp"

namespace pmixflow::emul {

struct EmulOptions {
  MachineKnobs machine;
  double speed = 1.0;       // scenario seconds per wall second
  bool hold = false;        // stay up once the scenario is done, for tools attached by hand
  double timeout_s = 0;     // wall seconds before giving up; 0: from the scenario's length
  std::vector<uid_t> allow; // other users whose tools may attach
  std::string program;      // what each party runs: pmixflow-party
  std::string payload;      // pmixflow-job
};

// Runs one emulation: outputs where `inputs` says, the summary on `out`. Returns the exit
// status: 0 when every expectation held, 1 when one did not, 3 when the run was cut (timeout,
// a party that could not start), 130 when interrupted. Throws InputError for bad input.
int run_emulation(const RunInputs& inputs, const EmulOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pmixflow::emul
