// Who asks, as a PMIx server knows a client: its process (what PMIX_REQUESTOR names) and the
// user and group of the connection's credentials, which the server library adds to what the
// client sends as PMIX_USERID and PMIX_GRPID. A session is managed by the namespace that
// created it or by its user id (FLOW.md §4), so a new tool of the same user may take over a
// session whose creating tool has gone, and another user may not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// A connection's credentials; the simulator's requestors share one user unless told otherwise.
struct Credentials {
  std::uint32_t uid = 1000;
  std::uint32_t gid = 1000;
  bool operator==(const Credentials&) const = default;
};

struct Principal {
  Proc proc;
  std::optional<std::uint32_t> uid;  // unknown when nothing carried them
  std::optional<std::uint32_t> gid;
  bool operator==(const Principal&) const = default;
};

// `proc` with the PMIX_USERID / PMIX_GRPID that `info` carries.
Principal principal_of(const Proc& proc, const InfoList& info);
// Writes PMIX_USERID and PMIX_GRPID, replacing what `info` said: the server's word wins.
void stamp_credentials(InfoList& info, const Credentials& c);
// Adds the principal's ids to `info` (an order carrying whose session it is), where known.
void add_ids(InfoList& info, const Principal& p);
// The same user when both users are known (whatever namespace the caller gives itself), else the
// same namespace.
bool may_manage(const Principal& owner, const Principal& caller);

}  // namespace pmixflow
