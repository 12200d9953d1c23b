#include "party_process.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "pmixflow/emul/scheduler_memory.hpp"
#include "pmixflow/policies/policy.hpp"
#include "pmixflow/roles/controller.hpp"
#include "pmixflow/roles/daemon.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/roles/scheduler.hpp"

namespace pmixflow::emul {
namespace {

void make_private(const std::string& dir) {
  std::error_code ec;
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file(ec))
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                   std::filesystem::perm_options::replace, ec);
}

// A party with nothing to do says so at most this often while messages pass through it.
constexpr auto kActivityEvery = std::chrono::milliseconds(50);
// A party says it is idle once it has been for this long: a flow of requests with short gaps
// between them (a benchmark's, a replay's) then costs no Activity frames, which would wake the
// emulation on every request. Far below the quiet time that ends a run (conductor_end.cpp).
constexpr auto kIdleSettles = std::chrono::milliseconds(10);
// The party's events go to the emulation this late at most when its loop is free, as soon as a
// longer loop round ends (its role starting, a daemon starting a job's processes: the loop fires
// due timers after each round), or once this many bytes are waiting. The emulation holds every
// event a while for its order anyway (event_merge.hpp).
constexpr auto kEventsWaitAtMost = std::chrono::milliseconds(2);
constexpr std::size_t kEventsHeldAtMost = 64 * 1024;

std::vector<std::string> requestor_names(const Deployment& d) {
  std::vector<std::string> names;
  for (const auto& r : d.requestors) names.push_back(r.name);
  return names;
}

}  // namespace

PartyProcess::PartyProcess(int control_fd) {
  control_ = std::make_unique<FrameLink>(
      loop_, UniqueFd(control_fd), [this](std::string&& f) { on_control(std::move(f)); },
      [this](const std::string&) { finish(3); });  // the emulation is gone: so are we
  loop_.after_each_round([this] { report_activity(); });
  send(control::Hello{static_cast<std::int32_t>(::getpid())});
}

PartyProcess::~PartyProcess() {
  role_.reset();  // before what it refers to
  if (pmix_) pmix_->stop();
}

int PartyProcess::run() {
  loop_.run();
  save_memory_now();
  role_.reset();
  // Said before PMIx finalizes: a finalize that hangs and is cut short below is a party that was
  // leaving, not one that died in the flow.
  if (status_ == 0) {
    nlohmann::json stats{{"messages", env_ ? env_->messages_sent() : 0}};
    if (env_) stats["lateness"] = env_->lateness().to_json();
    send(control::Bye{stats.dump()});
  }
  // PMIx's finalize talks to servers that may be gone: it gets a few seconds, then the process
  // ends anyway (the emulation removes what PMIx would have).
  ::alarm(5);
  if (pmix_) pmix_->stop();
  // What it logged last goes too, whatever the reason it ends.
  if (control_->open()) control_->flush(2000);
  return status_;
}

void PartyProcess::finish(int status) {
  status_ = status;
  loop_.stop();
}

void PartyProcess::send(const control::Frame& f) {
  if (control_ && control_->open()) control_->send(control::encode(f));
}

void PartyProcess::send_soon(const control::Frame& f) {
  if (!control_ || !control_->hold(control::encode(f))) return;
  if (control_->held_bytes() >= kEventsHeldAtMost) return control_->release();
  if (release_armed_) return;
  release_armed_ = true;
  loop_.after(kEventsWaitAtMost, [this] {
    release_armed_ = false;
    control_->release();
  });
}

void PartyProcess::on_control(std::string&& bytes) {
  try {
    std::visit([this](auto&& f) { handle(std::move(f)); }, control::decode(bytes));
  } catch (const std::exception& e) {
    std::cerr << "pmixflow party: " << e.what() << "\n";
    finish(2);
  }
}

void PartyProcess::handle(control::Setup&& f) {
  spec_ = party_spec_from_json(nlohmann::json::parse(f.spec_json));
  // A party started after the run's clock started knows it now: whatever it logs before its go
  // is stamped in the run's time (its go says the same epoch).
  clock_ = RunClock::from_epoch_ns(spec_->epoch_ns, spec_->speed);
  workload_ = load_workload(spec_->inputs);
  machine_ = std::make_unique<EmulMachine>(spec_->machine, *workload_);
  plan_replay(*workload_, spec_->inputs, machine_->compute_nodes());
  deployment_ = deploy(*workload_, spec_->inputs, machine_->cluster());
  directory_ = std::make_unique<Directory>(machine_->cluster(), requestor_names(*deployment_));
  Transport& transport = *this;
  Uplink& uplink = *this;
  env_ = std::make_unique<EmulEnv>(loop_, clock_, spec_->address, *directory_, transport, uplink, spec_->wanted);
  build_role();
  env_->set_role(role_.get());
  open_links();
}

