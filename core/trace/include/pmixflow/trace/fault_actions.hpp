// What an environment does for each fault a scenario injects (docs/flow.md §2.11). One switch
// from a fault to its action, for both environments: each says how it kills a node or stalls
// a process, never which faults there are.
#pragma once

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/trace/deployment.hpp"

namespace pmixflow {

class FaultActions {
 public:
  virtual ~FaultActions() = default;
  virtual void fail_node(NodeId node) = 0;        // the node dies with its daemon and processes
  virtual void return_node(NodeId node) = 0;      // a dead node is repaired
  virtual void kill_daemon(NodeId node) = 0;      // the daemon dies, its node staying up
  virtual void restart_daemon(NodeId node) = 0;   // a live node's daemon starts again
  virtual void fail_next_start(NodeId node) = 0;  // the next daemon launched there cannot start
  // The next daemon launched there takes `later` seconds longer to start (a slow boot, a slow
  // file system), then starts.
  virtual void slow_next_start(NodeId node, double later) = 0;
  virtual void stall_scheduler(double lasting) = 0;
};

inline void carry_out(const FaultAt& f, FaultActions& act) {
  switch (f.fault) {
    case Fault::NodeDies: return act.fail_node(f.node);
    case Fault::NodeReturns: return act.return_node(f.node);
    case Fault::DaemonDies: return act.kill_daemon(f.node);
    case Fault::DaemonRestarts: return act.restart_daemon(f.node);
    case Fault::DaemonStartFails: return act.fail_next_start(f.node);
    case Fault::DaemonStartsSlowly: return act.slow_next_start(f.node, f.lasting);
    case Fault::SchedulerStalls: return act.stall_scheduler(f.lasting);
  }
}

}  // namespace pmixflow
