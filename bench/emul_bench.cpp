// The emulator over real PMIx against its floor, measured in one run (issue 10, point 9):
//   1. round trip: one PMIx tool attached to a daemon of a held emulation asks K times for an
//      allocation (PMIX_ALLOC_NEW, PMIX_ALLOC_NUM_CPUS=1: requestor -> daemon -> controller ->
//      scheduler -> back), each released after; beside it the same tool loop against a bare PMIx
//      server whose allocate up-call answers at once (the floor: the least one PMIx round trip
//      costs). p50, p99, requests/s, the ratio; where the emulation's time goes, from its log;
//   2. whole process: what a user waits for, `pmixflow request` from fork to exit, beside a bare
//      one-shot tool process against the floor;
//   3. capacity: emulations of N daemons: start-up time, processes, memory per daemon.
//   bench_emul [K] [NODES,NODES,...]     (default 200 2,8,32,64,128,256,512)
// The machine may be doing other work: every figure is this run's, and the ratios are taken
// between figures measured side by side.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <pmix.h>

#include "emul_bench.hpp"

namespace pmixflow::bench {
namespace {

using namespace std::chrono_literals;

constexpr double kTarget = 3.0;     // issue 10: p50 within 3x the floor
constexpr int kWarmup = 20;         // per tool process: first connection, first sessions, caches; not timed
constexpr int kRounds = 2;          // round-trip loops per path, alternating
constexpr int kWholeRuns = 7;       // processes per whole-process figure (median)
constexpr int kCapacityK = 50;      // timed requests per capacity point
constexpr auto kStartLimit = 180s;  // an emulation not up by then is not held
constexpr double kStopAfterS = 60;  // a start-up this long: no larger emulation is tried

struct Options {
  int k = 200;
  std::vector<int> nodes{2, 8, 32, 64, 128, 256, 512};
};

struct Loop {
  std::vector<double> news, releases;  // microseconds
  Clock::time_point first_ok;
  bool ok = false;
  Sched servers;     // what the server side's processes did during the loop
  double calls = 0;  // the loop's calls, warm-up and releases included
};

std::string self() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

Options parse(int argc, char** argv) {
  Options o;
  if (argc > 1) o.k = std::max(1, std::atoi(argv[1]));
  if (argc > 2) {
    o.nodes.clear();
    std::stringstream s(argv[2]);
    for (std::string n; std::getline(s, n, ',');)
      if (std::atoi(n.c_str()) > 0) o.nodes.push_back(std::atoi(n.c_str()));
  }
  return o;
}

std::vector<double> numbers_after(const std::string& text, const std::string& name) {
  std::vector<double> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + " ", 0) != 0 && line != name) continue;
    std::istringstream l(line.substr(name.size()));
    for (double x; l >> x;) v.push_back(x);
  }
  return v;
}

// One tool loop in a child process of its own (emul_tool.cpp, loop_main), against the server
// side made of the processes `servers`; `meanwhile` runs while the loop does.
Loop run_loop(const std::string& uri, const std::string& nspace, int k, int warmup,
              const std::vector<pid_t>& servers = {}, const std::function<void()>& meanwhile = {}) {
  const Sched before = sched_of(servers);
  Child c({self(), "--loop", uri, nspace, std::to_string(k), std::to_string(warmup)});
  if (meanwhile) meanwhile();
  std::string out;
  Loop l;
  l.ok = c.finish(out) == 0;
  l.servers = sched_of(servers) - before;
  l.calls = 2.0 * (k + warmup);
  l.news = numbers_after(out, "new");
  l.releases = numbers_after(out, "release");
  const auto first = numbers_after(out, "first_ok_ns");
  if (!first.empty()) l.first_ok = Clock::time_point(Clock::duration(static_cast<Clock::rep>(first.front())));
  l.ok = l.ok && static_cast<int>(l.news.size()) == k;
  return l;
}

