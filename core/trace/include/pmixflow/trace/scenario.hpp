// Scenario files: JSON Lines, a versioned header then one timed operation per line (see the
// README's "Scenario files"). Everything SWF cannot say: any directive through any entry
// point, session control, scheduler attach/detach.
#pragma once

#include <cstddef>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/results/assertion.hpp"
#include "pmixflow/roles/controller.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/vocab/principal.hpp"

namespace pmixflow {

inline constexpr std::string_view kScenarioFormat = "pmixflow-scenario";
inline constexpr int kScenarioVersion = 1;

struct ScenarioCall {
  std::size_t line = 0;
  double at = 0;
  std::string requestor;
  std::string via;  // "controller", "scheduler" or "daemon:NODE"
  Call call;        // corr already set: "<requestor>#<n>"
  std::optional<Status> expect_status;
  std::optional<double> recorded_wait;  // a replayed job's wait on the traced machine (SWF field 3)
};

// A party going up or down at a time (scheduler_attach / scheduler_detach).
struct Transition {
  std::size_t line = 0;
  double at = 0;
  bool up = true;
};

// Failure injection (docs/flow.md §2.11, README "Faults"): a node dies with its daemon and
// processes, or comes back repaired; its daemon alone dies (the node stays up) or is
// restarted; its next daemon launch fails, or takes longer; the scheduler stops answering for
// a while.
enum class Fault {
  NodeDies,
  NodeReturns,
  DaemonDies,
  DaemonRestarts,
  DaemonStartFails,
  DaemonStartsSlowly,
  SchedulerStalls
};
std::string_view fault_op(Fault f);  // the scenario op: "node_fail", "node_return", ...

// A fault that happens when the run does something rather than at a time: when the `nth`
// event matching `match` is logged (a request reaching a daemon, the 3rd grant).
struct FaultTrigger {
  EventMatch match;
  std::uint32_t nth = 1;
  nlohmann::json source;  // as written, for the log's header and for people
};

struct FaultEvent {
  std::size_t line = 0;
  double at = 0;  // a time; with a trigger, the delay after it
  std::optional<FaultTrigger> when;
  Fault fault = Fault::NodeDies;
  std::string node;    // a name or +nK; empty for the scheduler
  double lasting = 0;  // SchedulerStalls: for how long; DaemonStartsSlowly: by how much
};

// What the scenario makes the scheduler do itself (scheduler_session_control,
// scheduler_connect); named scheduler#n in the log.
struct SchedulerAction {
  std::size_t line = 0;
  double at = 0;
  std::string via;  // "controller" or "daemon:NODE"
  std::string corr;
  std::optional<Status> expect_status;
  std::variant<SessionCtrlRequest, ConnectRequest> call;
};

// A requestor's process ending (requestor_exit), or a new one starting under the same name
// (requestor_start): a requestor is up from time 0 until its first exit, and each start
// begins a new life, which makes the calls planned within it.
struct RequestorTransition {
  std::size_t line = 0;
  double at = 0;
  std::string requestor;
  bool up = false;
};

struct Scenario {
  std::string origin;
  std::string name;
  std::string description;
  // Controller
  double controller_start = 0;
  std::optional<double> controller_fail;  // when the controller's process dies (controller_fail)
  bool connect_to_scheduler = true;
  NoSchedulerMode no_scheduler = NoSchedulerMode::Hold;
  std::string dvm = "head";    // "head", "all", or a --host list
  bool head_computes = false;  // the controller's node runs jobs too (PRRTE's default)
  // Scheduler
  std::optional<double> scheduler_start = 0.0;  // nullopt: not running until an attach op
  bool scheduler_attaches = true;
  std::string policy = "fcfs";
  bool exclusive_nodes = false;                 // whole nodes even for cpu counts
  bool scheduler_instantiates = true;           // false: grants are answered, the RM never told
  std::optional<double> batch_delay;            // seconds a pass waits (SchedulerConfig's)
  std::map<std::string, int> queue_priorities;  // PMIX_ALLOC_QUEUE name -> priority
  std::vector<Transition> scheduler_transitions;
  std::vector<ScenarioCall> calls;
  std::vector<FaultEvent> faults;
  // Where time 0 of the outputs is: a replay submits its first job once the machine is up,
  // and reports times relative to that first submission.
  double time_origin = 0;
  std::vector<RequestorTransition> requestor_transitions;  // in the file's order
  std::vector<Assertion> assertions;                       // checked against the run's log by its report
  std::vector<SchedulerAction> scheduler_actions;
  // Requestors' users and groups (header `requestors`); the others share one user.
  std::map<std::string, Credentials> credentials;
};

// Throws InputError naming the file, the line and the field.
Scenario parse_scenario(std::istream& in, const std::string& origin);
Scenario load_scenario(const std::string& path);

// One JSON object of PMIx attributes read exactly as a scenario line's "info" is (keys by
// upstream name or key string, values typed as PMIx types them), for inputs that speak the same
// attributes elsewhere (trace/info_text.hpp). Throws InputError naming `origin` and the field
// as `where`.KEY.
InfoList parse_info_json(std::string_view json_object, const std::string& origin, const std::string& where);

}  // namespace pmixflow
