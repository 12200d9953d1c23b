// A non-master daemon (PRRTE's prted): the PMIx server of its node. It decides nothing about
// allocations: requests from local callers are relayed to the controller and the answers
// carried back. It starts, watches and kills the local processes of jobs.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>

#include "pmixflow/proto/env.hpp"

namespace pmixflow {

struct DaemonConfig {
  double proc_start_s = 0.001;  // fork/exec of the local processes of one job
  // Real process starts vary: with jitter, a job's ranks on many nodes do not start (nor
  // end) at one instant. Each start takes proc_start_s * (1 + jitter * u), u in [0, 1).
  double jitter = 0;
  std::uint64_t seed = 0;  // with the node id, seeds this daemon's own generator
};

class Daemon final : public Role {
 public:
  Daemon(Env& env, NodeId node, DaemonConfig config = {})
      : env_(env), node_(node), config_(config), random_(config.seed * 0x9E3779B97F4A7C15ULL + node) {}

  void start() override;
  void handle(Address from, Message&& msg) override;

 private:
  struct PendingCall {
    Address origin;
    std::uint64_t origin_id;
    MessageKind kind;  // which kind of answer the caller waits for
    std::string corr;
  };
  struct LocalJob {
    TimerId end_timer = 0;
    int exit_code = 0;
    bool running = false;
    bool stopped = false;  // SIGSTOP: the processes keep memory and slots but make no progress
    double ends_at = 0;    // while running
    double remaining = 0;  // while stopped
  };

  template <class Relayed, class Call>
  void relay(Address from, Call&& call);
  void on_signal(const SignalProcs& sig);
  void arm_end(const std::string& nspace, double after);
  template <class Response>
  void carry_back(Response&& resp);
  void answer_failed(const PendingCall& call, Status status);
  void launch(LaunchProcs&& launch);
  void end_local(const std::string& nspace, Status status, int exit_code);
  void fail_pending(Status status);

  Env& env_;
  NodeId node_;
  DaemonConfig config_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, PendingCall> pending_;  // ordered: failing them all is deterministic
  std::unordered_map<std::string, LocalJob> jobs_;
  std::map<Address, Proc> clients_;  // local tools and processes: PMIx events reach them through us
  std::mt19937_64 random_;
};

}  // namespace pmixflow
