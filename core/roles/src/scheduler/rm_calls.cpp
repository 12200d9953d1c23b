#include "pmixflow/roles/scheduler/rm_calls.hpp"

namespace pmixflow {

void RmCalls::call(std::uint32_t session, InfoList directives, const std::string& corr, Outstanding out) {
  const std::uint64_t id = next_++;
  outstanding_.emplace(id, std::move(out));
  env_.send(Address::controller(), SessionCtrlRequest{id, session, std::move(directives), Proc{"scheduler", 0}, corr});
}

std::optional<Outstanding> RmCalls::answered(std::uint64_t id) {
  auto node = outstanding_.extract(id);
  if (node.empty()) return std::nullopt;
  return std::move(node.mapped());
}

std::uint64_t RmCalls::open_decision(Origin origin, std::size_t sessions) {
  const std::uint64_t group = next_++;
  decisions_.emplace(group, Decision{std::move(origin), sessions, Status::Success});
  return group;
}

std::optional<Decision> RmCalls::settle(std::uint64_t group, Status status) {
  auto it = decisions_.find(group);
  if (it == decisions_.end()) return std::nullopt;
  Decision& d = it->second;
  if (d.status == Status::Success) d.status = status;  // the first failure is the answer
  if (--d.left > 0) return std::nullopt;
  Decision done = std::move(d);
  decisions_.erase(it);
  return done;
}

std::vector<Outstanding> RmCalls::abandon_calls() {
  std::vector<Outstanding> out;
  for (auto& [id, call] : outstanding_) out.push_back(std::move(call));
  outstanding_.clear();
  return out;
}

std::vector<Origin> RmCalls::abandon_decisions() {
  std::vector<Origin> out;
  for (auto& [group, d] : decisions_) out.push_back(d.origin);
  decisions_.clear();
  return out;
}

void RmCalls::forget() {
  outstanding_.clear();
  decisions_.clear();
}

}  // namespace pmixflow
