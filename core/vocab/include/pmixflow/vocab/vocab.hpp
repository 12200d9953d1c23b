// PMIx vocabulary the flow speaks: directives, status codes and attribute keys, with the
// exact upstream values (spec/PMIX-CONSTANTS.md). Names drop the PMIX_ prefix so that this
// header can sit beside <pmix.h>, whose macros carry the prefixed names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmixflow {

// pmix_alloc_directive_t
enum class Directive : std::uint8_t {
  New = 1,
  Extend = 2,
  Release = 3,
  Reaquire = 4,  // upstream spelling
  ReqCancel = 5,
  Activate = 6,
  External = 128,
};

// pmix_status_t values the flow itself uses (status.cpp names every one 4.2.2 defines). An
// open set upstream, so any int round-trips through this type.
enum class Status : std::int32_t {
  Success = 0,
  Error = -1,
  ErrExists = -11,
  ErrNoPermissions = -23,
  ErrTimeout = -24,
  ErrUnreach = -25,
  ErrBadParam = -27,
  ErrNotFound = -46,
  ErrNotSupported = -47,
  ErrOutOfResource = -29,
  ErrLostConnection = -61,
  EventJobEnd = -145,
  OperationInProgress = -156,
  OperationSucceeded = -157,
  ErrJobFailedToMap = -179,
  ErrJobCanceled = -180,
  ErrJobFailedToLaunch = -181,
  ErrJobKilledByCmd = -183,
  ErrJobAbortedBySig = -184,
  ErrJobTermWoSync = -185,
  ErrJobNonZeroTerm = -187,
  ErrJobAllocFailed = -188,
  ErrJobAbortedBySysEvent = -189,
  EventJobStart = -191,
  EventSessionStart = -192,
  EventSessionEnd = -193,
  DvmIsReady = -195,
  ErrDvmMod = -196,
  EventNodeDown = -231,
  ErrExitNonzeroTerm = -404,
};

// Session-control operations (the PMIX_SESSION_* boolean keys).
enum class SessionOp : std::uint8_t {
  Instantiate,
  Pause,
  Resume,
  Preempt,
  Restore,
  Signal,
  Terminate,
  Extend,
  Sep,
  Complete,
};

// PMIX_ALLOC_INHERITANCE values.
enum class Inheritance : std::uint8_t { None = 1, Child = 2, Default = 3, ChildDefault = 4 };

std::string_view directive_name(Directive d);                     // "PMIX_ALLOC_NEW"
std::optional<Directive> parse_directive(std::string_view text);  // "PMIX_ALLOC_NEW" or "NEW"
// Every code OpenPMIx 4.2.2 names (and the OpenPMIx 5 codes the flow uses) by its upstream
// name; any other as the named unknown "PMIX_STATUS_UNKNOWN(-4242)", never a bare number.
std::string status_name(Status s);  // "PMIX_ERR_NOT_FOUND", "PMIX_STATUS_UNKNOWN(-4242)"
bool status_named(Status s);        // false: status_name gives the named unknown
// An upstream name, the named unknown, or a bare number (logs written before every code had
// a name, and scenario files).
std::optional<Status> parse_status(std::string_view text);
std::string_view session_op_key(SessionOp op);                     // "pmix.ssn.inst"
std::string_view session_op_name(SessionOp op);                    // "PMIX_SESSION_INSTANTIATE"
std::optional<SessionOp> parse_session_op(std::string_view text);  // name or "INSTANTIATE"

inline constexpr std::uint32_t kAllSessions = UINT32_MAX;  // session id meaning "every session the caller controls"

