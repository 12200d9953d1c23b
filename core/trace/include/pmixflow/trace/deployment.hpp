// Who runs, when, and does what: the parties a scenario puts on a machine. The controller and
// the scheduler with their configuration and the times they come up and go down; each
// requestor with its identity, its calls resolved to the party they enter through, and its
// exit; the node faults to inject. An environment places these parties on its own hosts.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/roles/controller.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/trace/run.hpp"
#include "pmixflow/trace/scenario.hpp"
#include "pmixflow/vocab/principal.hpp"

namespace pmixflow {

// When a party comes up (true) and goes down (false), in order; the first entry starts it.
using UpDown = std::vector<std::pair<double, bool>>;

// Which of a party's lives (0: the first process, 1: the one it was next started as, ...) is
// running at time t, by its schedule in order; none while it is down. Every transition at or
// before t has happened: a party that goes down at t does nothing at t, one that comes up at t
// does.
std::optional<std::size_t> life_at(const UpDown& schedule, double t);

struct RequestorDeployment {
  std::string name;
  Proc identity;
  std::vector<PlannedCall> plan;  // a scenario's calls
  std::vector<ReplayJob> replay;  // or a trace's jobs, whose calls are made when due
  UpDown schedule;
  Credentials credentials;  // its connection's user and group
  bool own_user = false;    // the scenario names its user (header `requestors`); otherwise the shared one

  // Which of its lives (0: the first process, 1: the one a requestor_start began, ...) is
  // running at time t; none while it is down. Its calls are each in one life (deploy()).
  std::optional<std::size_t> life_at(double t) const;
  // The calls of one life, for the Requestor of that life: take_calls() moves them out (a run
  // has one requestor of each life), calls() copies them.
  std::unique_ptr<CallSource> take_calls(std::size_t life = 0);
  std::unique_ptr<CallSource> calls(std::size_t life = 0) const;
  std::size_t calls_planned() const { return plan.size() + replay.size(); }
  std::vector<Address> entry_points() const;  // where its calls enter, each once
};

// A fault resolved to the machine: its node (none for the scheduler's stall).
struct FaultAt {
  double at = 0;  // with a trigger: the delay after it
  std::optional<FaultTrigger> when;
  Fault fault = Fault::NodeDies;
  NodeId node = 0;
  double lasting = 0;
};

struct Deployment {
  ControllerConfig controller;
  UpDown controller_schedule;
  SchedulerConfig scheduler;
  UpDown scheduler_schedule;
  std::vector<RequestorDeployment> requestors;  // in order of first appearance in the scenario
  std::vector<FaultAt> faults;
  double last_call = 0;  // when the last call is planned: how far a run has to go

  // Every call the requestors and the scheduler's script will make: what a run's account of its
  // calls starts from.
  std::uint64_t calls_planned() const;
};

// Throws InputError naming the scenario's file, line and field: an entry point or a node that
// is not on this machine, a requestor_exit of a requestor that makes no call, a call planned
// while its requestor is not running.
Deployment deploy(const Workload& workload, const RunInputs& in, const Cluster& cluster);

}  // namespace pmixflow