double per_s(const std::vector<double>& us) {
  const double total = std::accumulate(us.begin(), us.end(), 0.0);
  return total > 0 ? 1e6 * static_cast<double>(us.size()) / total : 0;
}

void print_machine(const Options& o) {
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  std::printf("bench_emul: OpenPMIx %s; %ld cores; load average %.2f at the start; %.0f MiB available\n",
              PMIx_Get_version(), ::sysconf(_SC_NPROCESSORS_ONLN), load[0], available_mib());
  std::printf(
      "  (the machine may be running other work: every figure is this run's, each ratio is of figures "
      "measured side by side)\n");
  std::printf(
      "round trip: %d timed PMIx_Allocation_request(PMIX_ALLOC_NEW, PMIX_ALLOC_NUM_CPUS=1) after %d "
      "warm-up, one in flight, each followed by its PMIX_ALLOC_RELEASE (timed apart)\n",
      o.k, kWarmup);
}

void print_loop_row(const char* name, const Loop& l) {
  std::printf("  %-58s %8.1f %8.1f %8.0f %10.1f\n", name, median(l.news), percentile(l.news, 0.99), per_s(l.news),
              median(l.releases));
}

struct RoundTrip {
  Loop emul, quiet, floor;
  std::vector<std::string> corrs;  // the emulation's timed requests, for its event log
};

void append(Loop& to, const Loop& l) {
  to.servers = Sched{to.servers.cpu_us + l.servers.cpu_us, to.servers.wait_us + l.servers.wait_us,
                     to.servers.runs + l.servers.runs};
  to.calls += l.calls;
  to.news.insert(to.news.end(), l.news.begin(), l.news.end());
  to.releases.insert(to.releases.end(), l.releases.begin(), l.releases.end());
}

// In alternating rounds, each loop a fresh tool process: a machine whose load changes during the
// run weighs on the three alike.
bool round_trips(int k, const Child& floor, const std::string& floor_uri, const HeldEmulation& e,
                 const HeldEmulation& q, RoundTrip& rt) {
  for (int r = 0; r < kRounds; ++r) {
    const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(r);
    const int n = k / kRounds + (r < k % kRounds);
    const Loop a = run_loop(e.uri_of("daemon:n01"), "bench-emul-" + tag, n, kWarmup, e.processes());
    const Loop b = run_loop(q.uri_of("daemon:n01"), "bench-quiet-" + tag, n, kWarmup, q.processes());
    const Loop c = run_loop(floor_uri, "bench-floor-" + tag, n, kWarmup, {floor.pid()});
    if (!a.ok || !b.ok || !c.ok) return false;
    append(rt.emul, a);
    append(rt.quiet, b);
    append(rt.floor, c);
    for (int i = kWarmup + 1; i <= kWarmup + n; ++i) rt.corrs.push_back(loop_corr("bench-emul-" + tag, i));
  }
  return true;
}

void print_ratio(const char* what, const Loop& l, const Loop& floor) {
  const double ratio = median(l.news) / median(floor.news);
  std::printf("  p50 %s / p50 floor = %.2f   target <= %.0f: %s\n", what, ratio, kTarget,
              ratio <= kTarget ? "holds" : "DOES NOT HOLD");
}

void print_round_trip(const RoundTrip& rt) {
  std::printf("  %-58s %8s %8s %8s %10s\n", "path", "p50 us", "p99 us", "req/s", "release p50");
  print_loop_row("emulation: tool -> daemon:n01 -> controller -> scheduler -> back", rt.emul);
  print_loop_row("the same, emulation run with --no-events (no event log)", rt.quiet);
  print_loop_row("floor: tool -> bare PMIx server, allocate answered at once", rt.floor);
  print_ratio("emulation", rt.emul, rt.floor);
  print_ratio("emulation --no-events", rt.quiet, rt.floor);
  std::printf("the server side's processes per call (NEW or RELEASE), all their threads (/proc/*/task/*/schedstat):\n");
  std::printf("  %-58s %8s %8s %8s\n", "", "CPU us", "wait us", "runs");
  for (const auto& [name, l] :
       {std::pair<const char*, const Loop&>{"emulation (emulation, controller, scheduler, daemons)", rt.emul},
        {"emulation --no-events", rt.quiet},
        {"floor server", rt.floor}})
    std::printf("  %-58s %8.1f %8.1f %8.1f\n", name, l.servers.cpu_us / l.calls, l.servers.wait_us / l.calls,
                l.servers.runs / l.calls);
  std::printf("  (wait: ready to run but waiting for a core; runs: times a thread was put on a core)\n");
}

