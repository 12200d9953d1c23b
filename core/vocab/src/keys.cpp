#include "pmixflow/vocab/keys.hpp"

#include <array>

#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {
namespace {
// The table names value types bare; in a namespace of its own so that the names stay here (a
// unity build shares a translation unit with other files).
namespace table {

using enum ValueType;

constexpr std::array<KeySpec, 55> kKeys{{
    {"PMIX_ALLOC_REQ_ID", key::ALLOC_REQ_ID, String},
    {"PMIX_ALLOC_ID", key::ALLOC_ID, String},
    {"PMIX_ALLOC_NUM_NODES", key::ALLOC_NUM_NODES, UInt64},
    {"PMIX_ALLOC_NODE_LIST", key::ALLOC_NODE_LIST, String},
    {"PMIX_ALLOC_NUM_CPUS", key::ALLOC_NUM_CPUS, UInt64},
    {"PMIX_ALLOC_NUM_CPU_LIST", key::ALLOC_NUM_CPU_LIST, String},
    {"PMIX_ALLOC_CPU_LIST", key::ALLOC_CPU_LIST, String},
    {"PMIX_ALLOC_MEM_SIZE", key::ALLOC_MEM_SIZE, Double},
    {"PMIX_ALLOC_TIME", key::ALLOC_TIME, AllocTime},
    {"PMIX_ALLOC_QUEUE", key::ALLOC_QUEUE, String},
    {"PMIX_ALLOC_FABRIC", key::ALLOC_FABRIC, InfoList},
    {"PMIX_ALLOC_PREEMPTIBLE", key::ALLOC_PREEMPTIBLE, Bool},
    {"PMIX_ALLOC_CHILD_SEP", key::ALLOC_CHILD_SEP, Bool},
    {"PMIX_ALLOC_INHERITANCE", key::ALLOC_INHERITANCE, UInt32},
    {"PMIX_ALLOC_REQ_DIRECTIVE", key::ALLOC_REQ_DIRECTIVE, Directive},
    {"PMIX_SPAWN_ALLOC", key::SPAWN_ALLOC, InfoList},
    {"PMIX_SPAWN_CHILD_SEP", key::SPAWN_CHILD_SEP, Bool},
    {"PMIX_HOST", key::HOST, String},
    {"PMIX_HOSTFILE", key::HOSTFILE, String},
    {"PMIX_ADD_HOST", key::ADD_HOST, String},
    {"PMIX_ADD_HOSTFILE", key::ADD_HOSTFILE, String},
    {"PMIX_SESSION_ID", key::SESSION_ID, UInt32},
    {"PMIX_REQUESTOR", key::REQUESTOR, Proc},
    {"PMIX_NSPACE", key::NSPACE, String},
    {"PMIX_TIMEOUT", key::TIMEOUT, Int32},
    {"PMIX_JOB_TIMEOUT", key::JOB_TIMEOUT, Int32},
    {"PMIX_SPAWN_TIMEOUT", key::SPAWN_TIMEOUT, Int32},
    {"PMIX_USERID", key::USERID, UInt32},
    {"PMIX_GRPID", key::GRPID, UInt32},
    {"PMIX_JOB_INFO_ARRAY", key::JOB_INFO_ARRAY, InfoList},
    {"PMIX_JOB_TERM_STATUS", key::JOB_TERM_STATUS, Status},
    {"PMIX_SESSION_CTRL_ID", key::SESSION_CTRL_ID, String},
    {"PMIX_SESSION_INSTANTIATE", key::SESSION_INSTANTIATE, Bool},
    {"PMIX_SESSION_RESOURCES", key::SESSION_RESOURCES, InfoList},
    {"PMIX_SESSION_JOB", key::SESSION_JOB, InfoList},
    {"PMIX_SESSION_APP", key::SESSION_APP, Apps},
    {"PMIX_SESSION_PROVISION_NODES", key::SESSION_PROVISION_NODES, String},
    {"PMIX_SESSION_PROVISION_IMAGE", key::SESSION_PROVISION_IMAGE, String},
    {"PMIX_SESSION_PAUSE", key::SESSION_PAUSE, Bool},
    {"PMIX_SESSION_RESUME", key::SESSION_RESUME, Bool},
    {"PMIX_SESSION_TERMINATE", key::SESSION_TERMINATE, Bool},
    {"PMIX_SESSION_PREEMPT", key::SESSION_PREEMPT, Bool},
    {"PMIX_SESSION_RESTORE", key::SESSION_RESTORE, Bool},
    {"PMIX_SESSION_SIGNAL", key::SESSION_SIGNAL, Int32},
    {"PMIX_SESSION_SEP", key::SESSION_SEP, Bool},
    {"PMIX_SESSION_EXTEND", key::SESSION_EXTEND, Bool},
    {"PMIX_SESSION_COMPLETE", key::SESSION_COMPLETE, Bool},
    {"PMIX_SERVER_SCHEDULER", key::SERVER_SCHEDULER, Bool},
    {"PMIX_SERVER_SYS_CONTROLLER", key::SERVER_SYS_CONTROLLER, Bool},
    {"PMIX_CONNECT_TO_SCHEDULER", key::CONNECT_TO_SCHEDULER, Bool},
    {"PMIX_CONNECT_TO_SYS_CONTROLLER", key::CONNECT_TO_SYS_CONTROLLER, Bool},
    {"PMIX_TOOL_CONNECT_OPTIONAL", key::TOOL_CONNECT_OPTIONAL, Bool},
    {"PMIX_PROCID", "pmix.procid", Proc},
    {"PMIX_RANK", "pmix.rank", UInt32},
    {"PMIX_JOBID", "pmix.jobid", String},
}};

}  // namespace table
using table::kKeys;

}  // namespace

std::optional<KeySpec> find_key(std::string_view name_or_key) {
  for (const auto& spec : kKeys)
    if (spec.name == name_or_key || spec.key == name_or_key) return spec;
  return std::nullopt;
}

std::string_view value_type_name(ValueType t) {
  using enum ValueType;
  switch (t) {
    case Bool: return "bool";
    case Int32: return "int";
    case UInt32: return "uint32";
    case UInt64: return "uint64";
    case Double: return "number";
    case String: return "string";
    case Proc: return "proc \"nspace.rank\"";
    case InfoList: return "object of info";
    case Apps: return "app or array of apps";
    case ValueType::Status: return "status name";
    case ValueType::Directive: return "directive name";
    case AllocTime: return "time string or seconds";
  }
  return "?";
}

}  // namespace pmixflow
