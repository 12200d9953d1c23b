#include "pmixflow/emul/launcher.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

extern char** environ;

namespace pmixflow::emul {
namespace {

std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const auto name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || x.starts_with(name);
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// Another user's identity for a process started by a user who is not root: a user namespace in
// which the process is that user (its own files stay its own, mapped), so that what its PMIx
// library reports to the servers, and what they act on, is that user. The maps are written from
// the parent's strings: the child only writes them.
struct Identity {
  std::string uid_map, gid_map;
};

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

bool take_identity(const LaunchRequest& r, const Identity& id) {
  const auto [uid, gid] = *r.as_user;
  if (::geteuid() == 0) return ::setgroups(1, &gid) == 0 && ::setgid(gid) == 0 && ::setuid(uid) == 0;
  return ::unshare(CLONE_NEWUSER) == 0 && write_file("/proc/self/setgroups", "deny") &&
         write_file("/proc/self/uid_map", id.uid_map) && write_file("/proc/self/gid_map", id.gid_map);
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void become_party(const LaunchRequest& r, const Identity& id, int control, char* const* argv,
                               char* const* envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) ::signal(s, SIG_DFL);
  // dup2 clears close-on-exec on the copy, but copies nothing when the line is 3 already.
  if (control == 3 ? ::fcntl(3, F_SETFD, 0) != 0 : ::dup2(control, 3) < 0) ::_exit(127);
  if (r.as_user && !take_identity(r, id)) ::_exit(126);
  ::execve(r.program.c_str(), argv, envp);
  ::_exit(127);
}

}  // namespace

Child launch(const LaunchRequest& request) {
  auto [ours, theirs] = socket_pair();
  std::vector<std::string> args{request.program};
  args.insert(args.end(), request.args.begin(), request.args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = merged_environment(request.env);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  Identity id;
  if (request.as_user) {
    id.uid_map = std::to_string(request.as_user->first) + " " + std::to_string(::geteuid()) + " 1";
    id.gid_map = std::to_string(request.as_user->second) + " " + std::to_string(::getegid()) + " 1";
  }
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) become_party(request, id, theirs.get(), argv.data(), envp.data());
  ::setpgid(pid, pid);  // also here: no race with a signal sent before the child got there
  Child c;
  c.pid = pid;
  c.pidfd = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!c.pidfd) throw std::system_error(errno, std::generic_category(), "pidfd_open");
  c.control = std::move(ours);
  return c;
}

void signal_child(pid_t pid, int signal) {
  if (pid > 0) ::kill(-pid, signal);
}

std::optional<int> reap(pid_t pid) {
  int status = 0;
  const pid_t r = ::waitpid(pid, &status, WNOHANG);
  if (r == pid) return status;
  return std::nullopt;
}

}  // namespace pmixflow::emul
