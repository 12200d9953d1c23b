#include "pmixflow/trace/deployment.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/trace/dvm_hosts.hpp"
#include "pmixflow/trace/node_failures.hpp"
#include "pmixflow/trace/replay_calls.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/hostlist.hpp"
#include "pmixflow/vocab/human_text.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow {
namespace {

// One compute node by name or by its place (`+nK`, as in a --host list), so that one scenario
// runs on any machine. `what` is the field, for the error. Looked up in the cluster's indexes:
// a replay resolves one for every job it submits through a daemon.
NodeId one_node(const std::string& text, const Cluster& cluster, const std::string& what) {
  const HostSpec spec = parse_host_list(text, HostUse::Activate, what);
  const bool single = spec.hosts.size() + spec.relative.size() == 1 && !spec.all && spec.excluded.empty();
  std::optional<NodeId> found;
  if (single && !spec.relative.empty()) found = cluster.schedulable_at(spec.relative.front());
  if (single && !spec.hosts.empty()) found = cluster.find(spec.hosts.front().name);
  if (found && cluster.node(*found).schedulable) return *found;
  // Anything else is an error: the general resolution says which, as it would for a list.
  const auto chosen = resolve_hosts(spec, cluster.schedulable_names(), what);
  if (chosen.size() != 1) throw InputError(what, 0, "", "names " + std::to_string(chosen.size()) + " nodes");
  return *cluster.find(chosen.front());
}

Address resolve_via(const std::string& via, std::size_t line, const Scenario& sc, const Cluster& cluster) {
  if (via == "controller") return Address::controller();
  if (via == "scheduler") return Address::scheduler();
  const std::string node = via.substr(7);  // "daemon:NODE"
  try {
    return Address::daemon(one_node(node, cluster, "via"));
  } catch (const InputError& e) {
    if (cluster.find(node) == Cluster::kHead)
      throw InputError(sc.origin, line, "via",
                       quote_value(node) + " is the head node: its daemon is the controller (use \"controller\")");
    const auto& nodes = cluster.nodes();
    throw InputError(sc.origin, line, "via",
                     "no single compute node " + quote_value(node) + ": " + e.detail() + " (nodes are " +
                         nodes[1].name + " .. " + nodes.back().name + ", or +n0 .. +n" +
                         std::to_string(nodes.size() - 2) + ")");
  }
}

SchedulerConfig scheduler_config(const Scenario& sc, const RunInputs& in, const Cluster& cluster) {
  SchedulerConfig c;
  c.attach_at_start = sc.scheduler_attaches;
  c.exclusive_nodes = sc.exclusive_nodes || in.exclusive_nodes;
  c.batch_delay = in.batch_delay.value_or(sc.batch_delay.value_or(kDefaultBatchDelay));
  c.queue_priorities = sc.queue_priorities;
  for (const auto& [queue, priority] : in.queue_priorities) c.queue_priorities[queue] = priority;
  c.instantiates = sc.scheduler_instantiates;
  for (const auto& a : sc.scheduler_actions)
    c.script.push_back(
        ScriptedCall{a.at, a.corr, a.line, a.expect_status, resolve_via(a.via, a.line, sc, cluster), a.call});
  return c;
}

// The apps a call carries: a spawn's, or those of the session it asks for.
std::vector<App> apps_of(const Call& call) {
  if (const auto* spawn = std::get_if<SpawnRequest>(&call)) return spawn->apps;
  const InfoList& info = std::holds_alternative<AllocRequest>(call) ? std::get<AllocRequest>(call).info
                                                                    : std::get<SessionCtrlRequest>(call).directives;
  if (const auto* apps = info.get<std::vector<App>>(key::SESSION_APP)) return *apps;
  return {};
}

// An app that fails to launch on some nodes names nodes of this machine: a name it does not
// have would silently never fail.
void check_launch_failures(const ScenarioCall& c, const Scenario& sc, const Cluster& cluster) {
  for (const App& app : apps_of(c.call))
    for (const auto& name : app_behaviour(app).fail_launch_on) {
      const auto n = cluster.find(name);
      if (!n || !cluster.node(*n).schedulable)
        throw InputError(sc.origin, c.line, "app.fail_launch",
                         "no compute node " + quote_value(name) + " on this machine");
    }
}

// The requestor named `name`, added on its first appearance.
RequestorDeployment& requestor(Deployment& d, std::map<std::string, std::size_t>& index, const std::string& name,
                               const Scenario& sc) {
  auto [it, added] = index.emplace(name, d.requestors.size());
  if (added) {
    const auto cred = sc.credentials.find(name);
    RequestorDeployment r;
    r.name = name;
    r.identity = Proc{name, 0};
    r.schedule = {{0.0, true}};
    r.credentials = cred == sc.credentials.end() ? Credentials{} : cred->second;
    r.own_user = cred != sc.credentials.end();
    d.requestors.push_back(std::move(r));
  }
  return d.requestors[it->second];
}

// Each requestor's lives from its requestor_exit and requestor_start lines: up from 0, down at
// an exit, up again at a start (a new process under the same name). At one time an exit comes
// before a start: the two are a restart.
void check_transitions(const std::vector<const RequestorTransition*>& ts, const Scenario& sc) {
  const RequestorTransition* last_exit = nullptr;
  for (const RequestorTransition* t : ts) {
    if (!t->up && last_exit)
      throw InputError(sc.origin, t->line, "op",
                       quote_value(t->requestor) + " has already exited (line " + std::to_string(last_exit->line) +
                           "): a requestor_start must come between its two exits");
    if (t->up && !last_exit)
      throw InputError(sc.origin, t->line, "op",
                       quote_value(t->requestor) +
                           " is running (a requestor is up from time 0): requestor_start starts it again after "
                           "its requestor_exit");
    last_exit = t->up ? nullptr : t;
  }
}

// A call is made in one of its requestor's lives: one planned while it is down could never be
// made, and a run that quietly skipped it would claim what it did not show.
void check_call_in_a_life(const RequestorDeployment& r, double at, std::size_t line, const Scenario& sc,
                          const std::vector<const RequestorTransition*>& ts) {
  if (r.life_at(at)) return;
  const RequestorTransition* exit = nullptr;
  for (const RequestorTransition* t : ts)
    if (t->at <= at) exit = t->up ? nullptr : t;
  const std::string when = exit ? "at or after its requestor_exit at " + significant(exit->at) + " s (line " +
                                      std::to_string(exit->line) + ")"
                                : "while it is not running";
  throw InputError(sc.origin, line, "at",
                   quote_value(r.name) + " calls at " + significant(at) + " s, " + when +
                       ": a requestor that has exited makes no call (a requestor_start line starts it again)");
}

void lives(Deployment& d, const std::map<std::string, std::size_t>& index, const Scenario& sc) {
  std::map<std::string, std::vector<const RequestorTransition*>> by_requestor;
  for (const auto& t : sc.requestor_transitions) {
    if (!index.count(t.requestor))
      throw InputError(sc.origin, t.line, "requestor",
                       "no requestor named " + quote_value(t.requestor) + " makes a call");
    by_requestor[t.requestor].push_back(&t);
  }
  for (auto& [name, ts] : by_requestor) {
    std::stable_sort(ts.begin(), ts.end(), [](const RequestorTransition* a, const RequestorTransition* b) {
      return a->at < b->at || (a->at == b->at && !a->up && b->up);
    });
    check_transitions(ts, sc);
    RequestorDeployment& r = d.requestors[index.at(name)];
    for (const RequestorTransition* t : ts) r.schedule.emplace_back(t->at, t->up);
    for (const auto& c : r.plan) check_call_in_a_life(r, c.at, c.notes.line, sc, ts);
    for (const auto& j : r.replay) check_call_in_a_life(r, j.at, j.line, sc, ts);
  }
}

// The scheduler's own calls are made by a running scheduler: one planned while it is detached
// could never be made, and would go missing from the run's account of its calls. Nor is there a
// process to stall while it is detached: a stall at a time is refused then (one triggered by the
// run stalls nothing when it finds no scheduler running, docs/flow.md).
void check_scheduler_up(UpDown schedule, const Scenario& sc) {
  std::stable_sort(schedule.begin(), schedule.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first || (a.first == b.first && !a.second); });
  for (const auto& a : sc.scheduler_actions)
    if (!life_at(schedule, a.at))
      throw InputError(sc.origin, a.line, "at",
                       "the scheduler makes this call at " + significant(a.at) +
                           " s, while it is not running: a scheduler that is not running makes no call "
                           "(a scheduler_attach before it starts it again)");
  for (const auto& f : sc.faults)
    if (f.fault == Fault::SchedulerStalls && !f.when && !life_at(schedule, f.at))
      throw InputError(sc.origin, f.line, "at",
                       "scheduler_stall at " + significant(f.at) +
                           " s, while the scheduler is not running: there is no scheduler process to stall "
                           "(a scheduler_attach before it starts it again)");
}

