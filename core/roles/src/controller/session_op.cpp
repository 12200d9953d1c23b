#include "pmixflow/roles/controller/session_op.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {
namespace {

struct Operation {
  std::string_view key;
  SessionOp verb;
};

// The operational directives exclude each other; SEP may ride along, as a modifier. COMPLETE
// counts as one: it is refused once its session is found (what the RM sends, never takes).
constexpr std::array<Operation, 9> kOperations{{
    {key::SESSION_INSTANTIATE, SessionOp::Instantiate},
    {key::SESSION_PAUSE, SessionOp::Pause},
    {key::SESSION_RESUME, SessionOp::Resume},
    {key::SESSION_PREEMPT, SessionOp::Preempt},
    {key::SESSION_RESTORE, SessionOp::Restore},
    {key::SESSION_SIGNAL, SessionOp::Signal},
    {key::SESSION_TERMINATE, SessionOp::Terminate},
    {key::SESSION_EXTEND, SessionOp::Extend},
    {key::SESSION_COMPLETE, SessionOp::Complete},
}};

// Resource *selection* belongs to the scheduler; the RM is only told which nodes. PRRTE's
// parse_directives() refuses fewer of them beside the directive than inside
// PMIX_SESSION_RESOURCES (scan_resources()).
constexpr std::array<std::string_view, 4> kSelectionDirect{key::ALLOC_NUM_CPU_LIST, key::ALLOC_NUM_NODES,
                                                           key::ALLOC_NUM_CPUS, key::ALLOC_MEM_SIZE};
constexpr std::array<std::string_view, 7> kSelectionInResources{
    key::ALLOC_NUM_NODES, key::ALLOC_NUM_CPUS, key::ALLOC_NUM_CPU_LIST, key::ALLOC_CPU_LIST,
    key::ALLOC_MEM_SIZE,  key::ALLOC_FABRIC,   key::ALLOC_QUEUE};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::optional<std::int64_t> integer(const Value& v) {
  if (const auto* i = std::get_if<std::int32_t>(&v)) return *i;
  if (const auto* u = std::get_if<std::uint32_t>(&v)) return *u;
  if (const auto* u = std::get_if<std::uint64_t>(&v))
    return *u > static_cast<std::uint64_t>(INT64_MAX) ? std::nullopt : std::optional<std::int64_t>(*u);
  return std::nullopt;
}

void add_name(std::string& names, std::string_view key) {
  if (!names.empty()) names += '+';
  names += session_op_name(*parse_session_op(key));
}

bool is_true(const Value& v) { return std::holds_alternative<bool>(v) && std::get<bool>(v); }

// A malformed time limit (PMIX_ALLOC_TIME, PMIX_TIMEOUT) is refused whatever the operation.
Status check_time(const InfoItem& item) {
  if (item.key == key::TIMEOUT) {
    const auto t = integer(item.value);
    return t && *t >= 0 ? Status::Success : Status::ErrBadParam;
  }
  try {
    InfoList one;
    one.add(item.key, item.value);
    return read_alloc_time(one) ? Status::Success : Status::ErrBadParam;
  } catch (const InputError&) {
    return Status::ErrBadParam;
  }
}

Status check_resources(const InfoList& res) {
  for (const auto& item : res.items) {
    if (one_of(kSelectionInResources, item.key)) return Status::ErrNotSupported;
    if (item.key == key::ALLOC_TIME && check_time(item) != Status::Success) return Status::ErrBadParam;
    if (item.key == key::ALLOC_NODE_LIST && !std::holds_alternative<std::string>(item.value))
      return Status::ErrBadParam;
  }
  return Status::Success;
}

// One directive, read as PRRTE's parse_directives() reads it, in the caller's order: the first
// bad one decides the answer.
Status take(const InfoItem& item, ParsedSessionCtrl& p, SessionOperation& op, int& nops) {
  const std::string_view k = item.key;
  for (const auto& o : kOperations)
    if (o.key == k) {
      if (o.verb == SessionOp::Signal) {
        const auto sig = integer(item.value);
        if (!sig || *sig <= 0 || *sig > 64) return Status::ErrBadParam;  // > 64: pmixflow's own bound
        op.signal = static_cast<std::uint64_t>(*sig);
      } else if (!is_true(item.value)) {
        return Status::Success;  // false names nothing (PMIX_INFO_TRUE)
      }
      op.verb = o.verb;
      ++nops;
      add_name(p.names, k);
      return Status::Success;
    }
  if (k == key::SESSION_SEP) {
    op.sep = is_true(item.value);
    add_name(p.names, k);
  } else if (k == key::REQUESTOR) {
    if (!std::holds_alternative<Proc>(item.value)) return Status::ErrBadParam;
  } else if (k == key::SESSION_RESOURCES) {
    const auto* res = std::get_if<InfoList>(&item.value);
    return res ? check_resources(*res) : Status::ErrBadParam;
  } else if (k == key::SESSION_JOB) {
    if (!std::holds_alternative<InfoList>(item.value)) return Status::ErrBadParam;
    op.job_info = true;
  } else if (k == key::SESSION_APP) {
    if (!std::holds_alternative<std::vector<App>>(item.value)) return Status::ErrBadParam;
    op.apps = true;
  } else if (k == key::SESSION_PROVISION_NODES || k == key::SESSION_PROVISION_IMAGE) {
    return Status::ErrNotSupported;  // PRRTE runs on the machines it is given, as it finds them
  } else if (k == key::USERID) {
    if (!integer(item.value)) return Status::ErrBadParam;
  } else if (k == key::ALLOC_NODE_LIST) {
    if (!std::holds_alternative<std::string>(item.value)) return Status::ErrBadParam;
  } else if (k == key::ALLOC_TIME || k == key::TIMEOUT) {
    return check_time(item);
  } else if (one_of(kSelectionDirect, k)) {
    return Status::ErrNotSupported;
  } else if (k == key::NSPACE) {
    const auto* ns = std::get_if<std::string>(&item.value);
    if (!ns) return Status::ErrBadParam;  // PRRTE would read a string that is not there
    op.named.push_back(*ns);
  }
  // Any other key is not an error: the request may be addressed at more than one RTE.
  return Status::Success;
}

}  // namespace

