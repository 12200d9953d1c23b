// Whose a call's fate is while it is in flight (FLOW.md, "Faults"). A requestor's PMIx library
// answers every call it has in flight PMIX_ERR_UNREACH the moment its connection breaks, so
// the requestor is never left hanging; the RM makes sure that what such a call obtains
// afterwards - or what a call obtained although its requestor was told it failed - is not held
// for nobody: a granted session is terminated, a session control is reversed, and the
// scheduler is told to withdraw what it still has queued for that requestor.
#include <algorithm>

#include "pmixflow/roles/controller.hpp"

namespace pmixflow {

void Controller::origin_lost(Address daemon) {
  spawns_.origin_lost(daemon);
  deferred_.withdraw(daemon, nullptr);
  for (const Proc& caller : link_.origin_lost(daemon)) tell_scheduler_gone(caller);
}

void Controller::tell_scheduler_gone(const Proc& gone) {
  // The scheduler hears it as a server reports a lost client (PMIX_ERR_LOST_CONNECTION
  // with PMIX_PROCID): it withdraws what it still has queued from that requestor.
  InfoList info;
  info.add(key::PROCID, gone);
  link_.notify(Notification{Status::ErrLostConnection, std::move(info), {}});
}

void Controller::hand_back(const SchedulerLink::Forwarded& call) {
  if (call.kind == MessageKind::AllocRequest) {
    end_sessions_of(call.origin.corr, call.caller_lost ? "its requestor is gone" : "its requestor was told it failed");
    return;
  }
  // A stop carried out for nobody, or for a requestor told the call failed, is reversed: a
  // paused job resumes, a preempted one is restored. (One the scheduler never ordered left no
  // record of itself: nothing to reverse.)
  if (call.kind == MessageKind::SessionCtrlRequest)
    sessions_.reverse_stop(call.origin.corr,
                           call.caller_lost ? "its requestor is gone" : "its requestor was told it failed");
}

void Controller::end_sessions_of(const std::string& corr, std::string_view why) {
  for (std::uint32_t id : sessions_.of_call(corr)) {
    Session* s = sessions_.find(id);
    if (!s) continue;
    env_.log(ev::CallOrphaned{.corr = corr,
                              .status = Status::Success,
                              .detail = "session " + std::to_string(id) + " terminated: " + std::string(why)});
    sessions_.terminate(*s, Status::ErrJobCanceled);
  }
}

}  // namespace pmixflow
