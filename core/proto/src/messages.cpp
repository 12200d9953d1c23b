#include "pmixflow/proto/messages.hpp"

#include <array>

namespace pmixflow {

MessageKind kind_of(const Message& m) { return static_cast<MessageKind>(m.index()); }

std::string_view message_name(MessageKind k) {
  static constexpr std::array<std::string_view, 19> kNames{
      "alloc_request",    "alloc_response", "session_ctrl",   "session_ctrl_response", "connect",
      "connect_response", "notify",         "daemon_ready",   "daemon_start_failed",   "launch_procs",
      "procs_started",    "procs_ended",    "kill_procs",     "daemon_shutdown",       "unreachable",
      "peer_lost",        "spawn",          "spawn_response", "signal_procs"};
  static_assert(kNames.size() == std::variant_size_v<Message>, "a name for every message kind");
  return kNames[static_cast<std::size_t>(k)];
}

std::uint64_t message_id(const Message& m) {
  return std::visit(
      [](const auto& x) -> std::uint64_t {
        if constexpr (requires { x.id; })
          return x.id;
        else
          return 0;
      },
      m);
}

const std::string* message_corr(const Message& m) {
  return std::visit(
      [](const auto& x) -> const std::string* {
        if constexpr (requires { x.corr; })
          return &x.corr;
        else
          return nullptr;
      },
      m);
}

}  // namespace pmixflow