void print_hops(const HopBreakdown& h, double rtt_p50, double floor_p50) {
  std::printf("where the emulation's round trip goes (its event log; p50 of each step over %zu requests):\n",
              h.requests);
  int crossings = 2;  // the tool's request to the daemon and the daemon's answer
  for (const auto& hop : h.hops) {
    std::printf("  %-70s %8.1f us\n", hop.label.c_str(), hop.p50_us);
    crossings += hop.label.find(" -> ") != std::string::npos;
  }
  std::printf("  %-70s %8.1f us\n", "daemon's recv of the request to its send of the answer (p50)", h.inside_p50_us);
  std::printf("  %-70s %8.1f us\n", "the rest: tool <-> daemon over PMIx, both ways, and the tool's side",
              rtt_p50 - h.inside_p50_us);
  // The floor crosses twice (there and back); the flow's path crosses this many times, so even at
  // the floor's price per crossing it could not come closer than crossings/2 times the floor.
  std::printf(
      "  process boundaries crossed: %d (the floor: 2); at the floor's %.1f us per crossing the path would "
      "take %.1f us = %.1fx the floor; it takes %.1f us per crossing\n",
      crossings, floor_p50 / 2, crossings * floor_p50 / 2, crossings / 2.0, rtt_p50 / crossings);
}

std::string alloc_id_in(const std::string& answer) {
  const auto at = answer.find("PMIX_ALLOC_ID=");
  if (at == std::string::npos) return {};
  const auto from = at + 14;
  return answer.substr(from, answer.find_first_of(" \n", from) - from);
}

// A `pmixflow request` through daemon:n01, timed; what it was granted released, not timed.
double emulation_request(const HeldEmulation& e, bool& ok) {
  const std::string bin = PMIXFLOW_BIN;
  std::string out, ignored;
  int rc = 0;
  const double t = timed_run(
      {bin, "request", "--emulation", e.dir(), "--via", "daemon:n01", "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"}, out,
      rc);
  ok = ok && rc == 0;
  const std::string id = alloc_id_in(out);
  if (!id.empty())
    timed_run(
        {bin, "request", "--emulation", e.dir(), "--via", "daemon:n01", "PMIX_ALLOC_RELEASE", "PMIX_ALLOC_ID=" + id},
        ignored, rc);
  return t;
}

struct Whole {
  std::vector<double> emul, req_floor, bare_floor, start;  // seconds
  bool ok = true;
};

Whole whole_process(const HeldEmulation& e, const std::string& floor_uri) {
  const std::string bin = PMIXFLOW_BIN;
  Whole w;
  for (int r = 0; r < kWholeRuns; ++r) {  // interleaved: the machine's moods fall on all four alike
    std::string out;
    int rc = 0;
    w.emul.push_back(emulation_request(e, w.ok));
    w.bare_floor.push_back(timed_run({self(), "--one-shot", floor_uri}, out, rc));
    w.ok = w.ok && rc == 0;
    w.req_floor.push_back(
        timed_run({bin, "request", "--uri", floor_uri, "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"}, out, rc));
    w.ok = w.ok && rc == 0;
    w.start.push_back(timed_run({bin, "request", "--help"}, out, rc));
  }
  return w;
}

