// The emulation's own loop (emulation.cpp wires it): the party processes it started, what they
// tell it, the scenario's timeline of starts, stops and faults, and when the run is over.
// Files: conductor.cpp (parties and their frames), conductor_timeline.cpp (the deployment's
// times, faults, daemons), conductor_end.cpp (quiescence, stopping, the end).
#pragma once

#include <array>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "event_merge.hpp"
#include "pmixflow/emul/control.hpp"
#include "pmixflow/emul/directory.hpp"
#include "pmixflow/emul/emulation.hpp"
#include "pmixflow/emul/lateness.hpp"
#include "pmixflow/emul/launcher.hpp"
#include "pmixflow/emul/link.hpp"
#include "pmixflow/emul/loop.hpp"
#include "pmixflow/emul/party_spec.hpp"
#include "pmixflow/emul/run_clock.hpp"
#include "pmixflow/emul/run_dir.hpp"
#include "pmixflow/log/event_codec.hpp"
#include "pmixflow/log/events.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/trace/fault_actions.hpp"
#include "pmixflow/trace/fault_triggers.hpp"

namespace pmixflow::emul {

// How a run ended. Stalled: every party idle and nothing in flight between them, with calls
// still unanswered (as the simulator's `stalled`).
enum class Ending { Running, Quiet, Stalled, Timeout, Interrupted, Failed };

class Conductor final : private FaultActions {
 public:
  Conductor(Loop& loop, const EmulOptions& options, const RunInputs& inputs, const Cluster& cluster,
            const Deployment& deployment, log::EventLog& log);
  ~Conductor();
  Conductor(const Conductor&) = delete;
  Conductor& operator=(const Conductor&) = delete;

  // Starts the parties that are up from time 0, waits for them to be ready, starts the clock;
  // `up` runs then, once: every party started with the run is ready and its server listed.
  void start(std::function<void()> up = {});
  Ending ending() const { return ending_; }
  const std::string& failure() const { return failure_; }
  double end_time() const { return merge_.last_time(); }
  nlohmann::json stats() const;
  // Ctrl-C, SIGTERM: stop everything now.
  void interrupt(const std::string& why);
  const RunDir& run_dir() const { return dir_; }

 private:
  struct Party {
    std::uint64_t serial = 0;  // one per process started: a restarted party is a new one
    std::uint32_t life = 0;    // how many processes this party had before this one
    Address address;
    std::string name;
    Child child;
    WatchId exit_watch = 0;
    std::unique_ptr<FrameLink> link;
    bool set_up = false;  // it has its set-up: it may be told where the servers are
    bool ready = false;
    bool went = false;  // told to go
    bool go_when_ready = false;
    bool idle = true;
    bool killed = false;    // by us: a fault or the scenario's stop
    bool up_again = false;  // killed, and to come up again once its process has gone
    bool exited = false;
    bool start_fails = false;   // a daemon told to fail before its wire-up
    bool leaving = false;       // a requestor told to leave at its exit time: it goes by itself
    bool said_bye = false;      // it left of its own accord (control::Bye)
    bool judged = false;        // its end has been looked at (gone())
    bool mourned = false;       // its peers have been told it is gone (tell_peers_gone())
    std::optional<int> status;  // its wait status, once it has exited
    std::optional<ServerEntry> server;
    // Its clock as it last said (an event's stamp, a State): it logs nothing stamped earlier
    // from then on. -infinity until it goes.
    double clock = -std::numeric_limits<double>::infinity();
    bool clock_asked = false;
    std::uint64_t answered_wave = 0;
    control::State state;  // its last answer to a Probe
  };
  // What a round of Probes found, party by party: (serial, sent, handled, calls).
  using Census = std::vector<std::array<std::uint64_t, 4>>;

