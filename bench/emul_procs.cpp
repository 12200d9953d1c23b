// The processes bench_emul starts, and what it reads of them in /proc. Everything it starts is in
// a process group of its own and is ended by the object that started it, however the bench ends
// short of SIGKILL: a benchmark must not leave an emulation running on a shared machine.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "emul_bench.hpp"

namespace pmixflow::bench {
namespace {

using namespace std::chrono_literals;

// A group told to stop (SIGINT: an emulation then stops its parties in order) has this long.
constexpr auto kStopGrace = 5s;

// Two compute nodes' worth of nothing: a controller with every node in its DVM from the start, a
// scheduler attached, no requestor. Nothing happens until a tool asks (hand_tools_test.cpp's).
constexpr const char* kScenario =
    R"({"format":"pmixflow-scenario","version":1,"name":"bench-emul","description":"held for bench_emul's tools","controller":{"dvm":"all"}})";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void pipe_or_throw(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, int out, int in,
                             const std::filesystem::path& err_file, pid_t parent) {
  ::setpgid(0, 0);
  // The bench killed outright (or by a Ctrl-C its children, in groups of their own, do not see)
  // still stops what it started: an emulation takes SIGTERM as it takes Ctrl-C, in order.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(127);
  ::dup2(out, 1);
  ::dup2(in, 0);
  if (!err_file.empty()) {
    const int fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) ::dup2(fd, 2);
  }
  // The bench's own process has no thread when it forks: the environment may be changed here.
  for (const auto& e : env) {
    const auto eq = e.find('=');
    ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

long kib_field(const std::filesystem::path& file, const std::string& name) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name, 0) == 0) return std::atol(line.c_str() + name.size());
  return 0;
}

}  // namespace

Child::Child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             const std::filesystem::path& err_file) {
  int out[2], in[2];
  pipe_or_throw(out);
  pipe_or_throw(in);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid_ == 0) exec_child(argv, env, out[1], in[0], err_file, parent);
  ::setpgid(pid_, pid_);  // as the child does: whichever runs first, the group exists before a signal
  ::close(out[1]);
  ::close(in[0]);
  out_ = out[0];
  in_ = in[1];
}

Child::~Child() { stop(); }

bool Child::running() {
  int status = 0;
  if (pid_ <= 0 || ::waitpid(pid_, &status, WNOHANG) == 0) return pid_ > 0;
  pid_ = -1;  // reaped: it ended on its own
  return false;
}

std::optional<std::string> Child::line(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (const auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string l = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return l;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{out_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<decltype(left)>(left, 0))) <= 0) return std::nullopt;
    char buf[4096];
    const ssize_t n = ::read(out_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    buffered_.append(buf, static_cast<std::size_t>(n));
  }
}