void print_whole(const Whole& w) {
  std::printf("whole process: fork to exit, median of %d runs each%s\n", kWholeRuns,
              w.ok ? "" : "  (SOME RUNS FAILED)");
  std::printf("  %-72s %7.1f ms\n", "pmixflow request --emulation DIR --via daemon:n01 PMIX_ALLOC_NEW ...",
              1e3 * median(w.emul));
  std::printf("  %-72s %7.1f ms\n", "pmixflow request --uri FLOOR PMIX_ALLOC_NEW ...", 1e3 * median(w.req_floor));
  std::printf("  %-72s %7.1f ms\n", "floor: bench_emul --one-shot FLOOR (a bare tool: init, attach, call, finalize)",
              1e3 * median(w.bare_floor));
  std::printf("  %-72s %7.1f ms\n", "pmixflow request --help (the program's start alone, no PMIx)",
              1e3 * median(w.start));
  std::printf("  pmixflow request via the emulation / bare one-shot against the floor = %.2f\n",
              median(w.emul) / median(w.bare_floor));
}

struct Footprint {
  int processes = 1;  // the emulation's own
  int daemons = 0;
  Memory daemon, all;  // sums
};

void add(Memory& to, const Memory& m) {
  to.rss_mib += m.rss_mib;
  to.pss_mib += m.pss_mib;
  to.uss_mib += m.uss_mib;
}

Footprint footprint(const HeldEmulation& e) {
  Footprint f;
  add(f.all, memory_of(e.pid()));
  for (pid_t p : e.parties()) {
    const Memory m = memory_of(p);
    ++f.processes;
    add(f.all, m);
    if (command_line(p).find("--as daemon:") == std::string::npos) continue;
    ++f.daemons;
    add(f.daemon, m);
  }
  return f;
}

void print_capacity_header() {
  std::printf(
      "capacity: `pmixflow emul --hold --nodes N` (one daemon process per node, plus the emulation, the "
      "controller and the scheduler)\n");
  std::printf("  %5s %6s %8s %8s %8s %7s %7s %7s %7s %7s %7s %9s %8s\n", "N", "procs", "hold msg", "listed s",
              "answer s", "p50 us", "RSS/dmn", "PSS/dmn", "USS/dmn", "RSS all", "PSS all", "CPU/party", "CPU emul");
  std::printf(
      "  (hold msg: launch until `pmixflow emul: holding` is printed; listed: until servers.json lists every "
      "server; answer: until a tool's first request through the last daemon is granted; p50 of %d requests "
      "through it; memory in MiB, USS: a process's private pages; CPU: ms of CPU a party's process took to "
      "start, median, and the emulation's own, both until listed)\n",
      kCapacityK);
}

// One emulation of n daemons: its start-up, a short loop through its last daemon, its memory.
// Returns the start-up time, or nothing when it did not come up.
std::optional<double> capacity_point(const std::filesystem::path& scratch, int n, double& pss_per_party) {
  HeldEmulation e(scratch / ("capacity-" + std::to_string(n)), n);
  const auto listed = e.wait_until_listed(kStartLimit);
  if (!listed) {
    std::printf("  %5d  not up within %lld s: %s\n", n, static_cast<long long>(kStartLimit.count()), e.err().c_str());
    return std::nullopt;
  }
  // The CPU the start-up took, before any request: a party's process start is what N multiplies.
  std::vector<double> party_cpu;
  for (pid_t p : e.parties()) party_cpu.push_back(sched_of({p}).cpu_us / 1e3);
  const double emul_cpu = sched_of({e.pid()}).cpu_us / 1e3;
  // The hold's message is read as it comes, while the loop runs (a line read later is seen late):
  // it is printed a fixed time after the launch, which may be before or after the servers are up.
  std::optional<double> hold;
  const auto hold_limit = std::max(std::chrono::seconds(5), std::chrono::seconds(static_cast<int>(*listed) + 1));
  const Loop l = run_loop(e.uri_of(e.last_daemon()), "bench-capacity-" + std::to_string(n), kCapacityK, 5, {},
                          [&] { hold = e.hold_printed(hold_limit); });
  const double answer = l.ok ? std::chrono::duration<double>(l.first_ok - e.launched()).count() : -1;
  const Footprint f = footprint(e);  // after the loop: the daemons as they are once they have served
  const double d = std::max(1, f.daemons);
  std::printf("  %5d %6d %8.2f %8.2f %8.2f %7.1f %7.1f %7.1f %7.1f %7.0f %7.0f %9.1f %8.0f%s\n", n, f.processes,
              hold.value_or(-1), *listed, answer, l.ok ? median(l.news) : -1.0, f.daemon.rss_mib / d,
              f.daemon.pss_mib / d, f.daemon.uss_mib / d, f.all.rss_mib, f.all.pss_mib, median(party_cpu), emul_cpu,
              f.daemons == n ? "" : "  (daemon count differs!)");
  pss_per_party = f.all.pss_mib / std::max(1, f.processes);
  return *listed;
}

