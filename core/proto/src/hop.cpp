#include "pmixflow/proto/hop.hpp"

namespace pmixflow {
namespace {

// Send and Recv carry the same fields but for the peer's; this fills those of one message.
template <class E>
void describe(E& e, const Message& m, std::uint64_t bytes) {
  e.msg = message_name(kind_of(m));
  if (const std::string* corr = message_corr(m); corr && !corr->empty()) e.corr = *corr;
  e.bytes = bytes;
  std::visit(
      [&e](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          e.id = x.id;
          e.directive = directive_name(x.directive);
          e.info = x.info;
        } else if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse>) {
          e.id = x.id;
          e.status = x.status;
          e.info = x.info;
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          e.id = x.id;
          e.session = x.session_id;
          e.directives = x.directives;
        } else if constexpr (std::is_same_v<T, ConnectRequest>) {
          e.id = x.id;
          e.info = x.info;
        } else if constexpr (std::is_same_v<T, ConnectResponse>) {
          e.id = x.id;
          e.status = x.status;
        } else if constexpr (std::is_same_v<T, Notification>) {
          e.code = x.code;
          e.info = x.info;
        } else if constexpr (std::is_same_v<T, LaunchProcs>) {
          e.nspace = x.nspace;
          e.session = x.session_id;
          e.procs = x.local_procs;
        } else if constexpr (std::is_same_v<T, ProcsStarted> || std::is_same_v<T, ProcsEnded>) {
          e.nspace = x.nspace;
          e.status = x.status;
        } else if constexpr (std::is_same_v<T, KillProcs>) {
          e.nspace = x.nspace;
          e.reason = x.reason;
        } else if constexpr (std::is_same_v<T, SignalProcs>) {
          e.nspace = x.nspace;
          e.signal = x.signal;
        } else if constexpr (std::is_same_v<T, SpawnRequest>) {
          e.id = x.id;
          e.apps = x.apps;
          e.job_info = x.job_info;
        } else if constexpr (std::is_same_v<T, SpawnResponse>) {
          e.id = x.id;
          e.status = x.status;
          e.nspace = x.nspace;
          e.info = x.info;
        }
      },
      m);
}

}  // namespace

ev::Send send_event(std::string_view to, const Message& m, std::uint64_t bytes) {
  ev::Send e;
  e.to = to;
  describe(e, m, bytes);
  return e;
}

ev::Recv recv_event(std::string_view from, const Message& m, std::uint64_t bytes) {
  ev::Recv e;
  e.from = from;
  describe(e, m, bytes);
  return e;
}

}  // namespace pmixflow