ParsedSessionCtrl parse_session_ctrl(const InfoList& d) {
  ParsedSessionCtrl p;
  SessionOperation op;
  int nops = 0;
  for (const auto& item : d.items)
    if (const Status st = take(item, p, op, nops); st != Status::Success) {
      p.result = st;
      return p;
    }
  // The operations are alternatives; none at all (and no SEP) asks nothing. Apps and job info
  // are only launched by the instantiation that holds them, and job info needs its apps.
  const bool nothing = nops == 0 && !op.sep;
  const bool stray_job = (op.apps || op.job_info) && op.verb != SessionOp::Instantiate;
  if (nops > 1 || nothing || (op.job_info && !op.apps) || stray_job) {
    p.result = Status::ErrBadParam;
    return p;
  }
  if (nops == 0) op.verb = SessionOp::Sep;
  p.result = std::move(op);
  return p;
}

InfoList resource_keys(const InfoList& directives) {
  InfoList out;
  const auto take = [&out](const InfoItem& item) {
    if (item.key != key::ALLOC_NODE_LIST)
      std::erase_if(out.items, [&](const InfoItem& seen) { return seen.key == item.key; });
    out.items.push_back(item);
  };
  for (const auto& item : directives.items) {
    if (item.key != key::SESSION_RESOURCES) {
      take(item);
    } else if (const auto* res = std::get_if<InfoList>(&item.value)) {
      for (const auto& inside : res->items) take(inside);
    }
  }
  return out;
}

Status may_instantiate(const SessionCaller& caller, std::uint32_t session_id) {
  if (session_id == kAllSessions) return Status::ErrBadParam;
  return caller.scheduler ? Status::Success : Status::ErrNoPermissions;
}

bool owns(const SessionCaller& caller, const Principal& owner, std::uint32_t session) {
  if (caller.scheduler) return true;
  if (!caller.application) return may_manage(owner, caller.who);
  const bool named = caller.who.proc.nspace == owner.proc.nspace || (session != 0 && caller.in_session == session);
  const bool other_user = owner.uid && caller.who.uid && *owner.uid != *caller.who.uid;
  return named && !other_user;
}

Status may_act_on(const SessionCaller& caller, const Principal& owner, std::uint32_t session) {
  return owns(caller, owner, session) ? Status::Success : Status::ErrNoPermissions;
}

}  // namespace pmixflow
