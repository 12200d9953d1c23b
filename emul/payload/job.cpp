// What a job's processes run in the emulator (started by emul/src/real_processes.cpp):
//
//   pmixflow-job --runtime SECONDS --speed X [--exit-code N | --exit-signal N] [-- CMD ARGS...]
//
// It runs SECONDS of scenario time, SECONDS / X of wall time, during which it is not stopped,
// then exits with N, or dies by signal N, or with the daemon that started it. What follows `--`
// is the command the scenario named, shown by `ps` and otherwise ignored. Bad arguments: a message on stderr and exit
// status 2. It links nothing but the C and C++ runtimes: it is started for every process of every job.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "version.hpp"

namespace {

// Set by the SIGCONT handler: the process was stopped since the flag was cleared.
volatile sig_atomic_t continued = 0;

void on_continue(int) { continued = 1; }

struct Options {
  double runtime = -1;
  double speed = 1;
  int exit_code = 0;
  int exit_signal = 0;
};

template <class T>
bool parse(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Only a signal whose default action ends the process: with another the process would go on
// (or stop for good) instead of ending as the app says.
bool ends_a_process(int signal) {
  if (signal < 1 || signal > 64) return false;
  for (int s : {SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH})
    if (s == signal) return false;
  return true;
}

std::optional<Options> read_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (i + 1 == argc) return std::nullopt;  // every option takes a value
    const std::string_view value = argv[++i];
    bool ok = false;
    if (arg == "--runtime") ok = parse(value, o.runtime) && std::isfinite(o.runtime) && o.runtime >= 0;
    if (arg == "--speed") ok = parse(value, o.speed) && std::isfinite(o.speed) && o.speed > 0;
    if (arg == "--exit-code") ok = parse(value, o.exit_code);
    if (arg == "--exit-signal") ok = parse(value, o.exit_signal) && ends_a_process(o.exit_signal);
    if (!ok) return std::nullopt;
  }
  if (o.runtime < 0) return std::nullopt;
  return o;
}

double monotonic_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Runs `wall` seconds of time during which the process is not stopped, as the simulator's
// stopped processes make no progress. A SIGSTOP cannot be caught, but the SIGCONT that ends it
// can: time is counted in short steps, and a step across which a SIGCONT arrived is not counted
// at all, since how much of it passed stopped is unknown. A stop thus costs up to one step of
// progress (5 ms of wall time), and a process wakes 200 times a second: the step is the
// trade-off between the two.
void run_for(double wall) {
  constexpr double kStep = 0.005;
  double done = 0;
  while (done < wall) {
    continued = 0;
    const double from = monotonic_seconds();
    const double step = std::min(kStep, wall - done);
    timespec nap{0, static_cast<long>(step * 1e9)};
    nanosleep(&nap, nullptr);  // a SIGCONT cuts it short: the loop measures, not trusts it
    const double to = monotonic_seconds();
    if (!continued) done += to - from;
  }
}

[[noreturn]] void die_by(int signal) {
  // The app's end is described, not a crash worth a core file (which core_pattern "core"
  // would write into the job's directory).
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(signal, &dfl, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  raise(signal);
  std::_Exit(128 + signal);  // not reached: every signal read_options takes ends a process
}

void on_application_signal(int) {}

// Started by a daemon (PMIXFLOW_DAEMON_PID: posix_spawn cannot ask for it itself), the process
// dies with it, as PRRTE's processes die with their daemon. False when that daemon is gone
// already: the process was left to another parent before it could ask.
bool dies_with_its_daemon() {
  const char* daemon = std::getenv("PMIXFLOW_DAEMON_PID");
  if (!daemon) return true;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  long pid = 0;
  return parse(std::string_view(daemon), pid) && pid == static_cast<long>(getppid());
}

// The job is an application that handles its signals, as the simulator's processes are: only
// SIGHUP, SIGINT, SIGTERM and SIGKILL end it (sim/src/timed_processes.cpp, terminates()); any
// other a session's PMIX_SESSION_SIGNAL delivers is caught and the job runs on. SIGSTOP and
// SIGCONT keep their meaning. (An --exit-signal is raised with its default action restored.)
void handle_application_signals() {
  struct sigaction caught {};
  caught.sa_handler = on_application_signal;
  sigemptyset(&caught.sa_mask);
  for (int s = 1; s < NSIG; ++s) {
    if (s == SIGHUP || s == SIGINT || s == SIGTERM || s == SIGKILL || s == SIGSTOP || s == SIGCONT) continue;
    sigaction(s, &caught, nullptr);  // fails harmlessly for the numbers that are no signal
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::printf("%s\n", pmixflow::version::version_text("pmixflow-job").c_str());
    return 0;
  }
  const std::optional<Options> options = read_options(argc, argv);
  if (!options) {
    std::fputs(
        "usage: pmixflow-job --runtime SECONDS --speed X [--exit-code N | --exit-signal N] [-- CMD ARGS...]\n"
        "       pmixflow-job --version\n"
        "  SECONDS >= 0 of scenario time, X > 0 its speed over the wall clock, N of --exit-signal a\n"
        "  signal 1..64 that ends a process\n",
        stderr);
    return 2;
  }
  if (!dies_with_its_daemon()) return 127;
  handle_application_signals();
  struct sigaction on_cont {};
  on_cont.sa_handler = on_continue;
  sigemptyset(&on_cont.sa_mask);
  sigaction(SIGCONT, &on_cont, nullptr);
  run_for(options->runtime / options->speed);
  if (options->exit_signal != 0) die_by(options->exit_signal);
  return options->exit_code;
}