// Requestors in order of first appearance, each with its calls resolved on this machine: the
// scenario's, or the replayed trace's jobs.
void requestors(Deployment& d, const Workload& workload, const Cluster& cluster) {
  const Scenario& sc = workload.scenario;
  std::map<std::string, std::size_t> index;
  for (const auto& c : sc.calls) {
    check_launch_failures(c, sc, cluster);
    requestor(d, index, c.requestor, sc)
        .plan.push_back(PlannedCall{c.at, resolve_via(c.via, c.line, sc, cluster), c.call,
                                    CallNotes{c.line, c.expect_status, c.recorded_wait}});
    d.last_call = std::max(d.last_call, c.at);
  }
  for (const auto& job : workload.replay) {
    ReplayJob& placed = requestor(d, index, replay_requestor(job), sc).replay.emplace_back(job);
    placed.via = resolve_via(replay_via(job), job.line, sc, cluster);
    d.last_call = std::max(d.last_call, job.at);
  }
  lives(d, index, sc);
  for (const auto& [name, cred] : sc.credentials)
    if (!index.count(name))
      throw InputError(sc.origin, 1, "requestors." + name, "no requestor named " + quote_value(name) + " makes a call");
}

// --node-mtbf: every compute node's failures and repairs, drawn over the trace's span. The
// head node is left out even when it computes: it is the controller, whose failure is another
// fault (controller_fail) that ends the whole DVM.
void random_failures(Deployment& d, const Workload& workload, const RunInputs& in, const Cluster& cluster) {
  if (!workload.trace || !in.node_mtbf) return;
  std::vector<NodeId> nodes;
  for (NodeId id = 0; id < cluster.size(); ++id)
    if (id != Cluster::kHead && cluster.node(id).schedulable) nodes.push_back(id);
  const auto drawn = draw_node_failures(NodeFailureModel{*in.node_mtbf, in.node_mttr}, in.seed, nodes,
                                        failure_span(*workload.trace, workload.scenario.time_origin));
  for (const auto& f : drawn) d.last_call = std::max(d.last_call, f.at);
  d.faults.insert(d.faults.end(), drawn.begin(), drawn.end());
}

}  // namespace

