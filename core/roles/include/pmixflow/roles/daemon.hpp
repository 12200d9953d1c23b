// A non-master daemon (PRRTE's prted): the PMIx server of its node. It decides nothing about
// allocations: requests from local callers are relayed to the controller and the answers
// carried back. It starts, signals and kills the local processes of jobs through its process
// runner, and reports how they ended in PMIx terms.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/process_runner.hpp"

namespace pmixflow {

class Daemon final : public Role, private ProcessEvents {
 public:
  Daemon(Env& env, NodeId node, std::unique_ptr<ProcessRunner> runner)
      : env_(env), node_(node), runner_(std::move(runner)) {}

  void start() override;
  void handle(Address from, Message&& msg) override;

  // This node's share of a launch: which ranks of which app run here.
  static LocalLaunch local_share(const LaunchProcs& launch);

 private:
  struct PendingCall {
    Address origin;
    std::uint64_t origin_id;
    MessageKind kind;  // which kind of answer the caller waits for
    std::string corr;
  };
  struct LocalJob {
    std::optional<Status> killed;  // the reason the controller gave for killing it
  };

  void on(Address from, AllocRequest&& req);
  void on(Address from, SessionCtrlRequest&& req);
  void on(Address from, SpawnRequest&& req);
  void on(Address from, AllocResponse&& resp);
  void on(Address from, SessionCtrlResponse&& resp);
  void on(Address from, SpawnResponse&& resp);
  void on(Address from, Notification&& event);
  void on(Address from, ConnectRequest&& req);
  void on(Address from, LaunchProcs&& launch);
  void on(Address from, SignalProcs&& sig);
  void on(Address from, KillProcs&& kill);
  void on(Address from, DaemonShutdown&& shutdown);
  void on(Address from, Unreachable&& notice);
  void on(Address from, PeerLost&& notice);
  template <class M>
  void on(Address, M&&) {}

  // What the runner reports.
  void started(const std::string& nspace) override;
  void start_failed(const std::string& nspace, const std::string& detail) override;
  void exited(const std::string& nspace, const ProcessExit& exit) override;

  template <class Relayed, class Call>
  void relay(Address from, Call&& call);
  template <class Response>
  void carry_back(Response&& resp);
  void answer_failed(const PendingCall& call, Status status);
  void fail_pending(Status status);
  void controller_gone();

  Env& env_;
  NodeId node_;
  std::unique_ptr<ProcessRunner> runner_;
  std::uint64_t next_id_ = 1;
  bool controller_gone_ = false;                  // the DVM went with it: nothing is reported any more
  std::map<std::uint64_t, PendingCall> pending_;  // ordered: failing them all is deterministic
  std::unordered_map<std::string, LocalJob> jobs_;
  std::map<Address, Proc> clients_;  // local tools and processes: PMIx events reach them through us
};

}  // namespace pmixflow
