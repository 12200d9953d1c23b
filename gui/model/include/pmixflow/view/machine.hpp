// The machine as the log implies it at one moment: for each node, its daemon, its use, the
// sessions that hold it, the job running on it. Built by applying state changes (StateOp) in
// log order; the replay model keeps copies of it at intervals so that any moment is a short
// replay away.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow::view {

inline constexpr std::uint32_t kNone = UINT32_MAX;

enum class DaemonState : std::uint8_t { None, Starting, Up, Failed };
enum class NodeUse : std::uint8_t { Free, Withheld, Busy };

// What a node looks like in the machine pane: one colour each, in legend order.
enum class NodeLook : std::uint8_t {
  OutsideDvm,         // no daemon, held by no session
  AllocatedNoDaemon,  // held by a session, no daemon yet (before its activation)
  DaemonStarting,
  Free,       // in the DVM, held by no session
  Withheld,   // held by a session, only its jobs may map there
  Running,    // a job's processes run there
  Suspended,  // the job running there is stopped (paused or preempted)
  Failed,     // the node died, or its daemon could not start
};
inline constexpr std::size_t kLookCount = 8;
std::string_view look_name(NodeLook look);  // for the legend: "in the DVM, free"

struct NodeState {
  DaemonState daemon = DaemonState::None;
  NodeUse use = NodeUse::Free;
  bool down = false;              // node.fail / node.down
  bool suspended = false;         // its job is stopped
  std::uint16_t sessions = 0;     // how many sessions hold slots here
  std::uint32_t session = kNone;  // the first of them
  std::uint32_t job = kNone;      // index into RunModel::jobs(), while one runs here
  bool operator==(const NodeState&) const = default;
};

NodeLook look_of(const NodeState& node);

// One change to the machine, taken from one event.
struct StateOp {
  enum class Kind : std::uint8_t { NodeSet, NodeDown, JobOn, JobOff, JobStop, JobGo };
  Kind kind = Kind::NodeSet;
  std::uint32_t event = 0;   // index of the event it comes from
  std::uint32_t target = 0;  // a node (NodeSet, NodeDown) or a job (the others)
  // NodeSet only:
  DaemonState daemon = DaemonState::None;
  NodeUse use = NodeUse::Free;
  std::uint16_t sessions = 0;
  std::uint32_t session = kNone;
};

class MachineState {
 public:
  MachineState() = default;
  explicit MachineState(std::size_t nodes) : nodes_(nodes) {}
  // `job_nodes(j)` gives the nodes of job j (the model's job table).
  template <class JobNodes>
  void apply(const StateOp& op, const JobNodes& job_nodes);
  const std::vector<NodeState>& nodes() const { return nodes_; }
  void resize(std::size_t n) { nodes_.resize(n); }
  // How many nodes look each way.
  std::vector<std::size_t> census() const;

 private:
  std::vector<NodeState> nodes_;
};

template <class JobNodes>
void MachineState::apply(const StateOp& op, const JobNodes& job_nodes) {
  using K = StateOp::Kind;
  switch (op.kind) {
    case K::NodeSet: {
      auto& n = nodes_[op.target];
      n.daemon = op.daemon;
      n.use = op.use;
      n.sessions = op.sessions;
      n.session = op.session;
      if (n.use != NodeUse::Busy) {
        n.job = kNone;
        n.suspended = false;
      }
      return;
    }
    case K::NodeDown: nodes_[op.target].down = true; return;
    default: break;
  }
  for (std::uint32_t node : job_nodes(op.target)) {
    auto& n = nodes_[node];
    switch (op.kind) {
      case K::JobOn:
        n.job = op.target;
        n.suspended = false;
        break;
      case K::JobOff:
        if (n.job == op.target) {
          n.job = kNone;
          n.suspended = false;
        }
        break;
      case K::JobStop:
        if (n.job == op.target) n.suspended = true;
        break;
      case K::JobGo:
        if (n.job == op.target) n.suspended = false;
        break;
      default: break;
    }
  }
}

}  // namespace pmixflow::view