void capacity(const std::filesystem::path& scratch, const Options& o) {
  print_capacity_header();
  double pss_per_party = 0;
  for (int n : o.nodes) {
    // Memory is the hard limit of how many daemons this machine holds: stop before half of it.
    if (pss_per_party * (n + 3) > available_mib() / 2) {
      std::printf("  %5d  not tried: about %.0f MiB would be more than half of what is available\n", n,
                  pss_per_party * (n + 3));
      break;
    }
    const auto up = capacity_point(scratch, n, pss_per_party);
    if (!up) break;
    if (*up > kStopAfterS) {
      std::printf("  (start-up above %.0f s: no larger emulation tried)\n", kStopAfterS);
      break;
    }
  }
}

// The scratch directory of one run, removed at its end.
struct Scratch {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("pmixflow-bench-emul-" + std::to_string(::getpid()));
  Scratch() { std::filesystem::create_directories(path / "floor"); }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

int fail(const std::string& what) {
  std::fflush(stdout);  // what was printed before, before the reason it stopped
  std::fprintf(stderr, "bench_emul: %s\n", what.c_str());
  return 1;
}

int bench(const Options& o) {
  const Scratch scratch;
  print_machine(o);
  Child floor({self(), "--floor-server", (scratch.path / "floor").string()}, {}, scratch.path / "floor.err");
  const auto line = floor.line(10s);
  if (!line || line->rfind("uri ", 0) != 0) return fail("the floor server did not start");
  const std::string floor_uri = line->substr(4);
  HeldEmulation e(scratch.path / "round-trip", 2), q(scratch.path / "round-trip-quiet", 2, {"--no-events"});
  if (!e.wait_until_listed(kStartLimit) || !q.wait_until_listed(kStartLimit))
    return fail("the emulation did not come up: " + e.err() + q.err());
  RoundTrip rt;
  if (!round_trips(o.k, floor, floor_uri, e, q, rt)) return fail("a tool loop failed (its message is above)");
  q.stop();
  const Whole whole = whole_process(e, floor_uri);
  e.stop();  // its event log is whole once it has stopped
  floor.stop();
  print_round_trip(rt);
  print_hops(hop_breakdown(e.events(), rt.corrs), median(rt.emul.news), median(rt.floor.news));
  print_whole(whole);
  std::fflush(stdout);
  capacity(scratch.path, o);
  return 0;
}

}  // namespace
}  // namespace pmixflow::bench

int main(int argc, char** argv) {
  using namespace pmixflow::bench;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--floor-server" && argc == 3) return floor_server_main(argv[2]);
  if (mode == "--loop" && argc == 6) return loop_main(argv[2], argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
  if (mode == "--one-shot" && argc == 3) return one_shot_main(argv[2]);
  if (mode.rfind("--", 0) == 0) {  // a mode mistyped must not start a whole bench in a child
    std::fprintf(stderr, "usage: bench_emul [K] [NODES,NODES,...]\n");
    return 2;
  }
  try {
    return bench(parse(argc, argv));
  } catch (const std::exception& e) {  // caught, so that what the bench started is stopped on the way out
    std::fprintf(stderr, "bench_emul: %s\n", e.what());
    return 1;
  }
}