void PartyProcess::build_role() {
  const Address a = spec_->address;
  const Cluster& cluster = machine_->cluster();
  switch (a.kind) {
    case PartyKind::Controller: role_ = std::make_unique<Controller>(*env_, cluster, deployment_->controller); break;
    case PartyKind::Scheduler: {
      auto scheduler =
          std::make_unique<Scheduler>(*env_, cluster, make_policy(workload_->policy), deployment_->scheduler);
      // A restarted scheduler takes back what its earlier life granted (scheduler_memory.hpp).
      if (auto saved = load_memory(spec_->run_dir + "/scheduler.memory")) {
        saved_memory_ = *saved;
        scheduler->remember(decode_memory(*saved));
      }
      role_ = std::move(scheduler);
      break;
    }
    case PartyKind::Daemon: {
      auto runner =
          std::make_unique<RealProcesses>(loop_, clock_, spec_->payload, machine_->cluster().node(a.index).name);
      runner_ = runner.get();
      runner->count_lateness_in(env_->lateness());
      role_ = std::make_unique<Daemon>(*env_, a.index, std::move(runner));
      break;
    }
    case PartyKind::Requestor: {
      const RequestorDeployment& r = deployment_->requestors.at(a.index);
      for (const Address via : r.entry_points())
        if (std::find(calls_to_.begin(), calls_to_.end(), via) == calls_to_.end()) calls_to_.push_back(via);
      role_ = std::make_unique<Requestor>(*env_, r.identity, r.calls(spec_->life));
      break;
    }
  }
}

void PartyProcess::open_links() {
  const Address a = spec_->address;
  PmixHostOptions o;
  o.mode = a.kind == PartyKind::Requestor   ? PmixHostOptions::Mode::Tool
           : a.kind == PartyKind::Scheduler ? PmixHostOptions::Mode::Launcher
                                            : PmixHostOptions::Mode::Server;
  o.me = directory_->proc_of(a);
  if (const char* dir = std::getenv("TMPDIR"); dir && o.mode != PmixHostOptions::Mode::Tool) o.dir = dir;
  o.owner = spec_->owner;
  o.allowed = spec_->allowed;
  pmix_ = std::make_unique<PmixHost>(loop_, *directory_, o);
  const std::string uri = pmix_->start();
  // PMIx opens its server's directory to all (0755) and its rendezvous files with it: they are
  // this user's alone, as the emulation's are (docs/emulation.md, "Who may come in").
  if (!o.dir.empty()) make_private(o.dir);
  pmix_->set_env(env_.get());
  const LinkEvents events{[this](Address from, Message msg) { on_link_message(from, std::move(msg)); },
                          [this](Address peer) { env_->notice(peer, PeerLost{peer}); }};
  const Endpoint link = Endpoint::parse(spec_->daemon_link);
  if (a.kind == PartyKind::Controller) daemons_ = std::make_unique<DaemonListener>(loop_, link, spec_->owner, events);
  if (a.kind == PartyKind::Daemon) {
    LinkEvents mine = events;
    // A daemon whose controller is gone has nobody to serve: it answers its callers (the role
    // does, on PeerLost) and ends, as PRRTE's daemons do when their HNP goes.
    mine.lost = [this](Address peer) {
      env_->notice(peer, PeerLost{peer});
      loop_.after(std::chrono::milliseconds(200), [this] { finish(0); });
    };
    controller_ = std::make_unique<ControllerLink>(loop_, link, a.index, mine);
  }
  send(control::Ready{o.me, uri});
}

void PartyProcess::on_link_message(Address from, Message msg) {
  const bool shutdown = std::holds_alternative<DaemonShutdown>(msg);
  env_->deliver(from, std::move(msg));
  // Told to exit, the daemon leaves the DVM: its process ends once the role has logged it.
  if (shutdown) loop_.post([this] { finish(0); });
}

void PartyProcess::handle(control::Go&& f) {
  clock_.epoch = RunClock::from_epoch_ns(f.epoch_ns, clock_.speed).epoch;
  pmix_->accept();
  env_->log(ev::PartyUp{});
  env_->start();
  going_ = true;
  // The emulation counts a party busy from its go until it says otherwise: it says so next round.
  reported_idle_ = false;
  loop_.post([this] { prepare_calls(); });
}

void PartyProcess::prepare_calls() {
  if (!going_) return;
  for (Address a : calls_to_) pmix_->prepare(a);
}

void PartyProcess::handle(control::Servers&& f) {
  if (!directory_) return;  // before the set-up: the emulation sends the list again after it
  for (const auto& e : directory_->servers()) directory_->drop_server(e.address);
  for (const auto& e : f.entries) directory_->set_server(e);
  if (pmix_) pmix_->servers_changed();
  prepare_calls();
}