int Child::finish(std::string& out) {
  out = std::exchange(buffered_, {});
  char buf[65536];
  ssize_t n;
  while ((n = ::read(out_, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  stop();  // closes the pipes
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void Child::stop() {
  if (in_ >= 0) ::close(std::exchange(in_, -1));  // the floor server's word to stop
  if (pid_ > 0) {
    ::kill(-pid_, SIGINT);
    int status = 0;
    const auto deadline = Clock::now() + kStopGrace;
    while (::waitpid(pid_, &status, WNOHANG) == 0 && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (out_ >= 0) ::close(std::exchange(out_, -1));
}

double timed_run(const std::vector<std::string>& argv, std::string& out, int& rc) {
  const auto t0 = Clock::now();
  Child c(argv);
  rc = c.finish(out);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

HeldEmulation::HeldEmulation(const std::filesystem::path& scratch, int nodes, const std::vector<std::string>& extra)
    : scratch_(scratch), nodes_(nodes) {
  std::filesystem::create_directories(scratch_ / "tmp");
  std::ofstream(scratch_ / "scenario.jsonl") << kScenario << "\n";
  // --speed 1: the event log's times are wall seconds. --batch-delay 0: the scheduler decides on
  // each request as it comes instead of waiting 10 ms for others to decide together.
  const std::string scenario = (scratch_ / "scenario.jsonl").string(), out = (scratch_ / "out").string();
  std::vector<std::string> argv{PMIXFLOW_BIN, "emul", "--hold", "--speed", "1", "--batch-delay", "0"};
  for (const std::string& a :
       {std::string("--nodes"), std::to_string(nodes), std::string("--scenario"), scenario, std::string("--out"), out})
    argv.push_back(a);
  argv.insert(argv.end(), extra.begin(), extra.end());
  launched_ = Clock::now();
  emul_.emplace(argv, std::vector<std::string>{"TMPDIR=" + (scratch_ / "tmp").string()}, scratch_ / "emul.err");
}

HeldEmulation::~HeldEmulation() { stop(); }

std::optional<double> HeldEmulation::wait_until_listed(std::chrono::seconds limit) {
  const auto deadline = launched_ + limit;
  while (Clock::now() < deadline && emul_->running()) {
    hold_printed(std::chrono::seconds(0));
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(scratch_ / "tmp", ec)) {
      const auto servers = nlohmann::json::parse(slurp(e.path() / "servers.json"), nullptr, false);
      if (!servers.is_array()) continue;
      int daemons = 0;
      bool controller = false, scheduler = false;
      for (const auto& s : servers) {
        const std::string party = s.value("party", "");
        daemons += party.rfind("daemon:", 0) == 0;
        controller = controller || party == "controller";
        scheduler = scheduler || party == "scheduler";
      }
      if (daemons < nodes_ || !controller || !scheduler) continue;
      dir_ = e.path().string();
      return std::chrono::duration<double>(Clock::now() - launched_).count();
    }
    std::this_thread::sleep_for(2ms);
  }
  return std::nullopt;
}

std::optional<double> HeldEmulation::hold_printed(std::chrono::seconds limit) {
  while (!hold_printed_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(launched_ + limit - Clock::now());
    const auto l = emul_->line(std::max(left, std::chrono::milliseconds(0)));
    if (!l) break;
    if (l->rfind("pmixflow emul: holding", 0) == 0)
      hold_printed_ = std::chrono::duration<double>(Clock::now() - launched_).count();
  }
  return hold_printed_;
}

std::string HeldEmulation::uri_of(const std::string& party) const {
  const auto servers = nlohmann::json::parse(slurp(std::filesystem::path(dir_) / "servers.json"), nullptr, false);
  if (servers.is_array())
    for (const auto& s : servers)
      if (s.value("party", "") == party) return s.value("uri", "");
  return {};
}

std::string HeldEmulation::last_daemon() const {
  const auto servers = nlohmann::json::parse(slurp(std::filesystem::path(dir_) / "servers.json"), nullptr, false);
  std::string last;
  std::int64_t rank = -1;
  if (servers.is_array())
    for (const auto& s : servers)
      if (s.value("party", "").rfind("daemon:", 0) == 0 && s.value("rank", std::int64_t{-1}) > rank) {
        rank = s.value("rank", std::int64_t{-1});
        last = s.value("party", "");
      }
  return last;
}

std::vector<pid_t> HeldEmulation::parties() const {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (command_line(pid).find("pmixflow-party ") != std::string::npos &&
        slurp(e.path() / "environ").find(scratch_.string()) != std::string::npos)
      found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> HeldEmulation::processes() const {
  std::vector<pid_t> all = parties();
  if (pid() > 0) all.push_back(pid());
  return all;
}

void HeldEmulation::stop() {
  if (!emul_) return;
  emul_.reset();  // SIGINT: the emulation stops its parties and writes its log as far as it got
  // Each party is in a group of its own and dies with the emulation (PR_SET_PDEATHSIG); a party
  // still there now is killed all the same.
  for (pid_t p : parties()) ::kill(p, SIGKILL);
}

std::string HeldEmulation::err() const { return slurp(scratch_ / "emul.err"); }

std::string command_line(pid_t pid) {
  std::string text = slurp("/proc/" + std::to_string(pid) + "/cmdline");
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

Memory memory_of(pid_t pid) {
  const std::filesystem::path proc = "/proc/" + std::to_string(pid);
  const auto rollup = proc / "smaps_rollup";
  return Memory{kib_field(proc / "status", "VmRSS:") / 1024.0, kib_field(rollup, "Pss:") / 1024.0,
                (kib_field(rollup, "Private_Clean:") + kib_field(rollup, "Private_Dirty:")) / 1024.0};
}

Sched sched_of(const std::vector<pid_t>& pids) {
  Sched s;
  for (pid_t pid : pids) {
    std::error_code ec;
    for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
      std::ifstream in(t.path() / "schedstat");
      double cpu_ns = 0, wait_ns = 0, runs = 0;
      if (!(in >> cpu_ns >> wait_ns >> runs)) continue;
      s.cpu_us += cpu_ns / 1e3;
      s.wait_us += wait_ns / 1e3;
      s.runs += runs;
    }
  }
  return s;
}

Sched operator-(const Sched& a, const Sched& b) {
  return Sched{a.cpu_us - b.cpu_us, a.wait_us - b.wait_us, a.runs - b.runs};
}

double available_mib() { return kib_field("/proc/meminfo", "MemAvailable:") / 1024.0; }

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

double median(const std::vector<double>& v) { return percentile(v, 0.5); }

}  // namespace pmixflow::bench
