// A party's process: its set-up, its role, and its lines to the emulation and the other
// parties. The role is the core's; everything here only carries it.
#include "pmixflow/emul/party.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "party_process.hpp"

namespace pmixflow::emul {

int run_party(int control_fd, bool fail_start) {
  // The emulation stops its parties in order; a terminal's Ctrl-C is the emulation's to see.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
  if (fail_start) return 1;  // a daemon that fails before its wire-up (scenario: daemon_start_fails)
  // The line is this process's alone: the job processes a daemon starts must not hold it open.
  ::fcntl(control_fd, F_SETFD, FD_CLOEXEC);
  try {
    PartyProcess party(control_fd);
    return party.run();
  } catch (const std::exception& e) {
    std::cerr << "pmixflow party: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace pmixflow::emul