void PartyProcess::handle(control::Inject&& f) {
  if (!env_) return;
  // A party's process ended: news for our PMIx if it was a tool of ours or a server we used (the
  // daemon links say it themselves, as their sockets close).
  if (std::holds_alternative<PeerLost>(f.msg)) return pmix_->peer_gone(f.from);
  env_->deliver(f.from, std::move(f.msg));
}

void PartyProcess::handle(control::Stop&&) { finish(0); }

void PartyProcess::handle(control::Probe&& f) {
  // Sent at once: the events held go ahead of it on the line, and its clock promises the rest.
  control::State s{f.wave, false, 0, 0, 0, 0.0};
  if (env_) {
    s.idle = idle_now();
    s.sent = env_->messages_sent();
    s.handled = env_->messages_handled();
    s.calls = calls_waiting();
    // Before its go a party logs nothing, and its clock may not be the run's yet (one started
    // ahead of the clock counts from no epoch at all): it promises nothing. A promise from that
    // clock, far in the future, let the log be written past what it logged once it went.
    s.clock = going_ ? env_->clock_floor() : 0;
  }
  send(s);
}

void PartyProcess::handle(control::Leave&& f) {
  // Armed on the loop like the role's own timers, at the exit's time: every timer due before it
  // fires first (the loop fires due timers in time order), so a call placed just before the
  // requestor's exit is made, and abandoned when it goes - as the simulator has it.
  loop_.at(clock_.wall_at(f.at), [this] {
    if (env_ && going_) env_->log(ev::PartyDown{});
    finish(0);
  });
}

std::uint64_t PartyProcess::calls_waiting() const {
  const auto* requestor = dynamic_cast<const Requestor*>(role_.get());
  return requestor ? requestor->outstanding() : 0;
}

void PartyProcess::event(std::string encoded) { send_soon(control::Event{std::move(encoded)}); }
void PartyProcess::start_daemon(NodeId node) { send(control::StartDaemon{node}); }

void PartyProcess::working() {
  if (!reported_idle_) return;
  reported_idle_ = false;
  send(control::Activity{false});
}

bool PartyProcess::carry(Address to, Message& msg) {
  if (daemons_ && to.kind == PartyKind::Daemon) {
    const bool sent = daemons_->send(to.index, msg);
    if (sent && std::holds_alternative<DaemonShutdown>(msg)) daemons_->expect_close(to.index);
    return sent;
  }
  if (controller_ && to == Address::controller()) return controller_->send(msg);
  return pmix_ && pmix_->carry(to, msg);
}

void PartyProcess::save_memory_now() {
  const auto* scheduler = dynamic_cast<const Scheduler*>(role_.get());
  if (!scheduler || !going_) return;
  std::string bytes = encode_memory(scheduler->memory());
  if (bytes == saved_memory_) return;
  save_memory(spec_->run_dir + "/scheduler.memory", bytes);
  saved_memory_ = std::move(bytes);
}

void PartyProcess::report_activity() {
  if (!env_) return;
  // The scheduler saves what it keeps across a restart as it goes; not on every message of a
  // long replay: at most every 20 ms, which no scenario's steps come closer than.
  if (SteadyClock::now() - saved_when_ > std::chrono::milliseconds(20)) {
    saved_when_ = SteadyClock::now();
    save_memory_now();
  } else if (!save_armed_ && dynamic_cast<const Scheduler*>(role_.get())) {
    save_armed_ = true;  // the last change of a burst is saved too, once the burst is over
    loop_.after(std::chrono::milliseconds(25), [this] {
      save_armed_ = false;
      saved_when_ = SteadyClock::now();
      save_memory_now();
    });
  }
  const auto now = SteadyClock::now();
  if (!idle_now()) {
    idle_since_.reset();
    const bool moved = env_->messages_sent() != reported_at_messages_ && now - reported_when_ > kActivityEvery;
    if (!reported_idle_ && !moved) return;
    reported_idle_ = false;
    reported_at_messages_ = env_->messages_sent();
    reported_when_ = now;
    return send_soon(control::Activity{false});
  }
  if (reported_idle_) return;
  if (!idle_since_) {
    idle_since_ = now;
    // Looked at again once it has settled, whether or not anything wakes the loop meanwhile.
    loop_.after(kIdleSettles, [] {});
    return;
  }
  if (now - *idle_since_ < kIdleSettles) return;
  reported_idle_ = true;
  reported_when_ = now;
  send(control::Activity{true});
}

bool PartyProcess::idle_now() const {
  return env_->timers_armed() == 0 && (!runner_ || runner_->jobs_going() == 0) && !(pmix_ && pmix_->busy()) &&
         !loop_.has_posted();
}

}  // namespace pmixflow::emul
