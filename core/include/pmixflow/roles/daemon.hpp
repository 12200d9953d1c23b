// A non-master daemon (PRRTE's prted): the PMIx server of its node. It decides nothing about
// allocations: requests from local callers are relayed to the controller and the answers
// carried back. It starts, watches and kills the local processes of jobs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "pmixflow/env.hpp"

namespace pmixflow {

struct DaemonConfig {
  double proc_start_s = 0.001;  // fork/exec of the local processes of one job
};

class Daemon final : public Role {
 public:
  Daemon(Env& env, NodeId node, DaemonConfig config = {}) : env_(env), node_(node), config_(config) {}

  void start() override;
  void handle(Address from, Message&& msg) override;

 private:
  struct PendingCall {
    Address origin;
    std::uint64_t origin_id;
    bool session_ctrl;  // which kind of answer the caller waits for
    std::string corr;
  };
  struct LocalJob {
    TimerId end_timer = 0;
    int exit_code = 0;
    bool running = false;
  };

  void relay_alloc(Address from, AllocRequest&& req);
  void relay_session_ctrl(Address from, SessionCtrlRequest&& req);
  template <class Response>
  void carry_back(Response&& resp);
  void launch(LaunchProcs&& launch);
  void end_local(const std::string& nspace, Status status, int exit_code);
  void fail_pending(Status status);

  Env& env_;
  NodeId node_;
  DaemonConfig config_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, PendingCall> pending_;  // ordered: failing them all is deterministic
  std::unordered_map<std::string, LocalJob> jobs_;
};

}  // namespace pmixflow
