#include "pmixflow/vocab/vocab.hpp"

#include <array>
#include <utility>

#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow {
namespace {

constexpr std::array<std::pair<Directive, std::string_view>, 7> kDirectives{{
    {Directive::New, "PMIX_ALLOC_NEW"},
    {Directive::Extend, "PMIX_ALLOC_EXTEND"},
    {Directive::Release, "PMIX_ALLOC_RELEASE"},
    {Directive::Reaquire, "PMIX_ALLOC_REAQUIRE"},
    {Directive::ReqCancel, "PMIX_ALLOC_REQ_CANCEL"},
    {Directive::Activate, "PMIX_ALLOC_ACTIVATE"},
    {Directive::External, "PMIX_ALLOC_EXTERNAL"},
}};

constexpr std::array<std::pair<Status, std::string_view>, 27> kStatuses{{
    {Status::Success, "PMIX_SUCCESS"},
    {Status::Error, "PMIX_ERROR"},
    {Status::ErrExists, "PMIX_ERR_EXISTS"},
    {Status::ErrNoPermissions, "PMIX_ERR_NO_PERMISSIONS"},
    {Status::ErrTimeout, "PMIX_ERR_TIMEOUT"},
    {Status::ErrUnreach, "PMIX_ERR_UNREACH"},
    {Status::ErrBadParam, "PMIX_ERR_BAD_PARAM"},
    {Status::ErrNotFound, "PMIX_ERR_NOT_FOUND"},
    {Status::ErrNotSupported, "PMIX_ERR_NOT_SUPPORTED"},
    {Status::ErrOutOfResource, "PMIX_ERR_OUT_OF_RESOURCE"},
    {Status::ErrLostConnection, "PMIX_ERR_LOST_CONNECTION"},
    {Status::EventJobEnd, "PMIX_EVENT_JOB_END"},
    {Status::OperationInProgress, "PMIX_OPERATION_IN_PROGRESS"},
    {Status::OperationSucceeded, "PMIX_OPERATION_SUCCEEDED"},
    {Status::ErrJobCanceled, "PMIX_ERR_JOB_CANCELED"},
    {Status::ErrJobFailedToLaunch, "PMIX_ERR_JOB_FAILED_TO_LAUNCH"},
    {Status::ErrJobKilledByCmd, "PMIX_ERR_JOB_KILLED_BY_CMD"},
    {Status::ErrJobAbortedBySig, "PMIX_ERR_JOB_ABORTED_BY_SIG"},
    {Status::ErrJobNonZeroTerm, "PMIX_ERR_JOB_NON_ZERO_TERM"},
    {Status::ErrJobAllocFailed, "PMIX_ERR_JOB_ALLOC_FAILED"},
    {Status::ErrJobAbortedBySysEvent, "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT"},
    {Status::EventJobStart, "PMIX_EVENT_JOB_START"},
    {Status::EventSessionStart, "PMIX_EVENT_SESSION_START"},
    {Status::EventSessionEnd, "PMIX_EVENT_SESSION_END"},
    {Status::DvmIsReady, "PMIX_DVM_IS_READY"},
    {Status::ErrDvmMod, "PMIX_ERR_DVM_MOD"},
    {Status::EventNodeDown, "PMIX_EVENT_NODE_DOWN"},
}};

struct SessionOpName {
  SessionOp op;
  std::string_view name;
  std::string_view key;
};
constexpr std::array<SessionOpName, 10> kSessionOps{{
    {SessionOp::Instantiate, "PMIX_SESSION_INSTANTIATE", key::SESSION_INSTANTIATE},
    {SessionOp::Pause, "PMIX_SESSION_PAUSE", key::SESSION_PAUSE},
    {SessionOp::Resume, "PMIX_SESSION_RESUME", key::SESSION_RESUME},
    {SessionOp::Preempt, "PMIX_SESSION_PREEMPT", key::SESSION_PREEMPT},
    {SessionOp::Restore, "PMIX_SESSION_RESTORE", key::SESSION_RESTORE},
    {SessionOp::Signal, "PMIX_SESSION_SIGNAL", key::SESSION_SIGNAL},
    {SessionOp::Terminate, "PMIX_SESSION_TERMINATE", key::SESSION_TERMINATE},
    {SessionOp::Extend, "PMIX_SESSION_EXTEND", key::SESSION_EXTEND},
    {SessionOp::Sep, "PMIX_SESSION_SEP", key::SESSION_SEP},
    {SessionOp::Complete, "PMIX_SESSION_COMPLETE", key::SESSION_COMPLETE},
}};

// Accepts the full upstream name or the same without its prefix ("NEW" for "PMIX_ALLOC_NEW").
bool name_matches(std::string_view full, std::string_view prefix, std::string_view text) {
  if (text == full) return true;
  return full.substr(0, prefix.size()) == prefix && full.substr(prefix.size()) == text;
}

}  // namespace

std::string_view directive_name(Directive d) {
  for (const auto& [dir, name] : kDirectives)
    if (dir == d) return name;
  return "PMIX_ALLOC_UNKNOWN";
}

std::optional<Directive> parse_directive(std::string_view text) {
  for (const auto& [dir, name] : kDirectives)
    if (name_matches(name, "PMIX_ALLOC_", text)) return dir;
  return std::nullopt;
}

std::string status_name(Status s) {
  for (const auto& [st, name] : kStatuses)
    if (st == s) return std::string(name);
  return std::to_string(static_cast<int>(s));
}

std::optional<Status> parse_status(std::string_view text) {
  for (const auto& [st, name] : kStatuses)
    if (name == text) return st;
  if (const auto value = parse_whole<int>(text)) return static_cast<Status>(*value);
  return std::nullopt;
}

std::string_view session_op_key(SessionOp op) { return kSessionOps[static_cast<std::size_t>(op)].key; }
std::string_view session_op_name(SessionOp op) { return kSessionOps[static_cast<std::size_t>(op)].name; }

std::optional<SessionOp> parse_session_op(std::string_view text) {
  for (const auto& entry : kSessionOps)
    if (name_matches(entry.name, "PMIX_SESSION_", text) || entry.key == text) return entry.op;
  return std::nullopt;
}

}  // namespace pmixflow