std::optional<std::size_t> life_at(const UpDown& schedule, double t) {
  std::size_t ups = 0;
  bool up = false;
  for (const auto& [at, goes_up] : schedule) {
    if (at > t) break;
    ups += goes_up ? 1 : 0;
    up = goes_up;
  }
  if (!up) return std::nullopt;
  return ups - 1;
}

std::optional<std::size_t> RequestorDeployment::life_at(double t) const { return pmixflow::life_at(schedule, t); }

namespace {

// The entries of `all` whose time falls in `life`, moved out in their order.
template <class T>
std::vector<T> take_life(std::vector<T>& all, const RequestorDeployment& r, std::size_t life) {
  // One life (no requestor_exit): all of them, moved whole, as a replay's million jobs must be.
  if (r.schedule.size() <= 1) return std::exchange(all, {});
  std::vector<T> mine;
  std::vector<T> rest;
  for (T& item : all) (r.life_at(item.at) == life ? mine : rest).push_back(std::move(item));
  all = std::move(rest);
  return mine;
}

}  // namespace

std::unique_ptr<CallSource> RequestorDeployment::take_calls(std::size_t life) {
  if (!replay.empty()) return std::make_unique<ReplayCalls>(take_life(replay, *this, life));
  return std::make_unique<PlanList>(take_life(plan, *this, life));
}

std::unique_ptr<CallSource> RequestorDeployment::calls(std::size_t life) const {
  return RequestorDeployment(*this).take_calls(life);
}

std::vector<Address> RequestorDeployment::entry_points() const {
  std::vector<Address> out;
  auto add = [&out](Address a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const auto& c : plan) add(c.via);
  for (const auto& j : replay) add(j.via);
  return out;
}

std::uint64_t Deployment::calls_planned() const {
  std::uint64_t n = scheduler.script.size();  // the scheduler's own calls (scheduler#n) are calls too
  for (const auto& r : requestors) n += r.calls_planned();
  return n;
}

Deployment deploy(const Workload& workload, const RunInputs& in, const Cluster& cluster) {
  const Scenario& sc = workload.scenario;
  Deployment d;
  requestors(d, workload, cluster);
  d.controller.connect_to_scheduler = sc.connect_to_scheduler;
  d.controller.no_scheduler = sc.no_scheduler;
  d.controller.initial_dvm = initial_dvm(sc, in, cluster);
  d.controller_schedule = {{sc.controller_start, true}};
  if (sc.controller_fail) {
    if (*sc.controller_fail < sc.controller_start)
      throw InputError(sc.origin, 0, "controller_fail", "the controller fails before it starts");
    d.controller_schedule.emplace_back(*sc.controller_fail, false);
    d.last_call = std::max(d.last_call, *sc.controller_fail);
  }
  d.scheduler = scheduler_config(sc, in, cluster);
  for (const auto& a : sc.scheduler_actions) d.last_call = std::max(d.last_call, a.at);
  if (sc.scheduler_start) d.scheduler_schedule.emplace_back(*sc.scheduler_start, true);
  for (const auto& t : sc.scheduler_transitions) d.scheduler_schedule.emplace_back(t.at, t.up);
  check_scheduler_up(d.scheduler_schedule, sc);
  for (const auto& [at, up] : d.scheduler_schedule)
    if (up) d.scheduler.planned_starts.push_back(at);
  std::sort(d.scheduler.planned_starts.begin(), d.scheduler.planned_starts.end());
  for (const auto& fault : sc.faults) {
    FaultAt f{fault.at, fault.when, fault.fault, 0, fault.lasting};
    if (!fault.when) d.last_call = std::max(d.last_call, fault.at);
    if (fault.fault == Fault::SchedulerStalls) {
      d.faults.push_back(std::move(f));
      continue;
    }
    try {
      f.node = one_node(fault.node, cluster, "node");
    } catch (const InputError& e) {
      throw InputError(sc.origin, fault.line, "node",
                       "no single compute node " + quote_value(fault.node) + ": " + e.detail());
    }
    d.faults.push_back(std::move(f));
  }
  random_failures(d, workload, in, cluster);
  return d;
}

}  // namespace pmixflow
