// The pieces of bench_emul (emul_bench.cpp): its own PMIx modes (emul_tool.cpp), the processes it
// starts and measures (emul_procs.cpp), and the hop-by-hop reading of the held emulation's event
// log (emul_hops.cpp).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pmixflow::bench {

using Clock = std::chrono::steady_clock;

// ---- emul_tool.cpp: what bench_emul runs as a child of itself ------------------------------

// `--floor-server DIR`: a bare PMIx server whose allocate up-call answers at once. Prints
// "uri URI" and serves until its standard input closes.
int floor_server_main(const std::string& dir);

// `--loop URI NSPACE K WARMUP`: one tool attached to URI, WARMUP + K allocation requests each
// followed by its release. Prints "first_ok_ns N" (the steady clock at the first success: the
// parent shares that clock), then "new US..." and "release US..." (the K timed ones).
int loop_main(const std::string& uri, const std::string& nspace, int k, int warmup);

// `--one-shot URI`: attach, one PMIX_ALLOC_NEW, exit: the bare version of `pmixflow request`.
int one_shot_main(const std::string& uri);

// The correlation a loop gives its i-th allocation request (1-based; warm-up first).
std::string loop_corr(const std::string& nspace, int i);

// ---- emul_procs.cpp -------------------------------------------------------------------------

// A process this bench started, in a process group of its own, its standard output read through
// a pipe and its standard input a pipe it holds open (closing it is the floor server's stop).
// Destroying it ends the group (SIGINT, then SIGKILL) and reaps it, whatever went wrong.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
        const std::filesystem::path& err_file = {});
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  bool running();  // false once it has ended (it is then reaped)
  // The next line of its output, waiting at most `timeout`; nullopt at its end or the timeout.
  std::optional<std::string> line(std::chrono::milliseconds timeout);
  // All of its output until it exits, then its exit status (-1 if it did not exit normally).
  int finish(std::string& out);
  void stop();  // SIGINT to its group, SIGKILL after a grace period; reaped. Idempotent.

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int in_ = -1;
  std::string buffered_;
};

// Runs argv to its end: wall seconds from fork to exit, its output in `out`, its status in `rc`.
double timed_run(const std::vector<std::string>& argv, std::string& out, int& rc);

// `pmixflow emul --hold --batch-delay 0 --nodes N [EXTRA...]` in a scratch directory of its own
// (its TMPDIR: the emulation's private directory is made there, and every party's environment
// names it).
class HeldEmulation {
 public:
  HeldEmulation(const std::filesystem::path& scratch, int nodes, const std::vector<std::string>& extra = {});
  ~HeldEmulation();
  HeldEmulation(const HeldEmulation&) = delete;
  HeldEmulation& operator=(const HeldEmulation&) = delete;

  // Waits (bounded) until servers.json lists every daemon, the controller and the scheduler;
  // seconds since the launch then, or nullopt.
  std::optional<double> wait_until_listed(std::chrono::seconds limit);
  // Seconds from the launch until it printed "pmixflow emul: holding" (its attach instructions),
  // waiting for that at most until `limit` after the launch.
  std::optional<double> hold_printed(std::chrono::seconds limit);
  std::string dir() const { return dir_; }  // the emulation's directory (pmixflow request --emulation)
  // The PMIx URI of one party ("daemon:n01") from servers.json.
  std::string uri_of(const std::string& party) const;
  // The daemon of the highest rank ("daemon:n64"): the last one the emulation started.
  std::string last_daemon() const;
  std::filesystem::path events() const { return scratch_ / "out" / "events.jsonl"; }
  Clock::time_point launched() const { return launched_; }
  pid_t pid() const { return emul_ ? emul_->pid() : -1; }
  // Its `pmixflow party` processes (found by their environment: they live under its TMPDIR).
  std::vector<pid_t> parties() const;
  std::vector<pid_t> processes() const;  // its parties and itself
  // Ctrl-C as a user stops it; then anything of it still running is killed. Idempotent.
  void stop();
  std::string err() const;

 private:
  std::filesystem::path scratch_;
  int nodes_;
  Clock::time_point launched_;
  std::string dir_;
  std::optional<double> hold_printed_;
  std::optional<Child> emul_;
};

// A process's command line, arguments separated by spaces ("" once it is gone).
std::string command_line(pid_t pid);

// PSS shares a page among every process mapping it, other users' pmixflow processes included;
// USS (its private pages) is what the process alone costs, whatever else runs.
struct Memory {
  double rss_mib = 0;
  double pss_mib = 0;  // 0 when smaps_rollup cannot be read, as the two below
  double uss_mib = 0;
};
Memory memory_of(pid_t pid);
// What the scheduler of this machine says of processes, summed over all their threads
// (/proc/PID/task/TID/schedstat): time on a core, time waiting for one, times put on one.
struct Sched {
  double cpu_us = 0;
  double wait_us = 0;
  double runs = 0;
};
Sched sched_of(const std::vector<pid_t>& pids);
Sched operator-(const Sched& a, const Sched& b);

// MemAvailable of /proc/meminfo.
double available_mib();

// ---- emul_hops.cpp --------------------------------------------------------------------------

// One step of a request's way through the emulation, as its event log times it: "in daemon:n01"
// (from its receiving to its sending on), or "daemon:n01 -> controller alloc_request" (from a
// send event to the matching recv event: PMIx or the daemon link, both sides' own handling).
struct Hop {
  std::string label;
  double p50_us = 0;
};

struct HopBreakdown {
  std::vector<Hop> hops;     // in the order a request takes them
  double inside_p50_us = 0;  // the daemon's receiving of the request to its sending of the answer
  std::size_t requests = 0;  // requests found whole in the log
};

// The requests with correlations `corrs` in the event log `events`.
HopBreakdown hop_breakdown(const std::filesystem::path& events, const std::vector<std::string>& corrs);

// ---- figures --------------------------------------------------------------------------------

double percentile(std::vector<double> v, double q);  // q in [0, 1]; nearest rank
double median(const std::vector<double>& v);

}  // namespace pmixflow::bench
