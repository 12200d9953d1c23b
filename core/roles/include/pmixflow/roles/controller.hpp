// The DVM master / system controller (PRRTE's prte, the HNP). Transport for ordinary
// allocation requests (it adds PMIX_REQUESTOR and forwards to the scheduler, then carries
// the answer back); owner of the DVM's nodes, sessions and jobs, which it changes only when
// the scheduler says so through session control (FLOW.md §§2-4).
//
// Its parts (roles/controller/): the link to the scheduler, the DVM's daemons and launch
// fence, the jobs, the sessions and their control, PMIX_ALLOC_ACTIVATE, the standalone pool,
// and PMIx_Spawn. This file wires them and dispatches the messages the controller takes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/controller/activation.hpp"
#include "pmixflow/roles/controller/call_ids.hpp"
#include "pmixflow/roles/controller/connected_tools.hpp"
#include "pmixflow/roles/controller/deferred_releases.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/jobs.hpp"
#include "pmixflow/roles/controller/replies.hpp"
#include "pmixflow/roles/controller/scheduler_link.hpp"
#include "pmixflow/roles/controller/sessions.hpp"
#include "pmixflow/roles/controller/spawns.hpp"
#include "pmixflow/roles/controller/standalone.hpp"

namespace pmixflow {

struct ControllerConfig {
  bool connect_to_scheduler = true;  // look for a scheduler at start-up (optional connection)
  NoSchedulerMode no_scheduler = NoSchedulerMode::Hold;
  std::vector<NodeId> initial_dvm;  // nodes given a daemon at start-up, besides the head node
};

class Controller final : public Role, private JobEvents {
 public:
  Controller(Env& env, const Cluster& cluster, ControllerConfig config = {});

  void start() override;
  void handle(Address from, Message&& msg) override;

  bool scheduler_attached() const { return link_.attached(); }
  DaemonState daemon_state(NodeId n) const { return dvm_.node(n).daemon; }
  std::size_t session_count() const { return sessions_.size(); }

 private:
  void on(Address from, AllocRequest&& req);
  void on(Address from, SessionCtrlRequest&& req);
  void on(Address from, SpawnRequest&& req);
  void on(Address from, AllocResponse&& resp);
  void on(Address from, SessionCtrlResponse&& resp);
  void on(Address from, ConnectRequest&& req);
  void on(Address from, ConnectResponse&& resp);
  void on(Address from, DaemonReady&& ready);
  void on(Address from, DaemonStartFailed&& failed);
  void on(Address from, ProcsStarted&& started);
  void on(Address from, ProcsEnded&& ended);
  void on(Address from, Unreachable&& notice);
  void on(Address from, Notification&& event);
  void on(Address from, PeerLost&& notice);
  template <class M>
  void on(Address, M&&) {}

  void job_started(Job& job) override;
  void job_ended(const EndedJob& job) override;
  void node_failed(NodeId node);
  void requestor_gone(const Proc& gone, std::optional<Address> via, Address origin);
  void notify(const Proc& requester, const Notification& event);
  // call_fate.cpp
  void origin_lost(Address daemon);
  void tell_scheduler_gone(const Proc& gone);
  void hand_back(const SchedulerLink::Forwarded& call);
  void end_sessions_of(const std::string& corr, std::string_view why);

  Env& env_;
  ControllerConfig config_;
  CallIds ids_;
  Replies replies_;
  SchedulerLink link_;
  Dvm dvm_;
  Jobs jobs_;
  Sessions sessions_;
  Activation activation_;
  Standalone standalone_;
  Spawns spawns_;
  DeferredReleases deferred_;
  ConnectedTools tools_;                // tools connected to the controller itself
  std::optional<Proc> scheduler_proc_;  // as its calls name it
};

}  // namespace pmixflow
