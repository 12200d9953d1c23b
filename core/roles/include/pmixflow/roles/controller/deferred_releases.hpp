// A PMIX_ALLOC_RELEASE that reaches the controller while the DVM changes size waits until the
// change ends, whichever way it ends, and is then carried out as if it had just arrived, in
// arrival order (PRRTE's prte_ras_base_modify() parks it; prte_ras_base_replay_deferred_releases()
// runs it again when the grow drains). Nodes are never handed back from under daemons still
// reporting in.
#pragma once

#include <deque>
#include <functional>
#include <utility>

#include "pmixflow/proto/env.hpp"

namespace pmixflow {

class DeferredReleases {
 public:
  using Carry = std::function<void(Address from, AllocRequest&& req)>;

  explicit DeferredReleases(Env& env) : env_(env) {}

  void park(Address from, AllocRequest&& req);
  // Each parked release, in arrival order, through `carry` (which may park it again).
  void replay(const Carry& carry);
  // Its caller's connection broke (the daemon it came through died, or the requestor itself
  // went that way): its library has answered it; it is withdrawn.
  void withdraw(Address origin, const Proc* caller);

 private:
  Env& env_;
  std::deque<std::pair<Address, AllocRequest>> parked_;
};

}  // namespace pmixflow
