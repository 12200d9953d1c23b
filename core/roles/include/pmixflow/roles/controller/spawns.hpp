// PMIx_Spawn (FLOW.md §7): into a session the caller names, into the DVM's general pool, or
// with an allocation of its own (PMIX_SPAWN_ALLOC) asked for first - from the scheduler, from
// the standalone DVM itself (a reservation of the nodes it names), or by activating daemons
// (PMIX_ALLOC_ACTIVATE). The spawn is answered once its job started; a launch that fails after
// its allocation was granted hands the allocation back (RELEASE) before the spawn returns its
// own error.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/controller/activation.hpp"
#include "pmixflow/roles/controller/call_ids.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/jobs.hpp"
#include "pmixflow/roles/controller/scheduler_link.hpp"
#include "pmixflow/roles/controller/sessions.hpp"

namespace pmixflow {

struct SpawnParts {
  Env& env;
  const Cluster& cluster;
  Dvm& dvm;
  Jobs& jobs;
  Sessions& sessions;
  SchedulerLink& link;
  Activation& activation;
  CallIds& ids;
};

class Spawns {
 public:
  explicit Spawns(SpawnParts parts) : p_(parts) {}

  void on_spawn(Address from, SpawnRequest&& req);
  // The answer to an allocation asked for one of our spawns (by its id), or to the RELEASE
  // that handed it back.
  void allocated(std::uint64_t id, Status status, const InfoList& info);
  void job_started(Job& job);
  void job_ended(const EndedJob& job);
  // The spawns' requestors whose connection broke: their libraries answered them already, and
  // what is launched for them is cancelled (FLOW.md, "Faults").
  void origin_lost(Address origin);
  void caller_lost(const Proc& caller, Address origin);
  // The fence lifts over these jobs. When what one was mapped onto is no longer its own (a node a
  // shrink took away, one a reservation now withholds), all are mapped again, in the order
  // held, as PRRTE maps held jobs only once the fence lifts.
  void remap_fenced(const std::deque<std::string>& fenced);

 private:
  struct Spawn {
    Origin origin;
    SpawnRequest request;
    std::string alloc_id;  // granted for it; released again if the launch fails
    std::uint32_t session = 0;
    Status launch_error = Status::Success;
    bool caller_lost = false;
  };
  // No allocation carried: the slots of the session it names, or of the general pool.
  void into_existing(std::uint64_t id, const Spawn& spawn);
  // A held job whose nodes were given with its spawn (an ACTIVATE): never mapped elsewhere.
  bool on_given_nodes(const Job& job) const;
  // What the held job was mapped onto is no longer its to use.
  bool moved_under(const Job& job) const;
  void with_allocation(std::uint64_t id, const Spawn& spawn, const InfoList& alloc);
  // `held_back`: a fresh grant of which other jobs still hold some slots (Job::held_back).
  void launch(std::uint64_t id, const SlotList& slots, std::uint32_t session, bool held_back = false);
  void start_daemons(const Job& job);
  void release(std::uint64_t id, const Spawn& spawn);
  void finish(std::uint64_t id, Status status, const std::string& nspace);

  SpawnParts p_;
  std::map<std::uint64_t, Spawn> spawns_;
};

}  // namespace pmixflow
