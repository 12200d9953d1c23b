// The emulation's parties: starting their processes, their set-up and go, and what they say.
#include "conductor.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "pmixflow/log/event_codec.hpp"
#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {
namespace {

std::vector<std::string> requestor_names(const Deployment& d) {
  std::vector<std::string> names;
  for (const auto& r : d.requestors) names.push_back(r.name);
  return names;
}

}  // namespace

Conductor::Conductor(Loop& loop, const EmulOptions& options, const RunInputs& inputs, const Cluster& cluster,
                     const Deployment& deployment, log::EventLog& log)
    : loop_(loop),
      options_(options),
      inputs_(inputs),
      cluster_(cluster),
      deployment_(deployment),
      log_(log),
      directory_(cluster, requestor_names(deployment)),
      merge_(log),
      last_activity_(SteadyClock::now()) {
  clock_.speed = options.speed;
}

Conductor::~Conductor() { stop_all(); }

PartySpec Conductor::spec_for(Address address) const {
  PartySpec s;
  s.address = address;
  s.inputs = inputs_;
  s.machine = options_.machine;
  s.epoch_ns = clock_started_ ? clock_.epoch_ns() : 0;
  s.speed = clock_.speed;
  s.wanted = log::all_kinds_set();
  for (std::size_t k = 0; k < log::kKindCount; ++k) s.wanted[k] = log_.wants(static_cast<log::EventKind>(k));
  s.run_dir = dir_.path();
  s.daemon_link = "unix:" + dir_.path() + "/controller.sock";
  s.payload = options_.payload;
  s.owner = ::geteuid();
  s.allowed = options_.allow;
  // The users the scenario gives its requestors are let in: they are this run's own.
  for (const auto& r : deployment_.requestors)
    if (r.own_user) s.allowed.push_back(r.credentials.uid);
  return s;
}

Conductor::Party& Conductor::spawn(Address address, bool start_fails) {
  auto party = std::make_unique<Party>();
  Party& p = *party;
  p.serial = ++parties_started_;
  p.address = address;
  p.life = lives_[address]++;
  p.name = std::string(directory_.name_of(address));
  p.start_fails = start_fails;
  LaunchRequest r;
  r.program = options_.program;
  r.args = {"--as", p.name};
  if (start_fails) r.args.push_back("--fail-start");
  r.env = {"PMIX_MCA_gds=hash"};
#if defined(__SANITIZE_ADDRESS__)
  // libpmix's known leaks are suppressed by the names of its functions (emul/sanitizer_defaults.cpp),
  // which only the slow unwinder sees through a library without frame pointers.
  const char* asan = std::getenv("ASAN_OPTIONS");
  r.env.push_back(std::string("ASAN_OPTIONS=") + (asan ? std::string(asan) + ":" : "") + "fast_unwind_on_malloc=0");
  const char* lsan = std::getenv("LSAN_OPTIONS");
  r.env.push_back(std::string("LSAN_OPTIONS=") + (lsan ? std::string(lsan) + ":" : "") + "use_tls=0");
#endif
  r.env.push_back("TMPDIR=" + dir_.party_dir(p.name));
  if (address.kind == PartyKind::Requestor) {
    // The user the scenario names for this requestor is its process's real one: what its
    // servers see. The others run as the emulation's user.
    const RequestorDeployment& rd = deployment_.requestors.at(address.index);
    const Credentials c = rd.credentials;
    if (rd.own_user && c.uid != ::geteuid()) {
      r.as_user = std::make_pair(static_cast<uid_t>(c.uid), static_cast<gid_t>(c.gid));
      // Root's directory is closed to that user; in a user namespace the process is still us.
      if (::geteuid() == 0) r.env.back() = "TMPDIR=" + dir_.foreign_dir(p.name, c.uid, c.gid);
    }
  }
  p.child = launch(r);
  const std::uint64_t serial = p.serial;
  p.link = std::make_unique<FrameLink>(
      loop_, std::move(p.child.control), [this, serial](std::string&& f) { on_frame(serial, std::move(f)); },
      [this, serial](const std::string&) { on_link_closed(serial); });
  p.exit_watch = loop_.watch(p.child.pidfd.get(), [this, serial] { on_exit(serial); });
  current_[address] = serial;
  parties_.emplace(serial, std::move(party));
  return p;
}

