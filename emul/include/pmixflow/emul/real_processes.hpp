// The emulator's process runner: a job's local processes are real processes of this machine,
// each running the payload (`pmixflow-job`, emul/payload/job.cpp) for the app's run time at the
// emulation's speed and ending as the app says (model/app_behaviour.hpp). Signals are real
// signals to the job's process group, exits are real exit statuses, a failed launch is a real
// exec failure. A child's end is seen on its pidfd, watched by the daemon's loop: no SIGCHLD
// handler, which a process hosting PMIx threads cannot own.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pmixflow/emul/lateness.hpp"
#include "pmixflow/emul/loop.hpp"
#include "pmixflow/emul/run_clock.hpp"
#include "pmixflow/roles/process_runner.hpp"

namespace pmixflow {
struct AppBehaviour;
}

namespace pmixflow::emul {

class RealProcesses final : public ProcessRunner {
 public:
  // `loop` and `clock` must outlive the runner. Every call must come from the loop's thread, and
  // that thread must live as long as the processes: PR_SET_PDEATHSIG kills a child when the
  // thread that forked it ends, which is how a daemon's death takes its processes with it.
  // `node_name`: where an app that fails to launch on some nodes only (PMIXFLOW_FAIL_LAUNCH)
  // fails.
  RealProcesses(Loop& loop, const RunClock& clock, std::string payload_path, std::string node_name = {});
  // Kills and reaps every process still running, reporting nothing.
  ~RealProcesses() override;
  RealProcesses(const RealProcesses&) = delete;
  RealProcesses& operator=(const RealProcesses&) = delete;

  // Forks and execs every local process before returning, so started() or start_failed() is
  // reported inside the call; exited() later, from the loop, once the last process is reaped.
  void launch(const LocalLaunch& launch, ProcessEvents& events) override;
  void signal(const std::string& nspace, int signal) override;
  void kill(const std::string& nspace) override;

  // Where it counts how late each job's processes were seen to end, against the end its run time
  // planned (jobs nobody signalled, that ended well): `lateness` must outlive the runner.
  void count_lateness_in(Lateness& lateness) { lateness_ = &lateness; }

  // Jobs with processes still running here.
  std::size_t jobs() const { return jobs_.size(); }
  // Jobs that will end or change on their own: not those stopped (PMIX_SESSION_PAUSE), which
  // wait for a SIGCONT someone else must send. A daemon with none is idle.
  std::size_t jobs_going() const;
  // The job's processes not yet reaped, in rank order (for logs and tests).
  std::vector<pid_t> pids(const std::string& nspace) const;

 private:
  // Owns one descriptor (a pidfd).
  class Descriptor {
   public:
    Descriptor() = default;
    explicit Descriptor(int fd) : fd_(fd) {}
    Descriptor(Descriptor&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Descriptor& operator=(Descriptor&& o) noexcept;
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() { reset(); }
    int get() const { return fd_; }
    void reset();

   private:
    int fd_ = -1;
  };
  struct Child {
    pid_t pid = 0;
    Descriptor pidfd;
    WatchId watch = 0;
    bool reaped = false;
  };
  struct Job {
    ProcessEvents* events = nullptr;
    pid_t pgid = 0;                      // the first process's pid: the group every process joins
    std::vector<Child> children;         // in rank order
    std::size_t running = 0;             // not yet reaped
    bool stopped = false;                // sent SIGSTOP and no SIGCONT since
    std::optional<ProcessExit> failure;  // of the first to end that did not exit 0
    double due = -1;                     // when its processes are to end on their own
    bool signalled = false;              // its end is someone else's doing, not its run time's
  };

  struct Exec;
  struct Spawned;

  std::optional<std::string> start(const LocalLaunch& launch, Job& job);
  Exec exec_of(const App& app, const AppBehaviour& b, double runtime) const;
  static Spawned spawn(Exec& exec, pid_t pgid);
  std::optional<std::string> spawn_app(const LocalLaunch& launch, const LocalApp& local, double now, Job& job);
  void watch_children(const std::string& nspace, Job& job);
  void on_child_end(const std::string& nspace, std::size_t index);
  static void kill_all(Job& job);
  void reap_all(Job& job);

  Loop& loop_;
  const RunClock& clock_;
  std::string payload_;
  std::string node_name_;
  std::unordered_map<std::string, Job> jobs_;
  Lateness* lateness_ = nullptr;
};

}  // namespace pmixflow::emul
