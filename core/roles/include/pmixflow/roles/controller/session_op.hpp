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
  SessionOp verb = SessionOp::Sep;      // never Complete (refused); Sep: PMIX_SESSION_SEP alone
  std::optional<bool> sep;              // PMIX_SESSION_SEP, riding along or alone: false ties, true detaches
  std::vector<std::string> named;       // the jobs PMIX_NSPACE names (PREEMPT, RESTORE, SIGNAL)
  std::optional<std::uint64_t> signal;  // PMIX_SESSION_SIGNAL's number
};

struct ParsedSessionCtrl {
  std::string names;  // the operations named, by upstream name, joined by '+': for the log
  // The operation, or why it is refused: PMIX_ERR_NOT_SUPPORTED for provisioning, resource
  // selection and COMPLETE (what the RM sends, never takes); PMIX_ERR_BAD_PARAM for two
  // operations, or none.
  std::variant<SessionOperation, Status> result;
};

ParsedSessionCtrl parse_session_ctrl(const InfoList& directives);

// Who is asking: the scheduler's order, or a requestor (with no scheduler attached).
struct SessionCaller {
  bool scheduler = false;
  Principal who;
};

// Only the scheduler creates sessions ("PRRTE only creates a session object as a result of a
// call from the scheduler", the seed), and never "every session" at once.
Status may_instantiate(const SessionCaller& caller, std::uint32_t session_id);
// On a session it names: the scheduler on any, a requestor on those its namespace owns.
Status may_act_on(const SessionCaller& caller, const Principal& owner);
// The sessions "every session the caller controls" (UINT32_MAX) means: the scheduler's, those
// it instantiated; a requestor's, those its namespace owns.
bool controls(const SessionCaller& caller, bool instantiated_by_scheduler, const Principal& owner);

}  // namespace pmixflow
