#include "pmixflow/roles/controller/scheduler_link.hpp"

#include <algorithm>
#include <utility>

namespace pmixflow {

namespace {

const Proc* caller_of(const Message& msg) {
  if (const auto* a = std::get_if<AllocRequest>(&msg)) return &a->caller;
  if (const auto* c = std::get_if<SessionCtrlRequest>(&msg)) return &c->caller;
  return nullptr;
}

}  // namespace

void SchedulerLink::look_for_scheduler() {
  InfoList info;
  info.add(key::CONNECT_TO_SCHEDULER, true).add(key::TOOL_CONNECT_OPTIONAL, true);
  env_.send(Address::scheduler(), ConnectRequest{ids_.next(), kControllerProc, std::move(info)});
}

void SchedulerLink::attach(std::string_view how) {
  if (attached_) return;
  attached_ = true;
  ever_attached_ = true;
  env_.log(ev::SchedulerAttached{.how = how});
  // Completions first: the scheduler decides the held requests on a true view of what is free.
  for (auto& held : std::exchange(held_completes_, {})) complete(std::move(held));
  auto held = std::exchange(held_, {});
  for (auto& [from, msg] : held) forward(from, std::move(msg));
}

void SchedulerLink::detach() {
  if (!attached_) return;
  attached_ = false;
  env_.log(ev::SchedulerDetached{.num_pending = forwarded_.size()});
  for (auto& [id, complete] : std::exchange(unanswered_completes_, {})) held_completes_.push_back(std::move(complete));
  // Nobody is left hanging: every request in flight to the scheduler fails now (FLOW.md §3).
  fail_forwarded(Status::ErrUnreach);
}

void SchedulerLink::answer(const Forwarded& f, Status status) {
  if (f.kind == MessageKind::SessionCtrlRequest)
    replies_.session_ctrl(f.origin, status);
  else
    replies_.allocation(f.origin, status);
}

void SchedulerLink::fail_forwarded(Status status) {
  // The requestor is told the call failed; whatever the scheduler granted it before going is
  // handed back by whoever listens (the controller), so nothing is held for a refused call.
  auto forwarded = std::exchange(forwarded_, {});
  for (const auto& [id, f] : forwarded) {
    if (!f.caller_lost) answer(f, status);
    if (failed_) failed_(f);
  }
}

std::vector<Proc> SchedulerLink::origin_lost(Address origin) {
  std::vector<Proc> callers;
  for (auto& [id, f] : forwarded_)
    if (f.origin.address == origin && !f.caller_lost) {
      f.caller_lost = true;
      callers.push_back(f.caller);
    }
  drop_held("the daemon it came through died", [&](Address from, const Message&) { return from == origin; });
  std::sort(callers.begin(), callers.end());
  callers.erase(std::unique(callers.begin(), callers.end()), callers.end());
  return callers;
}

bool SchedulerLink::caller_lost(const Proc& caller, Address origin) {
  // A spawn's own allocation (origin: the controller) is the spawn's business (spawns.cpp).
  bool outstanding = false;
  for (auto& [id, f] : forwarded_)
    if (f.caller == caller && f.origin.address == origin && origin != Address::controller() && !f.caller_lost) {
      f.caller_lost = true;
      outstanding = true;
    }
  drop_held("its requestor exited", [&](Address from, const Message& msg) {
    const Proc* p = caller_of(msg);
    return from == origin && from != Address::controller() && p && *p == caller;
  });
  return outstanding;
}

void SchedulerLink::drop_held(std::string_view why, const std::function<bool(Address, const Message&)>& pick) {
  auto dropped =
      std::stable_partition(held_.begin(), held_.end(), [&](const auto& h) { return !pick(h.first, h.second); });
  for (auto it = dropped; it != held_.end(); ++it)
    env_.log(ev::RequestWithdrawn{.corr = *message_corr(it->second), .detail = why});
  held_.erase(dropped, held_.end());
}

void SchedulerLink::forward(Address from, Message&& msg) {
  if (!attached_) {
    const std::string corr = *message_corr(msg);
    if (mode_ == NoSchedulerMode::Refuse) {
      // As PRRTE's ras/pmix: with no scheduler found it declines and, no other module taking
      // the request, the answer is PMIX_ERR_NOT_SUPPORTED (row R16). Once a scheduler has been
      // attached, PRRTE never forgets it: the forward itself fails, PMIX_ERR_UNREACH (row R20).
      const Status why = ever_attached_ ? Status::ErrUnreach : Status::ErrNotSupported;
      env_.log(ev::RequestRefused{.corr = corr,
                                  .detail = ever_attached_ ? "the scheduler went away" : "no scheduler attached"});
      return answer(Forwarded{Origin{from, message_id(msg), corr}, kind_of(msg)}, why);
    }
    if (mode_ == NoSchedulerMode::Serve && std::holds_alternative<AllocRequest>(msg)) {
      auto& req = std::get<AllocRequest>(msg);
      return serve_(Origin{from, req.id, req.corr}, std::move(req));
    }
    env_.log(ev::RequestHeld{.corr = corr, .detail = "no scheduler attached"});
    held_.emplace_back(from, std::move(msg));
    return;
  }
  const std::uint64_t id = ids_.next();
  std::visit(
      [&](auto& call) {
        using T = std::decay_t<decltype(call)>;
        if constexpr (std::is_same_v<T, AllocRequest> || std::is_same_v<T, SessionCtrlRequest>) {
          forwarded_.emplace(id, Forwarded{Origin{from, call.id, call.corr}, kind_of<T>(), call.caller});
          // The scheduler must know who really asked: a daemon relays its caller unchanged.
          InfoList& info = [&]() -> InfoList& {
            if constexpr (std::is_same_v<T, AllocRequest>)
              return call.info;
            else
              return call.directives;
          }();
          info.set(key::REQUESTOR, call.caller);
          if (env_.wants<ev::RequestForward>())
            env_.log(
                ev::RequestForward{.corr = call.corr, .from = env_.name_of(from), .requestor = to_string(call.caller)});
          call.id = id;
          call.caller = kControllerProc;
        }
      },
      msg);
  env_.send(Address::scheduler(), std::move(msg));
}

void SchedulerLink::carry_back(AllocResponse&& resp) {
  auto node = forwarded_.extract(resp.id);
  if (node.empty()) return;
  if (node.mapped().caller_lost) {
    if (resp.status == Status::Success && unwanted_) unwanted_(node.mapped());
    return;
  }
  replies_.allocation(node.mapped().origin, resp.status, std::move(resp.info));
}

void SchedulerLink::carry_back(SessionCtrlResponse&& resp) {
  if (unanswered_completes_.erase(resp.id)) return;  // the answer to our own COMPLETE
  auto node = forwarded_.extract(resp.id);
  if (node.empty()) return;
  if (node.mapped().caller_lost) {
    if (resp.status == Status::Success && unwanted_) unwanted_(node.mapped());
    return;
  }
  const Origin& origin = node.mapped().origin;
  env_.log(ev::AnswerReturn{.corr = resp.corr, .to = env_.name_of(origin.address), .status = resp.status});
  resp.id = origin.id;
  env_.send(origin.address, std::move(resp));
}

void SchedulerLink::complete(SessionCtrlRequest&& complete) {
  if (!attached_) return held_completes_.push_back(std::move(complete));
  // Kept until the scheduler answers it: a COMPLETE on its way when the scheduler goes is
  // sent again when one attaches, or the slots it frees would stay held for ever by a
  // scheduler that remembers its grants. A scheduler that had it already says NOT_FOUND.
  unanswered_completes_.emplace(complete.id, complete);
  env_.send(Address::scheduler(), std::move(complete));
}

void SchedulerLink::notify(const Notification& event) {
  if (attached_) env_.send(Address::scheduler(), event);
}

}  // namespace pmixflow
