#include "pmixflow/proto/env.hpp"

namespace pmixflow {

Event describe_hop(std::string_view kind, std::string_view peer_key, std::string_view peer, const Message& m) {
  Event e(kind);
  e.str(peer_key, peer).str("msg", message_name(kind_of(m)));
  if (const std::string* corr = message_corr(m); corr && !corr->empty()) e.str("corr", *corr);
  std::visit(
      [&e](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, AllocRequest>) {
          e.uint("id", x.id).str("directive", directive_name(x.directive)).info("info", x.info);
        } else if constexpr (std::is_same_v<T, AllocResponse> || std::is_same_v<T, SessionCtrlResponse>) {
          e.uint("id", x.id).status("status", x.status).info("info", x.info);
        } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
          e.uint("id", x.id).uint("session", x.session_id).info("directives", x.directives);
        } else if constexpr (std::is_same_v<T, ConnectRequest>) {
          e.uint("id", x.id).info("info", x.info);
        } else if constexpr (std::is_same_v<T, ConnectResponse>) {
          e.uint("id", x.id).status("status", x.status);
        } else if constexpr (std::is_same_v<T, Notification>) {
          e.status("code", x.code).info("info", x.info);
        } else if constexpr (std::is_same_v<T, LaunchProcs>) {
          e.str("nspace", x.nspace).uint("session", x.session_id).uint("procs", x.local_procs);
        } else if constexpr (std::is_same_v<T, ProcsStarted> || std::is_same_v<T, ProcsEnded>) {
          e.str("nspace", x.nspace).status("status", x.status);
        } else if constexpr (std::is_same_v<T, KillProcs>) {
          e.str("nspace", x.nspace).status("reason", x.reason);
        } else if constexpr (std::is_same_v<T, SignalProcs>) {
          e.str("nspace", x.nspace).sint("signal", x.signal);
        } else if constexpr (std::is_same_v<T, SpawnRequest>) {
          e.uint("id", x.id).raw("apps", value_to_json(Value(x.apps))).info("job_info", x.job_info);
        } else if constexpr (std::is_same_v<T, SpawnResponse>) {
          e.uint("id", x.id).status("status", x.status).str("nspace", x.nspace).info("info", x.info);
        }
      },
      m);
  e.uint("bytes", wire_size(m));
  return e;
}

}  // namespace pmixflow
