#include "pmixflow/roles/controller/replies.hpp"

namespace pmixflow {

void Replies::allocation(const Origin& to, Status status, InfoList info) {
  if (to.address == Address::controller()) {
    if (own_) own_(to.id, status, info);
    return;
  }
  env_.log(ev::AnswerReturn{.corr = to.corr, .to = env_.name_of(to.address), .status = status});
  env_.send(to.address, AllocResponse{to.id, status, std::move(info), to.corr});
}

void Replies::session_ctrl(const Origin& to, Status status, InfoList info) {
  if (to.address == Address::controller()) return;  // the RM's own decision (standalone)
  env_.log(ev::SessionCtrlAnswer{.corr = to.corr, .to = env_.name_of(to.address), .status = status});
  env_.send(to.address, SessionCtrlResponse{to.id, status, std::move(info), to.corr});
}

}  // namespace pmixflow