  // conductor.cpp
  Party& spawn(Address address, bool start_fails = false);
  PartySpec spec_for(Address address) const;
  void on_frame(std::uint64_t serial, std::string&& bytes);
  void handle(Party& p, control::Hello&& f);
  void handle(Party& p, control::Ready&& f);
  void handle(Party& p, control::Event&& f);
  void handle(Party& p, control::StartDaemon&& f);
  void handle(Party& p, control::Activity&& f);
  void handle(Party& p, control::Bye&& f);
  void handle(Party& p, control::State&& f);
  void list_server(Party& p);
  void warm_again(NodeId node);
  template <class F>
  void handle(Party&, F&&) {}
  void on_link_closed(std::uint64_t serial);
  void on_exit(std::uint64_t serial);
  void gone(Party& p);  // its process has ended and its line is read to the end
  void tell_peers_gone(Party& p);
  void go(Party& p);
  void publish_servers();
  void send(Party& p, const control::Frame& f);
  Party* find(Address a);  // the party's current process, if it has one that has not ended
  Party* by_serial(std::uint64_t serial);

  // conductor_timeline.cpp
  void arm_timeline();
  void at(double t, std::function<void()> fn);
  void bring_up(Address a);
  void take_down(Address a, double t);
  void start_daemon(NodeId node);
  void daemon_start_failed(NodeId node);
  void start_clock();
  // An event the emulation itself records, for the party it concerns (as the simulator's
  // environment records it in that party's name).
  template <class E>
  void log_as(const std::string& who, const E& event) {
    if (!log_.wants(E::event_kind)) return;
    log::EventBuilder b(E::event_kind);
    fill(event, b);
    record(log::decode_event(log::encode_event(b.view(clock_.now(), who))));
  }
  // An event as it arrives: seen by the fault triggers at once, written in time order later.
  void record(log::DecodedEvent e);
  void note_calls(const log::EventView& v);

  // conductor_faults.cpp
  void arm_faults();
  // FaultActions (conductor_faults.cpp)
  void fail_node(NodeId node) override;
  void kill_daemon(NodeId node) override;
  void return_node(NodeId node) override;
  void restart_daemon(NodeId node) override;
  void fail_next_start(NodeId node) override { failing_starts_.insert(node); }
  void slow_next_start(NodeId node, double later) override { slow_starts_[node] = later; }
  void stall_scheduler(double lasting) override;

  // conductor_end.cpp
  std::string still_going() const;
  std::string in_flight() const;
  void check_quiet();
  void write_settled();
  void ask_wave();
  void settle_wave();
  void end_settled(const Census& census);
  void died(Party& p);
  void finish(Ending how, const std::string& why = {});
  void stop_all();
  void write_servers_file() const;

  Loop& loop_;
  const EmulOptions& options_;
  const RunInputs& inputs_;
  const Cluster& cluster_;
  const Deployment& deployment_;
  Lateness lateness_;  // the parties' own counts, from their goodbyes
  log::EventLog& log_;
  RunDir dir_;
  RunClock clock_;
  bool clock_started_ = false;
  std::function<void()> up_;
  Directory directory_;
  EventMerge merge_;
  std::map<std::uint64_t, std::unique_ptr<Party>> parties_;  // every process started, by serial
  std::map<Address, std::uint64_t> current_;                 // each party's latest process
  std::map<Address, std::uint32_t> lives_;                   // how many processes each party has had
  std::set<NodeId> dead_nodes_;
  std::set<NodeId> failing_starts_;
  std::map<NodeId, double> slow_starts_;  // how much longer the next start there takes
  std::set<NodeId> lost_daemons_;         // killed by a fault: a repair starts them again
  std::vector<FaultAt> triggered_;
  std::unique_ptr<FaultTriggers> triggers_;
  std::size_t timeline_pending_ = 0;       // actions of the deployment still to come
  SteadyClock::time_point last_activity_;  // for the start-up limit
  std::uint64_t changes_ = 0;              // bumped by anything that may set a party to work
  std::uint64_t wave_ = 0;
  bool wave_open_ = false;
  std::uint64_t wave_changes_ = 0;
  std::optional<Census> last_wave_;
  std::map<std::string, std::string> open_calls_;  // corr -> requestor, from the events
  LoopTimer quiet_check_ = 0;
  Ending ending_ = Ending::Running;
  double settled_at_ = 0;  // when the flow was found over (quiet or stalled), in scenario time
  std::string failure_;
  std::uint64_t daemons_started_ = 0;
  std::uint64_t messages_ = 0;
  std::uint64_t parties_started_ = 0;
};

}  // namespace pmixflow::emul
