#include "pmixflow/roles/controller/deferred_releases.hpp"

namespace pmixflow {

void DeferredReleases::park(Address from, AllocRequest&& req) {
  env_.log(ev::RequestDeferred{.corr = req.corr, .detail = "the DVM is changing size"});
  parked_.emplace_back(from, std::move(req));
}

void DeferredReleases::replay(const Carry& carry) {
  auto now = std::move(parked_);
  parked_.clear();
  for (auto& [from, req] : now) carry(from, std::move(req));
}

void DeferredReleases::withdraw(Address origin, const Proc* caller) {
  std::erase_if(parked_, [&](const auto& p) {
    if (p.first != origin || (caller && p.second.caller != *caller)) return false;
    env_.log(ev::RequestWithdrawn{.corr = p.second.corr, .detail = "its requestor's connection broke while it waited"});
    return true;
  });
}

}  // namespace pmixflow
