// A DVM with no scheduler, run to serve allocation requests itself (PRRTE's ras/hosts): it
// answers from its own pool of known nodes, creating the session as its own decision, and
// answers with an app only once the app is launched - as the scheduler's path answers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/replies.hpp"
#include "pmixflow/roles/controller/sessions.hpp"
#include "pmixflow/vocab/hostlist.hpp"

namespace pmixflow {

class Standalone {
 public:
  Standalone(Env& env, const Cluster& cluster, Dvm& dvm, Sessions& sessions, Replies& replies)
      : env_(env), cluster_(cluster), dvm_(dvm), sessions_(sessions), replies_(replies) {}

  void serve(const Origin& origin, AllocRequest&& req);
  // The job of a session it created started: its allocation is answered, with PMIX_NSPACE.
  void job_started(const Job& job);
  // A session was reclaimed before its job launched: the allocation fails as the job did.
  void reclaimed(std::uint32_t session, Status unlaunched);

 private:
  struct PendingAnswer {
    Origin origin;
    InfoList info;
  };
  Status release(const AllocRequest& req);
  Status extend(const AllocRequest& req, InfoList& answer);
  // Nodes nobody holds, whole (PMIX_ALLOC_NUM_NODES) or by cpus (PMIX_ALLOC_NUM_CPUS).
  std::optional<std::vector<HostEntry>> choose(const InfoList& info) const;
  InfoList session_directives(const AllocRequest& req, const std::vector<HostEntry>& chosen, std::uint32_t id) const;

  Env& env_;
  const Cluster& cluster_;
  Dvm& dvm_;
  Sessions& sessions_;
  Replies& replies_;
  std::map<std::uint32_t, PendingAnswer> pending_;  // by session: sent once launched
  std::uint32_t next_session_ = kFirstSession;      // above any id a scheduler hands out
  static constexpr std::uint32_t kFirstSession = 0x80000000u;
};

}  // namespace pmixflow
