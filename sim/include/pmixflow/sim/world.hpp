// The SimGrid environment: one actor per party on its own host, every message a real SimGrid
// communication whose size and route decide its time, timers on the virtual clock. The flow
// itself lives in the roles (core/); this only carries it.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "pmixflow/log/sink.hpp"
#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/sim/platform.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/trace/fault_actions.hpp"
#include "pmixflow/trace/fault_triggers.hpp"
#include "pmixflow/vocab/principal.hpp"

namespace simgrid::s4u {
class Mailbox;
}

namespace pmixflow::sim {

struct WorldOptions {
  std::uint64_t daemon_launch_bytes = 16 * 1024;  // the launch command and its environment
  double daemon_startup_s = 0.05;                 // exec and initialisation of a daemon on its node
  double jitter = 0;                              // start-up takes daemon_startup_s * (1 + jitter * u)
  std::uint64_t seed = 0;
  // Daemons started together are launched as PRRTE's tree spawn does: the head node launches
  // the first `launch_radix`, each of those the next `launch_radix` once it is up, and so on.
  std::uint32_t launch_radix = 64;
  // An idle daemon's actor waits parked for the daemon's next message instead of ending:
  // creating an actor (a stack and its guard page) costs far more than resuming one. Past
  // this many parked actors the longest parked one ends, so that a large idle machine still
  // holds few stacks.
  std::size_t idle_actors = 4096;
};

struct WorldStats {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t daemons_started = 0;
  std::uint64_t actor_wakeups = 0;  // idle daemons brought back by a message
  double end_time = 0;
  // Empty when the run ended quiet; else what was still outstanding when nothing could move
  // any more (SimGrid found every actor blocked): the run did not finish.
  std::string stalled;
};

using RoleFactory = std::function<std::unique_ptr<Role>(Env&)>;
struct Envelope;

class World final : private FaultActions {
 public:
  World(const Cluster& cluster, Machine machine, WorldOptions options, log::EventLog* log);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // A party on `host`, up and down at the given times (first entry: when it first starts).
  void add_party(Address address, std::string name, simgrid::s4u::Host* host, RoleFactory factory,
                 std::vector<std::pair<double, bool>> schedule);
  // The user and group a requestor's connections carry: its server adds them to what it sends
  // (PMIX_USERID, PMIX_GRPID), as the PMIx server library does from the socket's credentials.
  void set_credentials(std::uint32_t requestor, Credentials c);
  void set_daemon_factory(std::function<std::unique_ptr<Role>(Env&, NodeId)> factory);
  // Failure injection (docs/flow.md §2.11): at `f.at`, or `f.at` after its trigger's nth
  // matching event is logged. Carried out by an actor of the world's own, as an operator or
  // the hardware would act: the parties learn of it as they would of the real thing.
  void inject(const FaultAt& f);
  // Runs until nothing is in flight and no timer is armed.
  void run();
  // Asked now and then while the run goes (between two steps of the roles): a signal number
  // when the run is to stop (Ctrl-C), else 0. The run then stops as a failed one does - no
  // role acts any more, nothing more is logged, what is in flight drains - and interrupted()
  // names the signal.
  void stop_when(std::function<int()> stop_request) { stop_request_ = std::move(stop_request); }
  int interrupted() const { return interrupted_; }
  // What is still outstanding, party by party: for a run that stopped progressing.
  std::string outstanding() const;

  const WorldStats& stats() const { return stats_; }
  std::string_view name_of(Address a) const;

  // A role threw: the run was stopped there (its log is cut). `policy`: the scheduler's policy
  // threw, and is the culprit. An interrupted run (interrupted()) is stopped the same way: its
  // failure says when, with no party.
  struct Failure {
    std::string party;
    double at = 0;
    std::string what;
    bool policy = false;
  };
  const std::optional<Failure>& failure() const { return failure_; }

 private:
  friend class PartyEnv;
  struct Party;
  // Runs role code: no exception escapes into SimGrid; the first one stops the run.
  template <class F>
  void contain(const Party& p, F&& body);
  void stop_run(const Party& p, std::string what, bool policy);
  void look_for_stop();

