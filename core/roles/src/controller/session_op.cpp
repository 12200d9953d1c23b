#include "pmixflow/roles/controller/session_op.hpp"

#include <array>
#include <string_view>

namespace pmixflow {
namespace {

struct Operation {
  std::string_view key;
  SessionOp verb;
};

// The operational directives exclude each other; SEP may ride along. COMPLETE is recognised
// so that it can be refused.
constexpr std::array<Operation, 8> kOperations{{
    {key::SESSION_INSTANTIATE, SessionOp::Instantiate},
    {key::SESSION_PAUSE, SessionOp::Pause},
    {key::SESSION_RESUME, SessionOp::Resume},
    {key::SESSION_PREEMPT, SessionOp::Preempt},
    {key::SESSION_RESTORE, SessionOp::Restore},
    {key::SESSION_SIGNAL, SessionOp::Signal},
    {key::SESSION_TERMINATE, SessionOp::Terminate},
    {key::SESSION_EXTEND, SessionOp::Extend},
}};

// Resource *selection* belongs to the scheduler; the RM is only told which nodes.
constexpr std::array<std::string_view, 6> kSelection{key::SESSION_PROVISION_NODES, key::SESSION_PROVISION_IMAGE,
                                                     key::ALLOC_NUM_NODES,         key::ALLOC_NUM_CPUS,
                                                     key::ALLOC_MEM_SIZE,          key::ALLOC_QUEUE};

bool names(const InfoList& d, std::string_view key) {
  // PMIX_SESSION_SIGNAL carries the signal number; the others are booleans set true.
  return key == key::SESSION_SIGNAL ? d.has(key) : d.flag(key);
}

void add_name(std::string& names, std::string_view key) {
  if (!names.empty()) names += '+';
  names += session_op_name(*parse_session_op(key));
}

}  // namespace

ParsedSessionCtrl parse_session_ctrl(const InfoList& d) {
  ParsedSessionCtrl p;
  auto refused = [&p](Status why) {
    p.result = why;
    return p;
  };
  std::vector<SessionOp> verbs;
  for (const auto& op : kOperations)
    if (names(d, op.key)) {
      verbs.push_back(op.verb);
      add_name(p.names, op.key);
    }
  const bool complete = d.flag(key::SESSION_COMPLETE);
  if (complete) add_name(p.names, key::SESSION_COMPLETE);
  const bool sep = d.has(key::SESSION_SEP);
  if (sep) add_name(p.names, key::SESSION_SEP);
  // Provisioning and resource selection are refused whatever else is asked.
  const InfoList* res = d.get<InfoList>(key::SESSION_RESOURCES);
  for (auto sel : kSelection)
    if (d.has(sel) || (res && res->has(sel))) return refused(Status::ErrNotSupported);
  if (verbs.size() + (complete ? 1 : 0) > 1 || (verbs.empty() && !complete && !sep))
    return refused(Status::ErrBadParam);
  if (complete) return refused(Status::ErrNotSupported);  // what the RM sends, never takes
  SessionOperation op;
  op.verb = verbs.empty() ? SessionOp::Sep : verbs.front();
  if (sep) {
    const Value* v = d.find(key::SESSION_SEP);
    op.sep = !(v && std::holds_alternative<bool>(*v) && !std::get<bool>(*v));
  }
  for (const auto& item : d.items)
    if (item.key == key::NSPACE)
      if (const auto* ns = std::get_if<std::string>(&item.value)) op.named.push_back(*ns);
  op.signal = d.get_uint(key::SESSION_SIGNAL);  // int32 upstream; any integer accepted
  p.result = std::move(op);
  return p;
}

Status may_instantiate(const SessionCaller& caller, std::uint32_t session_id) {
  if (session_id == kAllSessions) return Status::ErrBadParam;
  return caller.scheduler ? Status::Success : Status::ErrNoPermissions;
}

Status may_act_on(const SessionCaller& caller, const Principal& owner) {
  return caller.scheduler || may_manage(owner, caller.who) ? Status::Success : Status::ErrNoPermissions;
}

bool controls(const SessionCaller& caller, bool instantiated_by_scheduler, const Principal& owner) {
  return caller.scheduler ? instantiated_by_scheduler : may_manage(owner, caller.who);
}

}  // namespace pmixflow
