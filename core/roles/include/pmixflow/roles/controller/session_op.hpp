// PMIx_Session_control's directives as one typed operation, and who may ask for it (FLOW.md §4).
// Pure functions of what the call says and who made it: what the controller then does with
// its sessions is sessions.cpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "pmixflow/vocab/info.hpp"
#include "pmixflow/vocab/principal.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

struct SessionOperation {
  SessionOp verb = SessionOp::Sep;      // Sep: PMIX_SESSION_SEP alone; Complete: refused once found
  std::optional<bool> sep;              // PMIX_SESSION_SEP, riding along or alone: false ties, true detaches
  std::vector<std::string> named;       // the jobs PMIX_NSPACE names (PREEMPT, RESTORE, SIGNAL)
  std::optional<std::uint64_t> signal;  // PMIX_SESSION_SIGNAL's number
  bool apps = false;                    // PMIX_SESSION_APP given (only with INSTANTIATE)
  bool job_info = false;                // PMIX_SESSION_JOB given (only with its apps)
};

struct ParsedSessionCtrl {
  std::string names;  // the operations named, by upstream name, joined by '+': for the log
  // The operation, or why it is refused, as PRRTE's parse_directives() decides
  // (docs/prrte-conformance.md): PMIX_ERR_NOT_SUPPORTED for provisioning and resource selection;
  // PMIX_ERR_BAD_PARAM for a value of the wrong type or out of range, two operations or none,
  // apps or job info outside an instantiation, job info without apps. The first bad directive,
  // in the caller's order, decides.
  std::variant<SessionOperation, Status> result;
};

ParsedSessionCtrl parse_session_ctrl(const InfoList& directives);

// The resource keys of a session control: those beside the directive and those inside
// PMIX_SESSION_RESOURCES. PRRTE reads both into one request, in the caller's order, the
// resources where they stand: every node list counts, and of a key of one value the last one
// read is kept.
InfoList resource_keys(const InfoList& directives);

// Who is asking: the scheduler's order, or a requestor (with no scheduler attached): a tool, or
// a process of a job the RM launched, whose namespace is its identity.
struct SessionCaller {
  bool scheduler = false;
  Principal who;
  bool application = false;      // a process of a live job of this RM
  std::uint32_t in_session = 0;  // the session that job runs in (0: none)
};

// Only the scheduler creates sessions ("PRRTE only creates a session object as a result of a
// call from the scheduler", the seed), and never "every session" at once.
Status may_instantiate(const SessionCaller& caller, std::uint32_t session_id);
// Who owns a session, as PRRTE's prte_session_is_owned_by() decides: the scheduler owns every
// one; the namespace that created it and the jobs launched into it own it; and a tool of the
// user it was made for, as its namespace is minted per invocation - never another job's
// process of that user. Where users are known, the namespace test holds only for the same
// user (a tool names itself; docs/prrte-conformance.md).
bool owns(const SessionCaller& caller, const Principal& owner, std::uint32_t session);
// On a session it names: PMIX_ERR_NO_PERMISSIONS unless the caller owns it.
Status may_act_on(const SessionCaller& caller, const Principal& owner, std::uint32_t session);

}  // namespace pmixflow