  Party* find(Address a) const;
  void party_main(Party& p);
  void serve(Party& p, std::size_t& cancelled);
  void wake(Party& p);
  void serve_daemon(Party& p);
  struct Parked;
  void unpark(Parked& parked, bool resume);
  void accept(Party& p, std::unique_ptr<Envelope> env);
  struct Incoming;
  void deliver(Party& p, Incoming& conn, std::unique_ptr<Envelope> env);
  void go_up(Party& p);
  void go_down(Party& p);
  void break_connections(Party& p, const Party* told_already);
  void refuse_early(Party& p);
  void send(Party& from, Address to, Message&& msg);
  void bounce(Party& p, Address sender, const Message& msg);
  void start_daemon(NodeId node);
  // A daemon to launch, and how long it takes to start once launched (world_daemons.cpp).
  struct Launch {
    Party* daemon = nullptr;
    double startup = 0;
  };
  void launch(Launch l, Party* parent, simgrid::s4u::Host* from, bool local);
  void awaken_at(double when, Party& p);
  void startups_main();
  void come_up(Party& p, bool orphaned);
  void launch_children(Party& p);
  struct Startups;
  struct FaultQueue;
  void queue_fault(double at, const FaultAt& f);
  void start_faults();
  void release_fired();
  void faults_main();
  // FaultActions (world_faults.cpp)
  void fail_node(NodeId node) override;
  void kill_daemon(NodeId node) override;
  void return_node(NodeId node) override;
  void restart_daemon(NodeId node) override;
  void fail_next_start(NodeId node) override { failing_starts_.insert(node); }
  void slow_next_start(NodeId node, double later) override { slow_starts_[node] = later; }
  void stall_scheduler(double lasting) override;
  bool hold_while_stalled(Party& p);  // true when it was stalled
  void deliver_now(Party& to, Address from, Message msg);
  simgrid::s4u::Host* launcher_for(NodeId node, Party** parent);
  void record(const Party& p, const log::EventBuilder& e, std::uint64_t message = 0);
  template <class E>
  void log(const Party& p, const E& event, std::uint64_t message = 0) {
    if (!log_ || !log_->wants(E::event_kind)) return;
    log::EventBuilder fields(E::event_kind);
    fill(event, fields);
    record(p, fields, message);
  }
  // `message`: the number its send was logged with, when it arrives as it left (0: unknown).
  void log_recv(const Party& p, Address from, const Message& msg, std::uint64_t message = 0);
  void work_added() { ++pending_; }
  void work_done();

  const Cluster& cluster_;
  Machine machine_;
  WorldOptions options_;
  log::EventLog* log_;
  std::vector<std::unique_ptr<Party>> parties_;  // controller, scheduler, requestors
  std::vector<Party*> requestors_;               // by requestor number
  std::vector<Credentials> credentials_;         // by requestor number: its connection's
  std::vector<std::unique_ptr<Party>> daemons_;  // by node id, created when started
  std::function<std::unique_ptr<Role>(Env&, NodeId)> daemon_factory_;
  std::uint64_t pending_ = 0;          // messages in flight + armed timers + daemons starting
  std::uint64_t messages_logged_ = 0;  // the number of the last send logged
  std::mt19937_64 random_;             // daemon start-up times, from the run's seed
  std::set<NodeId> dead_nodes_;
  std::set<NodeId> failing_starts_;
  std::map<NodeId, double> slow_starts_;  // how much longer the next start there takes
  std::set<NodeId> lost_daemons_;         // killed by a fault, not shut down: a repair restarts them
  std::vector<FaultAt> triggered_;        // faults waiting for their trigger
  std::unique_ptr<FaultTriggers> triggers_;
  std::vector<std::pair<double, std::size_t>> fired_;  // triggered, not queued yet: when, which
  std::unique_ptr<FaultQueue> faults_;
  std::unique_ptr<Startups> startups_;
  double wave_time_ = -1;  // daemons started at the same instant form one launch tree
  std::vector<NodeId> wave_;
  WorldStats stats_;
  std::optional<Failure> failure_;
  std::function<int()> stop_request_;
  std::uint32_t steps_ = 0;  // role steps since the stop request was last asked
  int interrupted_ = 0;
  struct Quiescence;
  std::unique_ptr<Quiescence> quiet_;
  std::list<Parked*> parked_;  // idle daemon actors, longest parked first
};

}  // namespace pmixflow::sim
