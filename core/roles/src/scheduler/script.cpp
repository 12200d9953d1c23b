// The calls a scenario makes the scheduler place itself (roles/scheduler/script.hpp).
#include <algorithm>

#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/roles/scheduler.hpp"

namespace pmixflow {
namespace {

std::string what_of(const ScriptedCall& s) {
  if (const auto* ctrl = std::get_if<SessionCtrlRequest>(&s.call)) return describe_call(Call{*ctrl});
  return "PMIX_SERVER_SCHEDULER";  // an attach declaring itself the scheduler
}

}  // namespace

void Scheduler::arm_script() {
  // A restarted scheduler is a new process: what the scenario gave it for later still holds,
  // what it did before its restart is not done again. Its life began when planned, whenever its
  // process came up: a call of this life already due is made now, late (a scheduler's calls are
  // refused at input in a time it is planned down, so each belongs to one life).
  const double now = env_.now();
  double life_began = now;
  for (double start : config_.planned_starts)
    if (start <= now) life_began = start;
  for (std::size_t i = 0; i < config_.script.size(); ++i)
    if (config_.script[i].at >= life_began)
      env_.after(std::max(0.0, config_.script[i].at - now), [this, i] { place_scripted(i); });
}

void Scheduler::place_scripted(std::size_t index) {
  const ScriptedCall& s = config_.script[index];
  const std::uint64_t id = rm_.next_id();
  scripted_.emplace(id, ScriptedOut{index, env_.now()});
  if (env_.wants<ev::Call>()) {
    ev::Call e{.corr = s.corr, .what = what_of(s), .via = env_.name_of(s.to)};
    if (s.line > 0) e.line = s.line;
    e.expect = s.expect;
    if (const auto* ctrl = std::get_if<SessionCtrlRequest>(&s.call)) {
      e.session = ctrl->session_id;
      e.directives = ctrl->directives;
    } else {
      e.info = std::get<ConnectRequest>(s.call).info;
    }
    env_.log(e);
  }
  std::visit(
      [&](auto call) {
        call.id = id;
        call.caller = Proc{"scheduler", 0};
        if constexpr (std::is_same_v<decltype(call), SessionCtrlRequest>) call.corr = s.corr;
        env_.send(s.to, std::move(call));
      },
      s.call);
}

bool Scheduler::scripted_answer(std::uint64_t id, Status status, const InfoList& info) {
  const auto it = scripted_.find(id);
  if (it == scripted_.end()) return false;
  const ScriptedCall& s = config_.script[it->second.index];
  env_.log(ev::Answer{
      .corr = s.corr, .what = what_of(s), .status = status, .info = info, .latency = env_.now() - it->second.sent});
  scripted_.erase(it);
  return true;
}

void Scheduler::abandon_scripted_to_rm() {
  // The scenario's own calls to the RM that went: answered PMIX_ERR_UNREACH, as the library
  // answers a call whose connection broke, never left waiting for an answer that cannot come.
  std::vector<std::uint64_t> stranded;
  for (const auto& [id, out] : scripted_)
    if (config_.script[out.index].to == Address::controller()) stranded.push_back(id);
  for (std::uint64_t id : stranded) scripted_answer(id, Status::ErrUnreach, {});
}

}  // namespace pmixflow
