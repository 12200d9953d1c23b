// What a scenario makes the scheduler do by its own hand, as an external scheduler may: call
// PMIx_Session_control with any directive, session id, resources and apps it is given, or try
// to attach somewhere other than the controller. Each call is logged as a requestor's is
// (`call`, then `answer`, named `scheduler#n`), so that its expected status is checked the
// same way and the log says what the scheduler did.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>

#include "pmixflow/proto/messages.hpp"

namespace pmixflow {

struct ScriptedCall {
  double at = 0;
  std::string corr;  // scheduler#n
  std::size_t line = 0;
  std::optional<Status> expect;
  Address to = Address::controller();  // a daemon, for an attach the RM's daemons must refuse
  std::variant<SessionCtrlRequest, ConnectRequest> call;
};

}  // namespace pmixflow
