// One party of an emulation, in its own process (`pmixflow-party`, started by `pmixflow
// emul`): it reads its set-up from its control line, builds the same machine and deployment as
// the emulation, brings up its PMIx and its links, runs its role from the core on its loop,
// and reports its events and whether it is idle, until told to stop or until the emulation is
// gone.
#pragma once

namespace pmixflow::emul {

// `control_fd`: the party's control line. `fail_start`: a daemon whose start is to fail, as
// the scenario's daemon_start_fails says: it exits before its wire-up. Returns the exit status.
int run_party(int control_fd, bool fail_start);

}  // namespace pmixflow::emul
