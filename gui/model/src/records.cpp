#include <algorithm>

#include "pmixflow/view/machine.hpp"
#include "pmixflow/view/records.hpp"
#include "pmixflow/view/run_model.hpp"
#include "pmixflow/vocab/host_ranges.hpp"

namespace pmixflow::view {

std::string_view look_name(NodeLook look) {
  switch (look) {
    case NodeLook::OutsideDvm: return "outside the DVM";
    case NodeLook::AllocatedNoDaemon: return "allocated, no daemon";
    case NodeLook::DaemonStarting: return "daemon starting";
    case NodeLook::Free: return "in the DVM, free";
    case NodeLook::Withheld: return "withheld for a session";
    case NodeLook::Running: return "running a job";
    case NodeLook::Suspended: return "job suspended";
    case NodeLook::Failed: return "failed";
  }
  return "?";
}

NodeLook look_of(const NodeState& n) {
  if (n.down || n.daemon == DaemonState::Failed) return NodeLook::Failed;
  if (n.daemon == DaemonState::Starting) return NodeLook::DaemonStarting;
  if (n.daemon == DaemonState::None) return n.sessions > 0 ? NodeLook::AllocatedNoDaemon : NodeLook::OutsideDvm;
  if (n.use == NodeUse::Busy) return n.suspended ? NodeLook::Suspended : NodeLook::Running;
  if (n.use == NodeUse::Withheld || n.sessions > 0) return NodeLook::Withheld;
  return NodeLook::Free;
}

std::vector<std::size_t> MachineState::census() const {
  std::vector<std::size_t> out(kLookCount, 0);
  for (const auto& n : nodes_) ++out[static_cast<std::size_t>(look_of(n))];
  return out;
}

std::string_view phase_name(SessionPhase phase) {
  switch (phase) {
    case SessionPhase::Instantiating: return "instantiating";
    case SessionPhase::Active: return "active";
    case SessionPhase::Paused: return "paused";
    case SessionPhase::Preempted: return "preempted";
    case SessionPhase::Terminating: return "terminating";
    case SessionPhase::Reclaimed: return "reclaimed";
  }
  return "?";
}

namespace {
template <class Phase>
std::optional<Phase> phase_in(const std::vector<std::pair<double, Phase>>& phases, double t) {
  const auto it = std::upper_bound(phases.begin(), phases.end(), t,
                                   [](double time, const std::pair<double, Phase>& p) { return time < p.first; });
  if (it == phases.begin()) return std::nullopt;
  return std::prev(it)->second;
}
}  // namespace

std::optional<SessionPhase> phase_at(const SessionRecord& s, double t) { return phase_in(s.phases, t); }
std::optional<JobPhase> phase_at(const JobRecord& j, double t) { return phase_in(j.phases, t); }

PartyRole role_of(std::string_view who) {
  if (who.starts_with("requestor:")) return PartyRole::Requestor;
  if (who.starts_with("daemon:")) return PartyRole::Daemon;
  if (who == "controller") return PartyRole::Controller;
  if (who == "scheduler") return PartyRole::Scheduler;
  return PartyRole::Other;
}

std::vector<std::uint32_t> lane_order(const std::vector<Party>& parties) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < parties.size(); ++i)
    if (parties[i].role != PartyRole::Other) out.push_back(i);
  // Requestors in the order they appear (a scenario's order), the others by role and name.
  std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& pa = parties[a];
    const auto& pb = parties[b];
    if (pa.role != pb.role) return pa.role < pb.role;
    if (pa.role == PartyRole::Daemon) return natural_less(pa.name, pb.name);
    return false;
  });
  return out;
}

std::uint64_t Execution::slot_count() const {
  std::uint64_t n = 0;
  for (const auto& [lo, hi] : ranges) n += std::uint64_t{hi} - lo + 1;
  return n;
}

double StepSeries::at(double time) const {
  const auto it = std::upper_bound(t.begin(), t.end(), time);
  if (it == t.begin()) return 0;
  return v[static_cast<std::size_t>(it - t.begin()) - 1];
}

double StepSeries::max() const { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

}  // namespace pmixflow::view