Conductor::Party* Conductor::find(Address a) {
  auto it = current_.find(a);
  if (it == current_.end()) return nullptr;
  Party* p = by_serial(it->second);
  return p && !p->exited ? p : nullptr;
}

Conductor::Party* Conductor::by_serial(std::uint64_t serial) {
  auto it = parties_.find(serial);
  return it == parties_.end() ? nullptr : it->second.get();
}

void Conductor::send(Party& p, const control::Frame& f) {
  if (p.link) p.link->send(control::encode(f));
}

void Conductor::on_frame(std::uint64_t serial, std::string&& bytes) {
  Party* p = by_serial(serial);
  if (!p) return;
  last_activity_ = SteadyClock::now();
  try {
    control::Frame frame = control::decode(bytes);
    // Anything a party says but its answer to a Probe may be it at work: a round of Probes that
    // heard it in between proves nothing (settle_wave).
    if (!std::holds_alternative<control::State>(frame)) ++changes_;
    std::visit([&](auto&& f) { handle(*p, std::move(f)); }, std::move(frame));
  } catch (const std::exception& e) {
    // A party that speaks nonsense is a broken party: it is stopped, and the run says why.
    failure_ = p->name + " sent a frame the emulation cannot read: " + e.what();
    p->link->close();
    signal_child(p->child.pid, SIGKILL);
  }
}

void Conductor::handle(Party& p, control::Hello&&) {
  PartySpec spec = spec_for(p.address);
  spec.life = p.life;
  send(p, control::Setup{to_json(spec).dump()});
  p.set_up = true;
  send(p, control::Servers{directory_.servers()});
}

void Conductor::handle(Party& p, control::Ready&& f) {
  p.ready = true;
  if (!f.uri.empty()) {
    p.server = ServerEntry{p.address, f.proc, f.uri};
    // A daemon's server is listed as soon as it is up (the controller's own daemons are started
    // ahead of its word, and tools find them there); any other party's once it goes (go()):
    // a controller started ahead of its time must not be found before then.
    if (p.address.kind == PartyKind::Daemon || p.went) list_server(p);
  }
  if (!clock_started_) {
    // The clock starts once everything up from time 0 is ready (start()).
    bool all = true;
    for (auto& [serial, q] : parties_) all = all && (q->ready || q->exited || q->killed);
    if (all) start_clock();
    return;
  }
  if (p.go_when_ready) go(p);
}

void Conductor::handle(Party& p, control::Event&& f) {
  log::DecodedEvent e = log::decode_event(f.encoded);
  // Its events come in the order it stamped them (emul_env.cpp): each moves its clock on.
  p.clock = std::max(p.clock, e.view().t);
  record(std::move(e));
}

void Conductor::handle(Party& p, control::State&& f) {
  p.state = f;
  p.clock = std::max(p.clock, f.clock);
  p.clock_asked = false;
  if (f.wave != 0) p.answered_wave = f.wave;
}

void Conductor::handle(Party& p, control::StartDaemon&& f) {
  if (p.address != Address::controller()) return;
  start_daemon(f.node);
}

void Conductor::handle(Party& p, control::Activity&& f) { p.idle = f.idle; }

void Conductor::handle(Party& p, control::Bye&& f) {
  p.said_bye = true;
  // A requestor that leaves has left once its role is over: its process may take a while yet to
  // end (PMIx's finalize; LeakSanitizer's check under the sanitizers), and the simulator's
  // requestor is gone at its exit's instant.
  if (p.address.kind == PartyKind::Requestor && ending_ == Ending::Running) tell_peers_gone(p);
  try {
    const auto stats = nlohmann::json::parse(f.stats_json);
    messages_ += stats.value("messages", std::uint64_t{0});
    if (stats.contains("lateness")) lateness_.merge(Lateness::from_json(stats["lateness"]), p.name);
  } catch (const std::exception&) {
    failure_ = p.name + " said goodbye with counters the emulation cannot read";
  }
}

