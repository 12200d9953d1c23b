// A DVM with no scheduler, run to serve allocation requests itself (PRRTE's ras/hosts): a NEW
// makes a reservation of the nodes it names, an EXTEND adds nodes to one, a RELEASE tears one
// down, and a RELEASE naming nodes instead shrinks the DVM. It never picks nodes and never
// launches: a spawn naming the reservation does.
#pragma once

#include <cstdint>
#include <string>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/replies.hpp"
#include "pmixflow/roles/controller/sessions.hpp"

namespace pmixflow {

class Standalone {
 public:
  Standalone(Env& env, const Cluster& cluster, Dvm& dvm, Sessions& sessions, Replies& replies)
      : env_(env), cluster_(cluster), dvm_(dvm), sessions_(sessions), replies_(replies) {}

  void serve(const Origin& origin, AllocRequest&& req);

 private:
  Status release(const AllocRequest& req);
  Status shrink(const AllocRequest& req);
  Status extend(const AllocRequest& req, InfoList& answer);
  Status reserve(const AllocRequest& req, InfoList& answer);
  Status read_node_lists(const InfoList& info, SlotList& nodes) const;
  std::uint32_t fresh_session_id();

  Env& env_;
  const Cluster& cluster_;
  Dvm& dvm_;
  Sessions& sessions_;
  Replies& replies_;
  std::uint32_t last_session_ = 0;
};

}  // namespace pmixflow
