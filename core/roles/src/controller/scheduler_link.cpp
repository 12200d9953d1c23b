#include "pmixflow/roles/controller/scheduler_link.hpp"

namespace pmixflow {

void SchedulerLink::look_for_scheduler() {
  InfoList info;
  info.add(key::CONNECT_TO_SCHEDULER, true).add(key::TOOL_CONNECT_OPTIONAL, true);
  env_.send(Address::scheduler(), ConnectRequest{ids_.next(), kControllerProc, std::move(info)});
}

void SchedulerLink::attach(std::string_view how) {
  if (attached_) return;
  attached_ = true;
  env_.log(ev::SchedulerAttached{.how = how});
  // Completions first: the scheduler decides the held requests on a true view of what is free.
  for (auto& complete : held_completes_) env_.send(Address::scheduler(), std::move(complete));
  held_completes_.clear();
  auto held = std::exchange(held_, {});
  for (auto& [from, msg] : held) forward(from, std::move(msg));
}

void SchedulerLink::detach() {
  if (!attached_) return;
  attached_ = false;
  env_.log(ev::SchedulerDetached{.num_pending = forwarded_.size()});
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
  auto forwarded = std::exchange(forwarded_, {});
  for (const auto& [id, f] : forwarded) answer(f, status);
}

void SchedulerLink::forward(Address from, Message&& msg) {
  if (!attached_) {
    const std::string corr = *message_corr(msg);
    if (mode_ == NoSchedulerMode::Refuse) {
      env_.log(ev::RequestRefused{.corr = corr, .detail = "no scheduler attached"});
      return answer(Forwarded{Origin{from, message_id(msg), corr}, kind_of(msg)}, Status::ErrUnreach);
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
          forwarded_.emplace(id, Forwarded{Origin{from, call.id, call.corr}, kind_of<T>()});
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
  replies_.allocation(node.mapped().origin, resp.status, std::move(resp.info));
}

void SchedulerLink::carry_back(SessionCtrlResponse&& resp) {
  auto node = forwarded_.extract(resp.id);
  if (node.empty()) return;  // e.g. the answer to our own COMPLETE
  const Origin& origin = node.mapped().origin;
  env_.log(ev::AnswerReturn{.corr = resp.corr, .to = env_.name_of(origin.address), .status = resp.status});
  resp.id = origin.id;
  env_.send(origin.address, std::move(resp));
}

void SchedulerLink::complete(SessionCtrlRequest&& complete) {
  if (attached_)
    env_.send(Address::scheduler(), std::move(complete));
  else
    held_completes_.push_back(std::move(complete));
}

void SchedulerLink::notify(const Notification& event) {
  if (attached_) env_.send(Address::scheduler(), event);
}

}  // namespace pmixflow
