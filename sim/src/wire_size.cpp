#include "pmixflow/sim/wire_size.hpp"

namespace pmixflow::sim {
namespace {

constexpr std::uint64_t kHeader = 64;     // PMIx/PRRTE message header: tag, sequence, sender proc
constexpr std::uint64_t kInfoHeader = 8;  // type tag + length words per pmix_info_t
std::uint64_t str_size(const std::string& s) { return 4 + s.size() + 1; }

}  // namespace

std::uint64_t wire_size(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::uint64_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>)
          return 4 + x.size() + 1;
        else if constexpr (std::is_same_v<T, Proc>)
          return 4 + x.nspace.size() + 1 + 4;
        else if constexpr (std::is_same_v<T, InfoList>)
          return 4 + wire_size(x);
        else if constexpr (std::is_same_v<T, std::vector<App>>)
          return wire_size(std::span<const App>(x));
        else
          return sizeof(T);
      },
      v);
}

std::uint64_t wire_size(std::span<const App> apps) {
  std::uint64_t n = 4;
  for (const auto& app : apps) {
    n += 4 + app.cmd.size() + 1 + 4 + 4;  // cmd, argc, maxprocs
    for (const auto& a : app.argv) n += 4 + a.size() + 1;
    for (const auto& e : app.env) n += 4 + e.size() + 1;
  }
  return n;
}

std::uint64_t wire_size(const InfoList& info) {
  std::uint64_t n = 4;  // count
  for (const auto& item : info.items) n += kInfoHeader + item.key.size() + 1 + wire_size(item.value);
  return n;
}

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
                           return str_size(x.nspace) + 12 + wire_size(std::span<const App>(x.apps));
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

}  // namespace pmixflow::sim
