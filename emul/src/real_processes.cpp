#include "pmixflow/emul/real_processes.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <exception>
#include <system_error>

#include "pmixflow/model/app_behaviour.hpp"

namespace pmixflow::emul {

// What one process execs.
struct RealProcesses::Exec {
  std::string path;
  std::vector<std::string> argv;
  std::vector<std::string> env;
};

// A child that exec'd (error 0), or posix_spawn's error and no child.
struct RealProcesses::Spawned {
  pid_t pid = 0;
  int error = 0;
};

namespace {

// Debian Policy (9.2.1) guarantees /nonexistent never exists: an app described as one that
// cannot start has its command resolved there, so its exec fails for real (ENOENT).
constexpr std::string_view kNowhere = "/nonexistent/";

std::string number_text(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back the same
  return ec == std::errc() ? std::string(buf, end) : "0";
}

std::string error_text(int error) { return std::generic_category().message(error); }

// NAME=value replaces NAME's earlier value, as setenv(3) would.
void put_env(std::vector<std::string>& env, std::string entry) {
  const std::string name = entry.substr(0, entry.find('=') + 1);
  for (auto& e : env)
    if (e.compare(0, name.size(), name) == 0) {
      e = std::move(entry);
      return;
    }
  env.push_back(std::move(entry));
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

ProcessExit exit_of(const siginfo_t& info) {
  if (info.si_code == CLD_EXITED) return ProcessExit{info.si_status, 0};
  return ProcessExit{0, info.si_status};  // CLD_KILLED or CLD_DUMPED
}

// glibc 2.36's <sys/pidfd.h> declares pidfd_open without C linkage: the system call itself.
int pidfd_open(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

void reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// posix_spawn's settings for a job's process: in the job's process group (pgid 0: leading a
// new one, the job's), every signal at its default and none blocked (exec keeps ignored signals
// and the mask: the daemon's choices - a PMIx server blocks or ignores some - are not the
// job's), /dev/null for input, and none of the daemon's descriptors (a library's opened without
// O_CLOEXEC included). posix_spawn, not fork: glibc starts the child in the daemon's memory
// (CLONE_VM | CLONE_VFORK) instead of copying its page tables, which for a sanitized daemon took
// about 100 ms a process while the daemon relayed nothing.
class SpawnSettings {
 public:
  explicit SpawnSettings(pid_t pgid) {
    ::posix_spawnattr_init(&attr_);
    ::posix_spawn_file_actions_init(&files_);
    sigset_t all, none;
    ::sigfillset(&all);
    ::sigemptyset(&none);
    ::posix_spawnattr_setsigdefault(&attr_, &all);
    ::posix_spawnattr_setsigmask(&attr_, &none);
    ::posix_spawnattr_setpgroup(&attr_, pgid);
    ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    ::posix_spawn_file_actions_addopen(&files_, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_addclosefrom_np(&files_, 3);
  }
  ~SpawnSettings() {
    ::posix_spawn_file_actions_destroy(&files_);
    ::posix_spawnattr_destroy(&attr_);
  }
  SpawnSettings(const SpawnSettings&) = delete;
  SpawnSettings& operator=(const SpawnSettings&) = delete;
  const posix_spawnattr_t* attr() const { return &attr_; }
  const posix_spawn_file_actions_t* files() const { return &files_; }

 private:
  posix_spawnattr_t attr_;
  posix_spawn_file_actions_t files_;
};

}  // namespace

RealProcesses::Descriptor& RealProcesses::Descriptor::operator=(Descriptor&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void RealProcesses::Descriptor::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

RealProcesses::RealProcesses(Loop& loop, const RunClock& clock, std::string payload_path, std::string node_name)
    : loop_(loop), clock_(clock), payload_(std::move(payload_path)), node_name_(std::move(node_name)) {}

RealProcesses::~RealProcesses() {
  for (auto& [nspace, job] : jobs_) {
    kill_all(job);
    reap_all(job);
  }
}

void RealProcesses::launch(const LocalLaunch& launch, ProcessEvents& events) {
  const std::string& nspace = launch.nspace;
  if (jobs_.count(nspace)) return events.start_failed(nspace, "job " + nspace + " already runs on this node");
  Job job;
  job.events = &events;
  std::optional<std::string> failed;
  try {
    failed = start(launch, job);
  } catch (const std::exception& e) {  // out of memory, mostly: the launch fails, the daemon goes on
    failed = e.what();
  }
  if (failed) {
    // Nothing of the job may be left running: what was started dies with it.
    kill_all(job);
    reap_all(job);
    return events.start_failed(nspace, *failed);
  }
  if (job.children.empty()) {
    events.started(nspace);
    return events.exited(nspace, ProcessExit{});
  }
  Job& placed = jobs_.emplace(nspace, std::move(job)).first->second;
  try {
    watch_children(nspace, placed);
  } catch (const std::exception& e) {
    kill_all(placed);
    reap_all(placed);
    jobs_.erase(nspace);
    return events.start_failed(nspace, std::string("watching the processes: ") + e.what());
  }
  events.started(nspace);
}

std::optional<std::string> RealProcesses::start(const LocalLaunch& launch, Job& job) {
  // One instant for the whole job: its processes are meant to end together.
  const double now = clock_.now();
  std::size_t procs = 0;
  for (const auto& local : launch.apps) procs += local.procs;
  job.children.reserve(procs);  // a child forked is always recorded: no allocation can fail after the fork
  for (const auto& local : launch.apps)
    if (auto failed = spawn_app(launch, local, now, job)) return failed;
  return std::nullopt;
}

RealProcesses::Exec RealProcesses::exec_of(const App& app, const AppBehaviour& b, double runtime) const {
  Exec e;
  e.path = payload_;
  if (launch_fails_on(b, node_name_)) {
    const std::string cmd = app.cmd.empty() ? std::string("app") : app.cmd;
    e.path = std::string(kNowhere) + cmd.substr(cmd.rfind('/') + 1);
  }
  e.argv = {e.path, "--runtime", number_text(runtime), "--speed", number_text(clock_.speed)};
  if (b.exit_signal != 0) {
    e.argv.insert(e.argv.end(), {"--exit-signal", std::to_string(b.exit_signal)});
  } else if (b.exit_code != 0) {
    e.argv.insert(e.argv.end(), {"--exit-code", std::to_string(b.exit_code)});
  }
  // For whoever reads `ps`: what the job would have run.
  e.argv.push_back("--");
  e.argv.push_back(app.cmd);
  e.argv.insert(e.argv.end(), app.argv.begin(), app.argv.end());
  for (char** var = environ; *var; ++var) e.env.emplace_back(*var);
  for (const auto& var : app.env) put_env(e.env, var);
  return e;
}

std::optional<std::string> RealProcesses::spawn_app(const LocalLaunch& launch, const LocalApp& local, double now,
                                                    Job& job) {
  const AppBehaviour b = app_behaviour(local.app);
  // end_time, not now + runtime: PMIXFLOW_TICK ends the processes on the run clock's tick, as
  // the simulator's runner ends them.
  job.due = std::max(job.due, end_time(b, now));
  Exec exec = exec_of(local.app, b, end_time(b, now) - now);
  put_env(exec.env, "PMIX_NAMESPACE=" + launch.nspace);
  for (std::uint32_t i = 0; i < local.procs; ++i) {
    put_env(exec.env, "PMIX_RANK=" + std::to_string(local.first_rank + i));
    const Spawned s = spawn(exec, job.pgid);
    if (s.error != 0) return "exec " + exec.path + ": " + error_text(s.error);
    if (job.pgid == 0) job.pgid = s.pid;
    Child child;
    child.pid = s.pid;
    child.pidfd = Descriptor(pidfd_open(s.pid));
    const int error = errno;
    job.children.push_back(std::move(child));  // killed and reaped with the rest if anything fails
    ++job.running;
    if (job.children.back().pidfd.get() < 0) return "pidfd_open: " + error_text(error);
  }
  return std::nullopt;
}

// Returns once the child has exec'd or failed to (posix_spawn says which, and reaps a child
// whose exec failed). The payload itself makes sure it dies with its daemon (PMIXFLOW_DAEMON_PID).
RealProcesses::Spawned RealProcesses::spawn(Exec& exec, pid_t pgid) {
  put_env(exec.env, "PMIXFLOW_DAEMON_PID=" + std::to_string(::getpid()));
  std::vector<char*> argv = pointers(exec.argv), envp = pointers(exec.env);
  const SpawnSettings settings(pgid);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, exec.path.c_str(), settings.files(), settings.attr(), argv.data(), envp.data());
  return error != 0 ? Spawned{0, error} : Spawned{pid, 0};
}

void RealProcesses::watch_children(const std::string& nspace, Job& job) {
  for (std::size_t i = 0; i < job.children.size(); ++i)
    job.children[i].watch = loop_.watch(job.children[i].pidfd.get(), [this, nspace, i] { on_child_end(nspace, i); });
}

void RealProcesses::on_child_end(const std::string& nspace, std::size_t index) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  Job& job = it->second;
  Child& child = job.children.at(index);
  if (child.reaped) return;
  siginfo_t info{};
  if (::waitid(P_PIDFD, static_cast<id_t>(child.pidfd.get()), &info, WEXITED | WNOHANG) != 0) {
    if (errno == EINTR) return;  // still readable: the loop comes back
    // ECHILD: something else in this process reaped it. It is gone; how, nobody can tell.
    info.si_pid = child.pid;
    info.si_code = CLD_EXITED;
    info.si_status = 0;
  } else if (info.si_pid == 0) {
    return;  // not ended yet
  }
  loop_.unwatch(child.watch);
  child.watch = 0;
  child.pidfd.reset();
  child.reaped = true;
  --job.running;
  // The job's exit is that of the first process to END that did not exit 0, in the order they
  // are reaped (several reaped in one turn of the loop: in the order epoll hands them over).
  // Not the first in rank order: PRRTE records the first process it is told aborted as the
  // job's (PRTE_JOB_ABORTED_PROC), usually the cause, the later ones its consequences; and the
  // simulator's runner reports the first to end as well.
  const ProcessExit exit = exit_of(info);
  if (!job.failure && (exit.code != 0 || exit.signal != 0)) job.failure = exit;
  if (job.running > 0) return;
  if (lateness_ && !job.failure && !job.signalled && job.due >= 0)
    lateness_->add(job.due, clock_.now() - job.due, "the end of job " + nspace);
  ProcessEvents& events = *job.events;
  const std::string ended = nspace;  // `nspace` lives in the watch being erased
  const ProcessExit how = job.failure.value_or(ProcessExit{});
  jobs_.erase(it);
  events.exited(ended, how);
}

void RealProcesses::signal(const std::string& nspace, int signal) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  // The group: every process of the job, and whatever they started themselves.
  ::kill(-it->second.pgid, signal);
  it->second.signalled = true;
  if (signal == SIGSTOP) it->second.stopped = true;
  if (signal == SIGCONT) it->second.stopped = false;
}

std::size_t RealProcesses::jobs_going() const {
  std::size_t going = 0;
  for (const auto& [nspace, job] : jobs_) going += job.stopped ? 0 : 1;
  return going;
}

void RealProcesses::kill(const std::string& nspace) {
  auto it = jobs_.find(nspace);
  if (it == jobs_.end()) return;
  it->second.signalled = true;
  kill_all(it->second);
}

void RealProcesses::kill_all(Job& job) {
  if (job.pgid > 0) ::kill(-job.pgid, SIGKILL);
  // Each one too, in case it left the group: an unreaped child's pid cannot be anyone else's.
  for (const auto& child : job.children)
    if (!child.reaped) ::kill(child.pid, SIGKILL);
}

void RealProcesses::reap_all(Job& job) {
  for (auto& child : job.children) {
    if (child.reaped) continue;
    if (child.watch) loop_.unwatch(child.watch);
    child.watch = 0;
    reap(child.pid);
    child.pidfd.reset();
    child.reaped = true;
  }
  job.running = 0;
}

std::vector<pid_t> RealProcesses::pids(const std::string& nspace) const {
  std::vector<pid_t> out;
  auto it = jobs_.find(nspace);
  if (it != jobs_.end())
    for (const auto& child : it->second.children)
      if (!child.reaped) out.push_back(child.pid);
  return out;
}

}  // namespace pmixflow::emul
