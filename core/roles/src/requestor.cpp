#include "pmixflow/roles/requestor.hpp"

#include <algorithm>

namespace pmixflow {

std::string describe_call(const Call& call) {
  if (const auto* a = std::get_if<AllocRequest>(&call)) return std::string(directive_name(a->directive));
  if (const auto* sp = std::get_if<SpawnRequest>(&call)) {
    const auto* alloc = sp->job_info.get<InfoList>(key::SPAWN_ALLOC);
    const auto* dir = alloc ? alloc->get<Directive>(key::ALLOC_REQ_DIRECTIVE) : nullptr;
    return dir ? "PMIx_Spawn+" + std::string(directive_name(*dir)) : "PMIx_Spawn";
  }
  const auto& s = std::get<SessionCtrlRequest>(call);
  std::string ops;
  for (const auto& item : s.directives.items)
    if (auto op = parse_session_op(item.key)) ops += (ops.empty() ? "" : "+") + std::string(session_op_name(*op));
  return ops.empty() ? "PMIx_Session_control" : ops;
}

Requestor::Requestor(Env& env, Proc identity, std::vector<PlannedCall> plan)
    : Requestor(env, std::move(identity), std::make_unique<PlanList>(std::move(plan))) {}

Requestor::Requestor(Env& env, Proc identity, std::unique_ptr<CallSource> calls)
    : env_(env), identity_(std::move(identity)), calls_(std::move(calls)) {}

void Requestor::start() { arm_next(); }

void Requestor::arm_next() {
  // One timer at a time: a trace of a million calls must not hold a million timers.
  const std::optional<double> at = calls_->next_at();
  if (!at) return;
  env_.after(std::max(0.0, *at - env_.now()), [this] {
    PlannedCall planned = calls_->take();
    place(planned);
    arm_next();
  });
}

void Requestor::place(PlannedCall& planned) {
  const std::uint64_t id = next_id_++;
  Outstanding out;
  out.what = describe_call(planned.call);
  out.sent = env_.now();
  out.via = planned.via;
  std::visit(
      [&](auto& call) {
        call.id = id;
        call.caller = identity_;
        out.corr = call.corr;
      },
      planned.call);
  log_call(planned, out.what);
  outstanding_.emplace(id, std::move(out));
  std::visit([&](auto& call) { env_.send(planned.via, std::move(call)); }, planned.call);
}

void Requestor::log_call(const PlannedCall& planned, std::string_view what) {
  if (!env_.wants<ev::Call>()) return;
  ev::Call e{.what = what, .via = env_.name_of(planned.via)};
  if (planned.notes.line > 0) e.line = planned.notes.line;
  e.expect = planned.notes.expect;
  e.recorded_wait = planned.notes.recorded_wait;
  // What the call carries, as PMIx would: the log alone says what was asked.
  std::visit(
      [&e](const auto& call) {
        using T = std::decay_t<decltype(call)>;
        e.corr = call.corr;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          e.directive = directive_name(call.directive);
          e.info = call.info;
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          e.session = call.session_id;
          e.directives = call.directives;
        } else {
          e.apps = call.apps;
          e.job_info = call.job_info;
        }
      },
      planned.call);
  env_.log(e);
}

void Requestor::handle(Address from, Message&& msg) {
  std::visit(
      [&](auto&& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse>) {
          answer(m.id, m.status, std::move(m.info));
        } else if constexpr (std::is_same_v<T, SpawnResponse>) {
          if (!m.nspace.empty()) m.info.add(key::NSPACE, m.nspace);
          answer(m.id, m.status, std::move(m.info));
        } else if constexpr (std::is_same_v<T, Unreachable>) {
          answer(m.id, Status::ErrUnreach, {});
        } else if constexpr (std::is_same_v<T, PeerLost>) {
          fail_via(m.peer, Status::ErrUnreach);
        } else if constexpr (std::is_same_v<T, Notification>) {
          env_.log(ev::EventReceived{.code = m.code, .from = env_.name_of(from), .info = m.info});
        }
      },
      std::move(msg));
}

void Requestor::answer(std::uint64_t id, Status status, InfoList info) {
  auto it = outstanding_.find(id);
  if (it == outstanding_.end()) return;  // answered already: only the first answer counts
  // What the caller gets is what the PMIx client library hands it: an error comes without info
  // (OpenPMIx unpacks a reply's info only after a success status: src/common/pmix_query.c,
  // query_cbfunc), whatever the server put beside it.
  if (status != Status::Success) info = {};
  const Outstanding out = std::move(it->second);
  outstanding_.erase(it);
  env_.log(
      ev::Answer{.corr = out.corr, .what = out.what, .status = status, .info = info, .latency = env_.now() - out.sent});
}

void Requestor::fail_via(Address via, Status status) {
  // The connection to our server broke: every call still waiting on it gets an error.
  std::vector<std::uint64_t> lost;
  for (const auto& [id, out] : outstanding_)
    if (out.via == via) lost.push_back(id);
  for (auto id : lost) answer(id, status, {});
}

}  // namespace pmixflow
