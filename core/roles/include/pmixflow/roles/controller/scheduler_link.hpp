// The controller's link to the scheduler (FLOW.md §§2-3): whether one is attached, and what
// becomes of a request that needs one. Attached, the request is forwarded with PMIX_REQUESTOR
// added and its answer carried back the way it came; detached, it is held until one attaches,
// refused, or served by the RM itself (PRRTE's ras/hosts), as the run is configured; a
// scheduler going away fails every request in flight to it. PMIX_SESSION_COMPLETE waits here for a scheduler too.
#pragma once

#include <functional>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/controller/call_ids.hpp"
#include "pmixflow/roles/controller/replies.hpp"

namespace pmixflow {

// What happens to requests that need a scheduler while none is attached (FLOW.md §§2-3):
// held until one attaches, refused, or served by the RM itself (PRRTE's ras/hosts).
enum class NoSchedulerMode { Hold, Refuse, Serve };

class SchedulerLink {
 public:
  using Serve = std::function<void(const Origin& origin, AllocRequest&& req)>;
  // A call forwarded to the scheduler, as the link keeps it until its answer.
  struct Forwarded {
    Origin origin;
    MessageKind kind = MessageKind::AllocRequest;
    Proc caller{};
    bool caller_lost = false;  // its requestor's connection broke: nobody takes the answer
  };
  // A call whose outcome nobody holds: a success nobody can take, or a failure the requestor
  // was told although the scheduler may have granted it (FLOW.md, "Faults").
  using Settled = std::function<void(const Forwarded& call)>;

  SchedulerLink(Env& env, NoSchedulerMode mode, CallIds& ids, Replies& replies)
      : env_(env), mode_(mode), ids_(ids), replies_(replies) {}
  void on_serve(Serve f) { serve_ = std::move(f); }
  void on_unwanted(Settled f) { unwanted_ = std::move(f); }
  void on_failed(Settled f) { failed_ = std::move(f); }

  bool attached() const { return attached_; }
  // No scheduler, and the run serves allocation requests itself.
  bool serving() const { return !attached_ && mode_ == NoSchedulerMode::Serve; }

  // At start-up: the optional connection (PMIX_CONNECT_TO_SCHEDULER); the RM starts anyway.
  void look_for_scheduler();
  void attach(std::string_view how);
  void detach();

  // An allocation request or a requestor's session control for the scheduler.
  void forward(Address from, Message&& msg);
  void carry_back(AllocResponse&& resp);
  void carry_back(SessionCtrlResponse&& resp);
  // PMIX_SESSION_COMPLETE for the scheduler, now or once one attaches.
  void complete(SessionCtrlRequest&& complete);
  // An event for the scheduler, when one is there to hear it.
  void notify(const Notification& event);

  // The connection to `origin` (a daemon) broke: its callers' own libraries answer them.
  // Held requests from it are withdrawn; forwarded ones are answered to nobody. Returns the
  // callers whose requests the scheduler may still hold, each once.
  std::vector<Proc> origin_lost(Address origin);
  // The requestor `caller` that called through `origin` (a daemon, the scheduler, or the tool
  // itself) has gone. True when the scheduler still has calls of it to answer (and should
  // withdraw them).
  bool caller_lost(const Proc& caller, Address origin);

 private:
  void fail_forwarded(Status status);
  void drop_held(std::string_view why, const std::function<bool(Address, const Message&)>& pick);
  void answer(const Forwarded& f, Status status);

  Env& env_;
  NoSchedulerMode mode_;
  CallIds& ids_;
  Replies& replies_;
  Serve serve_;
  Settled unwanted_;
  Settled failed_;
  bool attached_ = false;
  bool ever_attached_ = false;
  std::map<std::uint64_t, Forwarded> forwarded_;                      // by our id of the forwarded call
  std::vector<std::pair<Address, Message>> held_;                     // requests waiting for a scheduler
  std::vector<SessionCtrlRequest> held_completes_;                    // COMPLETEs waiting for one
  std::map<std::uint64_t, SessionCtrlRequest> unanswered_completes_;  // sent, by id, in the order sent
};

}  // namespace pmixflow
