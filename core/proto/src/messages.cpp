#include "pmixflow/proto/messages.hpp"

#include <array>

namespace pmixflow {

MessageKind kind_of(const Message& m) { return static_cast<MessageKind>(m.index()); }

std::string_view message_name(MessageKind k) {
  static constexpr std::array<std::string_view, 18> kNames{
      "alloc_request",   "alloc_response",   "session_ctrl", "session_ctrl_response",
      "connect",         "connect_response", "notify",       "daemon_ready",
      "launch_procs",    "procs_started",    "procs_ended",  "kill_procs",
      "daemon_shutdown", "unreachable",      "peer_lost",    "spawn",
      "spawn_response",  "signal_procs"};
  return kNames[static_cast<std::size_t>(k)];
}

namespace {
constexpr std::uint64_t kHeader = 64;  // PMIx/PRRTE message header: tag, sequence, sender proc
std::uint64_t str_size(const std::string& s) { return 4 + s.size() + 1; }
}  // namespace

std::uint64_t wire_size(const Message& m) {
  return kHeader + std::visit(
                       [](const auto& x) -> std::uint64_t {
                         using T = std::decay_t<decltype(x)>;
                         if constexpr (std::is_same_v<T, AllocRequest>)
                           return 1 + wire_size(x.info) + str_size(x.caller.nspace) + 4;
                         else if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse>)
                           return 4 + wire_size(x.info);
                         else if constexpr (std::is_same_v<T, SessionCtrlRequest>)
                           return 4 + wire_size(x.directives) + str_size(x.caller.nspace) + 4;
                         else if constexpr (std::is_same_v<T, ConnectRequest>)
                           return wire_size(x.info) + str_size(x.caller.nspace) + 4;
                         else if constexpr (std::is_same_v<T, Notification>)
                           return 4 + wire_size(x.info);
                         else if constexpr (std::is_same_v<T, LaunchProcs>)
                           return str_size(x.nspace) + 12 + wire_size(std::span<const App>(&x.app, 1));
                         else if constexpr (std::is_same_v<T, ProcsStarted> || std::is_same_v<T, ProcsEnded> ||
                                            std::is_same_v<T, KillProcs> || std::is_same_v<T, SignalProcs>)
                           return str_size(x.nspace) + 8;
                         else if constexpr (std::is_same_v<T, SpawnRequest>)
                           return wire_size(std::span<const App>(x.apps)) + wire_size(x.job_info) +
                                  str_size(x.caller.nspace) + 4;
                         else if constexpr (std::is_same_v<T, SpawnResponse>)
                           return 4 + str_size(x.nspace) + wire_size(x.info);
                         else
                           return 8;
                       },
                       m);
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
