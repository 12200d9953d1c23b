// The end of an emulation: the flow gone quiet (or a timeout, an interruption, a party that
// could not start), every party told to stop and waited for, nothing left running.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "conductor.hpp"

namespace pmixflow::emul {
namespace {

// How long the flow must be quiet - every party idle, no event coming - before the run is over.
// Far above any hop's latency (sub-millisecond) and a daemon's start (tens of milliseconds).
constexpr auto kQuietFor = std::chrono::milliseconds(400);
// Events are held this long before they are written, for their order (event_merge.hpp): longer
// than a party's longest loop round on a busy machine (a daemon starting a job's processes while
// seven others do), after which its events leave (party_process.cpp).
constexpr double kHoldWall = 0.25;
constexpr auto kCheckEvery = std::chrono::milliseconds(20);
// Parties told to stop have this long to go before they are killed.
constexpr auto kStopGrace = std::chrono::seconds(3);
// How long the parties up from time 0 may take to be ready.
constexpr auto kStartupLimit = std::chrono::seconds(60);

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

}  // namespace

void Conductor::check_quiet() {
  quiet_check_ = loop_.after(kCheckEvery, [this] { check_quiet(); });
  if (clock_started_) merge_.flush_before(clock_.now() - kHoldWall * clock_.speed);
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
  if (options_.hold || timeline_pending_ > 0) return;
  if (options_.timeout_s > 0 && clock_.now() / clock_.speed > options_.timeout_s)
    return finish(Ending::Timeout, "the flow was still going after " + seconds_text(options_.timeout_s) +
                                       " s (" + still_going() + ")");
  for (auto& [serial, p] : parties_)
    if (!p->exited && (!p->idle || !p->ready)) return;
  if (SteadyClock::now() - last_activity_ < kQuietFor) return;
  finish(Ending::Quiet);
}

std::string Conductor::still_going() const {
  // Whom the run was waiting on: what a user needs to tell a slow flow from a wedged party.
  std::string busy, unready;
  for (const auto& [serial, p] : parties_) {
    if (p->exited) continue;
    if (!p->ready) unready += (unready.empty() ? "" : ", ") + p->name;
    else if (!p->idle) busy += (busy.empty() ? "" : ", ") + p->name;
  }
  std::string text;
  if (!busy.empty()) text = "busy: " + busy;
  if (!unready.empty()) text += (text.empty() ? "" : "; ") + std::string("not ready: ") + unready;
  return text.empty() ? "every party idle, events still coming" : text;
}

void Conductor::interrupt(const std::string& why) {
  if (ending_ == Ending::Running) finish(Ending::Interrupted, why);
}

void Conductor::finish(Ending how, const std::string& why) {
  ending_ = how;
  if (!why.empty() && failure_.empty()) failure_ = why;
  // Quiet: each party finishes its PMIx (rendezvous files go) and exits. Otherwise the flow is
  // cut where it stands.
  for (auto& [serial, p] : parties_) {
    if (p->exited) continue;
    if (how == Ending::Quiet)
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
          {"events_late", merge_.late()}};
}

}  // namespace pmixflow::emul