// Attribute keys, upstream strings (see spec/PMIX-CONSTANTS.md).
namespace key {
inline constexpr std::string_view ALLOC_REQ_ID = "pmix.alloc.reqid";
inline constexpr std::string_view ALLOC_ID = "pmix.alloc.id";
inline constexpr std::string_view ALLOC_NUM_NODES = "pmix.alloc.nnodes";
inline constexpr std::string_view ALLOC_NODE_LIST = "pmix.alloc.nlist";
inline constexpr std::string_view ALLOC_NUM_CPUS = "pmix.alloc.ncpus";
inline constexpr std::string_view ALLOC_NUM_CPU_LIST = "pmix.alloc.ncpulist";
inline constexpr std::string_view ALLOC_CPU_LIST = "pmix.alloc.cpulist";
inline constexpr std::string_view ALLOC_MEM_SIZE = "pmix.alloc.msize";
inline constexpr std::string_view ALLOC_TIME = "pmix.alloc.time";
inline constexpr std::string_view ALLOC_QUEUE = "pmix.alloc.queue";
inline constexpr std::string_view ALLOC_FABRIC = "pmix.alloc.net";
inline constexpr std::string_view ALLOC_PREEMPTIBLE = "pmix.alloc.preempt";
inline constexpr std::string_view ALLOC_CHILD_SEP = "pmix.alloc.sep";
// A spawned job's independence from the job that spawned it (OpenPMIx master, not in 4.2.2).
inline constexpr std::string_view SPAWN_CHILD_SEP = "pmix.spchildsep";
inline constexpr std::string_view ALLOC_INHERITANCE = "pmix.alloc.inhrt";
inline constexpr std::string_view ALLOC_REQ_DIRECTIVE = "pmix.alloc.reqdir";
inline constexpr std::string_view SPAWN_ALLOC = "pmix.spawn.alloc";
inline constexpr std::string_view HOST = "pmix.host";
inline constexpr std::string_view HOSTFILE = "pmix.hostfile";
inline constexpr std::string_view ADD_HOST = "pmix.addhost";
inline constexpr std::string_view ADD_HOSTFILE = "pmix.addhostfile";
inline constexpr std::string_view SESSION_ID = "pmix.session.id";
inline constexpr std::string_view REQUESTOR = "pmix.requestor";
inline constexpr std::string_view NSPACE = "pmix.nspace";
inline constexpr std::string_view TIMEOUT = "pmix.timeout";
inline constexpr std::string_view JOB_TIMEOUT = "pmix.job.time";
inline constexpr std::string_view SPAWN_TIMEOUT = "pmix.sp.time";
inline constexpr std::string_view USERID = "pmix.euid";
inline constexpr std::string_view GRPID = "pmix.egid";
inline constexpr std::string_view JOB_INFO_ARRAY = "pmix.job.arr";
inline constexpr std::string_view JOB_TERM_STATUS = "pmix.job.term.status";
inline constexpr std::string_view HOSTNAME = "pmix.hname";
inline constexpr std::string_view PROCID = "pmix.procid";

inline constexpr std::string_view SESSION_CTRL_ID = "pmix.ssnctrl.id";
inline constexpr std::string_view SESSION_INSTANTIATE = "pmix.ssn.inst";
inline constexpr std::string_view SESSION_RESOURCES = "pmix.ssn.res";
inline constexpr std::string_view SESSION_JOB = "pmix.ssn.job";
inline constexpr std::string_view SESSION_APP = "pmix.ssn.app";
inline constexpr std::string_view SESSION_PROVISION_NODES = "pmix.ssn.pvnnds";
inline constexpr std::string_view SESSION_PROVISION_IMAGE = "pmix.ssn.pvnimg";
inline constexpr std::string_view SESSION_PAUSE = "pmix.ssn.pause";
inline constexpr std::string_view SESSION_RESUME = "pmix.ssn.resume";
inline constexpr std::string_view SESSION_TERMINATE = "pmix.ssn.terminate";
inline constexpr std::string_view SESSION_PREEMPT = "pmix.ssn.preempt";
inline constexpr std::string_view SESSION_RESTORE = "pmix.ssn.restore";
inline constexpr std::string_view SESSION_SIGNAL = "pmix.ssn.sig";
inline constexpr std::string_view SESSION_SEP = "pmix.ssn.sep";
inline constexpr std::string_view SESSION_EXTEND = "pmix.ssn.xtend";
inline constexpr std::string_view SESSION_COMPLETE = "pmix.ssn.complete";

inline constexpr std::string_view SERVER_SCHEDULER = "pmix.srv.sched";
inline constexpr std::string_view SERVER_SYS_CONTROLLER = "pmix.srv.ctrlr";
inline constexpr std::string_view CONNECT_TO_SCHEDULER = "pmix.cnct.sched";
inline constexpr std::string_view CONNECT_TO_SYS_CONTROLLER = "pmix.cnct.ctrlr";
inline constexpr std::string_view TOOL_CONNECT_OPTIONAL = "pmix.tool.conopt";
}  // namespace key

}  // namespace pmixflow
