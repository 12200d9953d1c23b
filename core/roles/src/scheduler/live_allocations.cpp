#include "pmixflow/roles/scheduler/live_allocations.hpp"

namespace pmixflow {

Live& LiveAllocations::add(Live live) {
  const std::string id = live.alloc_id;
  return live_.insert_or_assign(id, std::move(live)).first->second;
}

Live* LiveAllocations::find(const std::string& alloc_id) {
  const auto it = live_.find(alloc_id);
  return it == live_.end() ? nullptr : &it->second;
}

Live* LiveAllocations::find(const InfoList& info) {
  if (const auto* id = info.get<std::string>(key::ALLOC_ID)) return find(*id);
  if (const auto session = info.get_uint(key::SESSION_ID)) return by_session(static_cast<std::uint32_t>(*session));
  return nullptr;
}

Live* LiveAllocations::by_session(std::uint32_t session) {
  for (auto& [id, live] : live_)
    if (live.session_id == session) return &live;
  return nullptr;
}

Live* LiveAllocations::by_key(std::uint64_t key) {
  for (auto& [id, live] : live_)
    if (live.view.key == key) return &live;
  return nullptr;
}

Live* LiveAllocations::by_corr(const std::string& corr) {
  if (corr.empty()) return nullptr;
  for (auto& [id, live] : live_)
    if (live.corr == corr) return &live;
  return nullptr;
}

std::vector<Live*> LiveAllocations::owned_by(const Principal& caller) {
  std::vector<Live*> out;
  for (auto& [id, live] : live_)
    if (live.instantiated && may_manage(live.owner, caller)) out.push_back(&live);
  return out;
}

void LiveAllocations::running(std::vector<RunningAllocation>& out) const {
  out.clear();
  for (const auto& [id, live] : live_) out.push_back(live.view);
}

std::vector<Live> LiveAllocations::all() const {
  std::vector<Live> out;
  for (const auto& [id, live] : live_) out.push_back(live);
  return out;
}

}  // namespace pmixflow
