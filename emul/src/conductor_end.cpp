// The end of an emulation: the flow gone quiet (or stuck with calls unanswered, a timeout, an
// interruption, a party that could not start or died), every party told to stop and waited for,
// nothing left running; and the log written in time order as the parties' clocks allow.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <string.h>
#include <fstream>
#include <sstream>

#include "conductor.hpp"

namespace pmixflow::emul {
namespace {

constexpr auto kCheckEvery = std::chrono::milliseconds(20);
// Parties told to stop have this long to go before they are killed.
constexpr auto kStopGrace = std::chrono::seconds(3);
// How long the parties up from time 0 may take to be ready.
constexpr auto kStartupLimit = std::chrono::seconds(60);
// How many unanswered calls a cut run names.
constexpr std::size_t kCallsNamed = 5;

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

std::string wait_text(int status) {
  if (WIFSIGNALED(status)) {
    const int s = WTERMSIG(status);
    const char* name = sigabbrev_np(s);
    return "killed by signal " + std::to_string(s) + (name ? std::string(" (SIG") + name + ")" : std::string());
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

}  // namespace

void Conductor::check_quiet() {
  quiet_check_ = loop_.after(kCheckEvery, [this] { check_quiet(); });
  if (clock_started_) write_settled();
  if (ending_ != Ending::Running) {
    bool all_gone = true;
    for (auto& [serial, p] : parties_) all_gone = all_gone && p->exited && !(p->link && p->link->open());
    if (all_gone) {
      merge_.flush_all();
      loop_.stop();
    }
    return;
  }
  if (!clock_started_) {
    if (SteadyClock::now() - last_activity_ > kStartupLimit) finish(Ending::Failed, "the parties did not start");
    return;
  }
  if (options_.hold) return;
  if (options_.timeout_s > 0 && clock_.now() / clock_.speed > options_.timeout_s)
    return finish(Ending::Timeout,
                  "the flow was still going after " + seconds_text(options_.timeout_s) + " s (" + still_going() + ")");
  // A party whose line has closed but whose process has not ended yet (a requestor leaving, its
  // exit still running: slow under a sanitizer or load) holds the end back: its peers hear of its
  // end only when it has ended (on_exit), and the flow may still answer that.
  bool candidate = timeline_pending_ == 0;
  for (auto& [serial, p] : parties_)
    candidate = candidate && (p->exited || (p->idle && p->ready && p->link && p->link->open()));
  if (!candidate) {
    wave_open_ = false;
    last_wave_.reset();
    return;
  }
  ask_wave();
}

// The log is written up to the earliest clock among the parties that may still log (and the
// emulation's own): every event stamped before it is in, whatever the load. A party whose clock
// lags the oldest event held is asked for it; a stopped party holds the log back until it runs
// again, and a party whose line has closed (it has ended, its last events read) holds it no more.
void Conductor::write_settled() {
  double settled = clock_.now();
  for (auto& [serial, p] : parties_)
    if (p->went && p->link && p->link->open()) settled = std::min(settled, p->clock);
  merge_.flush_before(settled);
  if (merge_.held() == 0) return;
  const double oldest = merge_.oldest();
  for (auto& [serial, p] : parties_)
    if (p->went && p->link && p->link->open() && p->clock <= oldest && !p->clock_asked) {
      p->clock_asked = true;
      send(*p, control::Probe{0});
    }
}

// Termination is found as in distributed systems: every party is asked, on its own line and from
// its own loop, whether it has anything to do and how many messages it has sent and handled; the
// flow is over when two rounds running find every party idle with the same counts and nothing
// else heard in between. A party stopped or busy with a message does not answer or answers busy:
// the run waits for it, however long.
void Conductor::ask_wave() {
  if (wave_open_) {
    for (auto& [serial, p] : parties_)
      if (!p->exited && p->link && p->link->open() && p->answered_wave != wave_) return;
    return settle_wave();
  }
  wave_open_ = true;
  wave_changes_ = changes_;
  ++wave_;
  for (auto& [serial, p] : parties_)
    if (!p->exited && p->link && p->link->open()) send(*p, control::Probe{wave_});
}

void Conductor::settle_wave() {
  wave_open_ = false;
  bool idle = changes_ == wave_changes_;
  Census census;
  for (auto& [serial, p] : parties_) {
    if (p->exited || !(p->link && p->link->open())) continue;
    idle = idle && p->state.idle;
    census.push_back({serial, p->state.sent, p->state.handled, p->state.calls});
  }
  if (!idle) {
    last_wave_.reset();
    return;
  }
  if (last_wave_ && *last_wave_ == census) return end_settled(census);
  last_wave_ = std::move(census);
}

void Conductor::end_settled(const Census& census) {
  std::uint64_t calls = 0;
  for (const auto& c : census) calls += c[3];
  if (calls == 0) return finish(Ending::Quiet);
  // Nothing can move any more, and calls wait: the flow is stuck, as the simulator says it.
  std::string waiting;
  for (const auto& [serial, p] : parties_)
    if (!p->exited && p->state.calls > 0)
      waiting += (waiting.empty() ? "" : ", ") + p->name + " waits for " + std::to_string(p->state.calls) +
                 (p->state.calls == 1 ? " answer" : " answers");
  finish(Ending::Stalled, waiting);
}

void Conductor::died(Party& p) {
  std::string why = p.name + "'s process " + (p.status ? wait_text(*p.status) : std::string("ended")) +
                    ", not by the scenario; " + in_flight();
  log_as(p.name, ev::PartyDown{});
  finish(Ending::Failed, why);
}

std::string Conductor::in_flight() const {
  if (open_calls_.empty()) return "no call was in flight";
  std::string text =
      std::to_string(open_calls_.size()) + (open_calls_.size() == 1 ? " call" : " calls") + " in flight: ";
  std::size_t n = 0;
  for (const auto& [corr, who] : open_calls_) {
    if (n++ == kCallsNamed) {
      text += ", ...";
      break;
    }
    text += (n > 1 ? ", " : "") + corr + " (" + who + ")";
  }
  return text;
}

std::string Conductor::still_going() const {
  // Whom the run was waiting on: what a user needs to tell a slow flow from a wedged party.
  std::string busy, unready;
  for (const auto& [serial, p] : parties_) {
    if (p->exited) continue;
    if (!p->ready)
      unready += (unready.empty() ? "" : ", ") + p->name;
    else if (!p->idle || !p->state.idle)
      busy += (busy.empty() ? "" : ", ") + p->name;
  }
  std::string text;
  if (!busy.empty()) text = "busy: " + busy;
  if (!unready.empty()) text += (text.empty() ? "" : "; ") + std::string("not ready: ") + unready;
  if (text.empty()) text = "every party idle";
  return text + "; " + in_flight();
}

void Conductor::interrupt(const std::string& why) {
  if (ending_ == Ending::Running) finish(Ending::Interrupted, why);
}

void Conductor::finish(Ending how, const std::string& why) {
  ending_ = how;
  if (how == Ending::Quiet || how == Ending::Stalled) settled_at_ = clock_.now();
  if (!why.empty() && failure_.empty()) failure_ = why;
  // Quiet: each party finishes its PMIx (rendezvous files go) and exits. Otherwise the flow is
  // cut where it stands.
  for (auto& [serial, p] : parties_) {
    if (p->exited) continue;
    if (how == Ending::Quiet || how == Ending::Stalled)
      send(*p, control::Stop{});
    else
      signal_child(p->child.pid, SIGKILL);
  }
  loop_.after(kStopGrace, [this] {
    for (auto& [serial, p] : parties_)
      if (!p->exited) signal_child(p->child.pid, SIGKILL);
  });
}

void Conductor::stop_all() {
  // The last word, whatever happened before: nothing this emulation started outlives it.
  for (auto& [serial, p] : parties_) {
    if (p->exited) continue;
    signal_child(p->child.pid, SIGKILL);
    int status = 0;
    ::waitpid(p->child.pid, &status, 0);
    p->exited = true;
  }
}

void Conductor::write_servers_file() const {
  // Where a tool attaches by hand (pmixflow request --emulation DIR): readable by this user only.
  nlohmann::json servers = nlohmann::json::array();
  for (const auto& e : directory_.servers())
    servers.push_back({{"party", std::string(directory_.name_of(e.address))},
                       {"nspace", e.proc.nspace},
                       {"rank", e.proc.rank},
                       {"uri", e.uri}});
  const std::string path = dir_.path() + "/servers.json", tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << servers.dump(2) << "\n";
  }
  ::chmod(tmp.c_str(), 0600);
  std::rename(tmp.c_str(), path.c_str());
}

nlohmann::json Conductor::stats() const {
  return {{"scenario_time_s", merge_.last_time()},
          {"wall_s", clock_started_ ? clock_.now() / clock_.speed : 0.0},
          {"speed", clock_.speed},
          {"messages", messages_},
          {"processes_started", parties_started_},
          {"daemons_started", daemons_started_},
          {"events_late", merge_.late()},
          {"lateness", lateness_figures(lateness_, tightest_spacing(deployment_), clock_.speed)}};
}

}  // namespace pmixflow::emul