void Conductor::go(Party& p) {
  p.go_when_ready = false;
  p.went = true;
  p.idle = false;  // starting its role: busy until it says otherwise
  ++changes_;
  // It logs nothing before its go, and nothing stamped before now after it.
  p.clock = std::max(p.clock, clock_.now());
  if (p.server && p.address.kind != PartyKind::Daemon) list_server(p);
  send(p, control::Go{clock_.epoch_ns()});
}

void Conductor::list_server(Party& p) {
  directory_.set_server(*p.server);
  publish_servers();
}

void Conductor::publish_servers() {
  control::Servers s{directory_.servers()};
  for (auto& [serial, p] : parties_)
    if (p->set_up && p->link && p->link->open() && !p->exited) send(*p, s);
  write_servers_file();
}

void Conductor::on_link_closed(std::uint64_t serial) {
  Party* p = by_serial(serial);
  if (!p) return;
  ++changes_;
  p->idle = true;  // a party that cannot speak has nothing more to do in this run
  if (p->server && find(p->address) == p) {
    directory_.drop_server(p->address);
    publish_servers();
  }
  p->server.reset();
  if (p->exited) gone(*p);
}

void Conductor::on_exit(std::uint64_t serial) {
  Party* p = by_serial(serial);
  if (!p) return;
  loop_.unwatch(p->exit_watch);
  p->exit_watch = 0;
  p->status = reap(p->child.pid);
  p->exited = true;
  p->idle = true;
  ++changes_;
  // Its last frames may still be in its line: the line closes once they are read (on_link_closed).
  // A daemon that ends before its wire-up failed to start, whether it failed or its node died.
  // (A daemon started ahead that was never launched, replaced by one that is to fail, is none.)
  if (p->address.kind == PartyKind::Daemon && !p->ready && (p->went || p->go_when_ready))
    daemon_start_failed(p->address.index);
  tell_peers_gone(*p);
  // A party the run starts with that cannot start: there is no run.
  if (!clock_started_ && !p->ready && ending_ == Ending::Running)
    finish(Ending::Failed, p->name + "'s process ended before it was ready (see its messages above)");
  if (p->up_again && ending_ == Ending::Running) {
    if (p->address.kind == PartyKind::Daemon)
      start_daemon(p->address.index);  // a restarted daemon (restart_daemon)
    else
      spawn(p->address).go_when_ready = true;
  }
  const bool left = p->status && WIFEXITED(*p->status) && WEXITSTATUS(*p->status) == 0;
  if (left && p->went && !p->killed && p->address.kind == PartyKind::Daemon) warm_again(p->address.index);
  if (!(p->link && p->link->open())) gone(*p);
}

// Its peers hear it from its launcher too, as PRRTE's daemons report a process's end: PMIx 4.2.2
// does not always tell them (pmix_host.hpp, peer_gone). Once. (A process the party has already
// been restarted past is old news: its peers know the new one.)
void Conductor::tell_peers_gone(Party& p) {
  const auto current = current_.find(p.address);
  if (p.mourned || !p.ready || current == current_.end() || current->second != p.serial) return;
  p.mourned = true;
  for (auto& [other, q] : parties_)
    if (q.get() != &p && q->set_up && !q->exited) send(*q, control::Inject{p.address, PeerLost{p.address}});
}

void Conductor::gone(Party& p) {
  if (p.judged) return;
  p.judged = true;
  // Its line is read to the end: what it said last (its goodbye) is known. A party ends as the run
  // planned it - killed or told to leave by the scenario, stopped with the run, a daemon's start
  // failing, or leaving of its own accord (a daemon told to, or whose controller went) - or it
  // died, and the run cannot say what the flow would have done.
  // A process started ahead that was never told to go held nothing of the flow: whoever needs the
  // party later starts a new one.
  const bool planned = p.killed || p.start_fails || p.said_bye || ending_ != Ending::Running;
  if (!planned && clock_started_ && p.went) died(p);
}

}  // namespace pmixflow::emul
