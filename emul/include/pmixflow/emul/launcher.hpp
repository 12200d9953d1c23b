// Starting the emulation's processes on this machine: each party is a child of the emulation,
// in a process group of its own (a terminal's Ctrl-C reaches the emulation, which stops the
// parties in order), killed by the kernel if the emulation dies, and given its control line as
// descriptor 3. A party that would run on another host is started by srun or ssh instead and
// connects its control line back over TCP (docs/emulation.md): this is the one place to change.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "pmixflow/emul/link.hpp"

namespace pmixflow::emul {

struct LaunchRequest {
  std::string program;            // the pmixflow executable
  std::vector<std::string> args;  // after argv[0]
  std::vector<std::string> env;   // NAME=value added to (or replacing in) the emulation's environment
  // Run as this user and group: a requestor's real credentials. Root becomes the user; anyone
  // else starts the process in a user namespace of its own, where it is that user.
  std::optional<std::pair<uid_t, gid_t>> as_user;
};

struct Child {
  pid_t pid = -1;
  UniqueFd pidfd;    // readable once the child has ended
  UniqueFd control;  // our end of its control line
};

// Throws std::system_error when the child cannot be created; an exec that fails is seen as the
// child's exit (status 127) and its control line closing.
Child launch(const LaunchRequest& request);

// Sends `signal` to the child's process group (its jobs are in groups of their own and die
// with their daemon by the kernel's parent-death signal).
void signal_child(pid_t pid, int signal);

// Reaps an ended child: its wait status, or nullopt if it has not ended.
std::optional<int> reap(pid_t pid);

}  // namespace pmixflow::emul
