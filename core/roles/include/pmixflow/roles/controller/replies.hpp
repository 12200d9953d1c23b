// The answers the controller sends back, each logged as it leaves. An allocation answered to
// the controller itself is one it asked for on behalf of one of its own spawns
// (PMIX_SPAWN_ALLOC): it goes to whoever listens for those, not onto the network.
#pragma once

#include <cstdint>
#include <functional>

#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"

namespace pmixflow {

// The controller's identity on the calls it makes itself.
inline const Proc kControllerProc{"prte", 0};

class Replies {
 public:
  using OwnAllocation = std::function<void(std::uint64_t id, Status status, const InfoList& info)>;

  explicit Replies(Env& env) : env_(env) {}
  void on_own_allocation(OwnAllocation f) { own_ = std::move(f); }

  // The allocation callback (PRRTE tag SCHED_RESP on the daemon hop).
  void allocation(const Origin& to, Status status, InfoList info = {});
  // A session control's answer; none for a decision the controller made for itself.
  void session_ctrl(const Origin& to, Status status, InfoList info = {});

 private:
  Env& env_;
  OwnAllocation own_;
};

}  // namespace pmixflow
