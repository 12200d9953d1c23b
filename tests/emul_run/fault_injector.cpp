#include "fault_injector.hpp"

#include <signal.h>

#include <algorithm>
#include <thread>

namespace pmixflow::test {

std::string Action::text() const {
  std::string what = blow == Blow::Kill ? "SIGKILL" : blow == Blow::Term ? "SIGTERM" : "SIGSTOP";
  if (blow == Blow::StopCont) what += " then SIGCONT after " + std::to_string(paused_s) + " s";
  std::string s = what + " to " + party + " at " + std::to_string(from_s) + ".." + std::to_string(to_s) + " s";
  if (!delivered) s += " (it had gone)";
  if (!alone) s += " (beside another process of that name)";
  return s;
}

std::map<std::string, std::vector<pid_t>> parties_of(const EmulRun& run) {
  std::map<std::string, std::vector<pid_t>> found;
  for (pid_t pid : processes_with_env(run.tmp().string())) {
    const std::string cmdline = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    const auto at = cmdline.find(std::string("--as") + '\0');
    if (at == std::string::npos) continue;
    const auto from = at + 5;
    found[cmdline.substr(from, cmdline.find('\0', from) - from)].push_back(pid);
  }
  return found;
}

// The clock has started once the scheduler's server is listed (it goes with the clock's start,
// and the list is written as it goes) or the log holds an event.
bool FaultInjector::wait_for_clock(std::chrono::seconds limit) {
  const auto started = [&] {
    const auto dir = run_.run_dir();
    if (dir && slurp(*dir / "servers.json").find("\"scheduler\"") != std::string::npos) return true;
    const std::string log = slurp(run_.out() / "events.jsonl");
    return std::count(log.begin(), log.end(), '\n') >= 2;
  };
  const auto deadline = Clock::now() + limit;
  auto looked = Clock::now();
  while (Clock::now() < deadline && running()) {
    if (started()) {
      // It started between the last look and this one: a harness kept off the CPU in between
      // knows the start only that well, and widens each signal's moment by as much.
      started_ = Clock::now();
      slack_s_ = std::chrono::duration<double>(started_ - looked).count();
      return true;
    }
    looked = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

bool FaultInjector::strike(double window_s, std::chrono::seconds limit) {
  // Everything random is drawn before the run is looked at, so that a seed always makes the
  // same moments, blows and pauses (which party a pick lands on depends on who is up then).
  std::vector<double> moments(1 + pick(3));
  for (double& m : moments) m = between(0.02, window_s);
  std::sort(moments.begin(), moments.end());
  if (!wait_for_clock(limit)) return false;
  for (double at : moments) {
    while (running() && since_start() < at) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (!running()) break;
    blow();
  }
  return true;
}

void FaultInjector::blow() {
  // Half the blows stop and continue: a kill usually ends the run, so the stops that come
  // after one would seldom be tried.
  const int draw = pick(4);
  const Blow blow = draw == 0 ? Blow::Kill : draw == 1 ? Blow::Term : Blow::StopCont;
  const double pick_party = between(0, 1);
  const double pause = between(0.05, 2.0);
  const auto parties = parties_of(run_);
  if (parties.empty()) return;
  auto it = parties.begin();
  std::advance(it, std::min<std::size_t>(parties.size() - 1, static_cast<std::size_t>(pick_party * parties.size())));
  const std::vector<pid_t>& pids = it->second;
  Action a{blow, it->first, blow == Blow::Kill ? SIGKILL : blow == Blow::Term ? SIGTERM : SIGSTOP};
  a.alone = pids.size() == 1;
  const pid_t pid = pids[static_cast<std::size_t>(pick_party * 1e6) % pids.size()];
  a.from_s = since_start();
  a.delivered = ::kill(pid, a.signal) == 0;
  a.to_s = since_start() + slack_s_;
  if (blow == Blow::StopCont && a.delivered) {
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    ::kill(pid, SIGCONT);
    a.paused_s = pause;
  }
  actions_.push_back(a);
}

}  // namespace pmixflow::test
