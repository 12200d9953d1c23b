#include "pmixflow/roles/controller/spawns.hpp"

#include <algorithm>

namespace pmixflow {

namespace {

// A spawn's limits, as PRRTE's job info parse reads them: PMIX_JOB_TIMEOUT, and
// PMIX_SPAWN_TIMEOUT or PMIX_TIMEOUT, which set one attribute (the later in the caller's
// order wins). 0 or less: none.
void set_limits(Job& job, const InfoList& info) {
  for (const auto& item : info.items) {
    const auto* seconds = std::get_if<std::int32_t>(&item.value);
    if (!seconds) continue;
    const double limit = *seconds > 0 ? static_cast<double>(*seconds) : 0.0;
    if (item.key == key::JOB_TIMEOUT) job.run_limit.seconds = limit;
    if (item.key == key::SPAWN_TIMEOUT || item.key == key::TIMEOUT) job.launch_limit.seconds = limit;
  }
}

}  // namespace

void Spawns::on_spawn(Address from, SpawnRequest&& req) {
  const std::uint64_t id = p_.ids.next();
  const Spawn& spawn =
      spawns_.emplace(id, Spawn{Origin{from, req.id, req.corr}, std::move(req), {}, 0, Status::Success}).first->second;
  if (spawn.request.apps.empty()) return finish(id, Status::ErrBadParam, {});
  // Hosts added by a spawn are refused where a scheduler owns the allocation (PRRTE's
  // ras_base_add_hosts_allowed()), never silently dropped; a standalone DVM's machine is fixed.
  if (spawn.request.job_info.has(key::ADD_HOST) || spawn.request.job_info.has(key::ADD_HOSTFILE))
    return finish(id, Status::ErrNotSupported, {});
  if (const auto* alloc = spawn.request.job_info.get<InfoList>(key::SPAWN_ALLOC))
    return with_allocation(id, spawn, *alloc);
  into_existing(id, spawn);
}

void Spawns::into_existing(std::uint64_t id, const Spawn& spawn) {
  // The session, as PRRTE's prte_plm_base_recv() picks it: the first of PMIX_SESSION_ID,
  // PMIX_ALLOC_ID and PMIX_ALLOC_REQ_ID the spawn names (one nobody knows is not found); else
  // the session of the caller's own job; a tool, or a job of the pool, spawns into the pool.
  const InfoList& info = spawn.request.job_info;
  const Session* s = nullptr;
  if (const auto sid = info.get_uint(key::SESSION_ID))
    s = p_.sessions.live(static_cast<std::uint32_t>(*sid));
  else if (const auto* alloc = info.get<std::string>(key::ALLOC_ID))
    s = p_.sessions.by_alloc(*alloc);
  else if (const auto* req_id = info.get<std::string>(key::ALLOC_REQ_ID))
    s = p_.sessions.by_req_id(*req_id);
  else if (const std::uint32_t own = p_.jobs.session_of(spawn.request.caller))
    s = p_.sessions.find(own);
  else
    return launch(id, p_.dvm.general_pool(), 0);
  if (!s) return finish(id, Status::ErrNotFound, {});
  if (!owns(p_.sessions.caller_of(spawn.request.caller, spawn.request.job_info, false), s->owner, s->id))
    return finish(id, Status::ErrNoPermissions, {});
  launch(id, p_.sessions.slots_left(*s), s->id);
}

bool Spawns::on_given_nodes(const Job& job) const {
  // An ACTIVATE's job runs on the nodes it activated, and nowhere else.
  if (job.session != 0 || !job.spawn) return false;
  const auto it = spawns_.find(*job.spawn);
  return it != spawns_.end() && it->second.request.job_info.has(key::SPAWN_ALLOC);
}

bool Spawns::moved_under(const Job& job) const {
  // What it was mapped onto is no longer its own: a node that left the DVM, one a reservation
  // now withholds from the pool, or one its session no longer holds.
  const Session* s = job.session ? p_.sessions.find(job.session) : nullptr;
  if (job.session && !s) return true;
  for (const auto& [n, procs] : job.placement) {
    const NodeState& node = p_.dvm.node(n);
    if (node.daemon == DaemonState::None) return true;
    if (!s && !node.sessions.empty()) return true;
    if (s && std::none_of(s->nodes.begin(), s->nodes.end(), [n = n](const auto& e) { return e.first == n; }))
      return true;
  }
  return false;
}

void Spawns::remap_fenced(const std::deque<std::string>& fenced) {
  // PRRTE maps a held job only once the fence lifts, in the order held; pmixflow maps a job as
  // it is asked for. The two differ when what a held job was mapped onto has changed meanwhile
  // (a shrink, a reservation), or when a fresh grant's job found some of its slots still held
  // by others' jobs, which may have ended since: then every held job is mapped again, in order,
  // as PRRTE would, once the fence is down for good (a replayed release may just have raised
  // it again).
  if (p_.dvm.changing()) return;
  std::vector<Job*> held;
  bool changed = false;
  for (const auto& nspace : fenced) {
    Job* job = p_.jobs.find(nspace);
    if (!job || (job->unmappable && !job->held_back) || on_given_nodes(*job)) continue;
    held.push_back(job);
    changed = changed || job->held_back || moved_under(*job);
  }
  if (!changed) return;
  for (Job* job : held) p_.jobs.unmap(*job);
  // A job that no longer fits fails in mapping as it launches (MAP_FAILED), holding nothing.
  for (Job* job : held) {
    const Session* s = job->session ? p_.sessions.find(job->session) : nullptr;
    const SlotList slots = s ? p_.sessions.slots_left(*s) : p_.dvm.general_pool();
    // Still held back, it is mapped again should the fence rise once more (a daemon to start).
    job->held_back = job->held_back && s && slots != s->nodes;
    job->unmappable = (job->session && !s) || !p_.jobs.map_held(*job, slots);
    // A session's node may have no daemon (lost, or a growth undone): started as at a spawn, and
    // the job is held once more until it is up.
    if (!job->unmappable) start_daemons(*job);
  }
}

void Spawns::with_allocation(std::uint64_t id, const Spawn& spawn, const InfoList& alloc) {
  // The allocation first, exactly as the standalone request would be served.
  const auto* directive = alloc.get<Directive>(key::ALLOC_REQ_DIRECTIVE);
  if (!directive) return finish(id, Status::ErrBadParam, {});
  AllocRequest request{id, *directive, alloc, spawn.request.caller, spawn.request.corr};
  request.info.erase(key::ALLOC_REQ_DIRECTIVE);
  p_.env.log(ev::SpawnAlloc{.corr = spawn.request.corr, .directive = directive_name(*directive)});
  if (*directive != Directive::Activate) return p_.link.forward(Address::controller(), std::move(request));
  std::vector<NodeId> nodes;
  const Status st =
      p_.activation.activate(ActivateCall{request.info, principal_of(request.caller, spawn.request.job_info),
                                          spawn.origin.address, request.corr},
                             nodes);
  if (st != Status::Success) return finish(id, Status::ErrJobAllocFailed, {});
  // What the activated nodes have free: a slot is taken by whatever is mapped there.
  SlotList slots;
  for (NodeId n : nodes)
    if (const std::uint32_t free = p_.dvm.free_slots(n)) slots.emplace_back(n, free);
  launch(id, slots, 0);
}

void Spawns::allocated(std::uint64_t id, Status status, const InfoList& info) {
  auto it = spawns_.find(id);
  if (it == spawns_.end()) return;
  Spawn& spawn = it->second;
  // The answer to our RELEASE after a failed launch: only now does the spawn fail.
  if (!spawn.alloc_id.empty()) return finish(id, spawn.launch_error, {});
  if (status != Status::Success) {
    p_.env.log(ev::SpawnAllocRefused{.corr = spawn.request.corr, .status = status});
    return finish(id, Status::ErrJobAllocFailed, {});  // nothing is launched
  }
  const auto* alloc_id = info.get<std::string>(key::ALLOC_ID);
  const Session* session = alloc_id ? p_.sessions.by_alloc(*alloc_id) : nullptr;
  if (!session) return finish(id, Status::ErrJobAllocFailed, {});
  spawn.alloc_id = *alloc_id;
  spawn.session = session->id;
  // Over what its nodes have left (J26): a granted node may still hold another job's slots (a
  // shared node, or a job that ran there before it left the DVM).
  const SlotList slots = p_.sessions.slots_left(*session);
  launch(id, slots, session->id, slots != session->nodes);
}

void Spawns::launch(std::uint64_t id, const SlotList& slots, std::uint32_t session, bool held_back) {
  Spawn& spawn = spawns_.at(id);
  Job job;
  job.session = session;
  job.apps = spawn.request.apps;
  job.corr = spawn.request.corr;
  job.spawn = id;
  job.held_back = held_back;
  Session* s = session ? p_.sessions.find(session) : nullptr;
  job.nspace = s ? s->next_nspace() : p_.jobs.next_pool_nspace();
  // Mapped only onto what it was given, never onto anything else the DVM holds. A fresh grant's
  // job that waits for the DVM to grow is mapped again as the fence lifts (J26): it may fit then.
  job.unmappable = !Jobs::map(job, slots);
  if (job.unmappable && !(held_back && p_.dvm.changing())) {
    spawn.launch_error = Status::ErrOutOfResource;
    if (spawn.alloc_id.empty()) return finish(id, Status::ErrOutOfResource, {});
    InfoList release;
    release.add(key::ALLOC_ID, spawn.alloc_id);
    return p_.link.forward(Address::controller(), AllocRequest{id, Directive::Release, std::move(release),
                                                               spawn.request.caller, spawn.request.corr});
  }
  if (s) s->live_jobs.push_back(job.nspace);
  if (p_.jobs.has(spawn.request.caller.nspace)) p_.jobs.spawned_by(job.nspace, spawn.request.caller.nspace);
  set_limits(job, spawn.request.job_info);
  if (const auto* sep = spawn.request.job_info.get<bool>(key::SPAWN_CHILD_SEP)) job.ends_with_parent = !*sep;
  p_.env.log(ev::SpawnLaunch{.corr = job.corr, .nspace = job.nspace, .session = session});
  Job& added = p_.jobs.add(std::move(job));
  bool growing = false;
  for (const auto& [n, procs] : added.placement) growing = growing || p_.dvm.node(n).daemon != DaemonState::Up;
  start_daemons(added);
  p_.jobs.start_or_fence(added, growing);
}

void Spawns::start_daemons(const Job& job) {
  // Nodes whose daemon is already starting belong to a change under way; only the others
  // need one of their own.
  SlotList to_start;
  for (const auto& [n, procs] : job.placement) {
    const DaemonState d = p_.dvm.node(n).daemon;
    if (d == DaemonState::None || d == DaemonState::Failed) to_start.emplace_back(n, 0);
  }
  if (to_start.empty()) return;
  // Its session's requester hears of it, as of any change growing that session's nodes.
  const Session* s = job.session ? p_.sessions.find(job.session) : nullptr;
  const GrowRequester requester = s ? GrowRequester::session(s->requester) : GrowRequester{};
  p_.dvm.grow(to_start, s ? s->alloc_id : std::string(), job.corr, s ? s->req_id : std::string(), requester);
}

void Spawns::origin_lost(Address origin) {
  for (auto& [id, spawn] : spawns_)
    if (spawn.origin.address == origin) spawn.caller_lost = true;
}

void Spawns::caller_lost(const Proc& caller, Address origin) {
  for (auto& [id, spawn] : spawns_)
    if (spawn.request.caller == caller && spawn.origin.address == origin) spawn.caller_lost = true;
}

void Spawns::job_started(Job& job) {
  if (!job.spawn) return;
  if (auto sp = spawns_.find(*job.spawn); sp != spawns_.end() && sp->second.caller_lost) {
    // Launched for a requestor that is gone: nobody will use it, so it is cancelled (its own
    // allocation's session, if any, ends with it).
    if (!sp->second.alloc_id.empty())
      if (Session* s = p_.sessions.find(job.session)) s->has_apps = true;
    p_.env.log(ev::CallOrphaned{.corr = sp->second.request.corr,
                                .status = Status::Success,
                                .detail = "its requestor is gone: job " + job.nspace + " cancelled"});
    spawns_.erase(sp);
    job.spawn.reset();
    p_.jobs.terminate(job, Status::ErrJobCanceled);
    return;
  }
  // A job started for an allocation it brought (PMIX_SPAWN_ALLOC): the session is its own
  // and ends with it. Until it started, a failed launch hands the allocation back instead.
  if (auto sp = spawns_.find(*job.spawn); sp != spawns_.end() && !sp->second.alloc_id.empty())
    if (Session* s = p_.sessions.find(job.session)) s->has_apps = true;
  finish(*job.spawn, Status::Success, job.nspace);
  job.spawn.reset();
}

void Spawns::job_ended(const EndedJob& job) {
  if (!job.spawn) return;
  Spawn& sp = spawns_.at(*job.spawn);
  // Ended cleanly before it ran (its nodes all left the DVM): answered with the job's own
  // status, as PRRTE's check_complete() answers a spawn not yet told (state_dvm.c L713-727).
  // One that brought its own allocation hands it back first, as after any launch that did not
  // run (FLOW.md §7).
  if (job.status == Status::Success && sp.alloc_id.empty()) return finish(*job.spawn, Status::Success, job.nspace);
  sp.launch_error = job.status == Status::Success ? Status::ErrJobFailedToLaunch : job.status;
  if (sp.alloc_id.empty()) return finish(*job.spawn, sp.launch_error, {});
  release(*job.spawn, sp);
}

void Spawns::release(std::uint64_t id, const Spawn& spawn) {
  // The launch failed after its allocation was granted: hand the allocation back before the
  // spawn returns its own error, so nothing stays held for no job (FLOW.md §7).
  p_.env.log(ev::SpawnRelease{.corr = spawn.request.corr, .alloc = spawn.alloc_id});
  InfoList info;
  info.add(key::ALLOC_ID, spawn.alloc_id);
  p_.link.forward(Address::controller(),
                  AllocRequest{id, Directive::Release, std::move(info), spawn.request.caller, spawn.request.corr});
}

void Spawns::finish(std::uint64_t id, Status status, const std::string& nspace) {
  auto node = spawns_.extract(id);
  if (node.empty()) return;
  const Spawn& spawn = node.mapped();
  if (spawn.caller_lost) return;  // answered by its requestor's own library already
  // PMIx_Spawn's callback carries the status and the job's namespace, nothing else
  // (pmix_spawn_cbfunc_t): the allocation a PMIX_SPAWN_ALLOC was served with is in the log
  // (spawn.alloc, spawn.launch), and the job's own info, not in the answer.
  p_.env.log(ev::SpawnAnswer{
      .corr = spawn.origin.corr, .to = p_.env.name_of(spawn.origin.address), .status = status, .nspace = nspace});
  p_.env.send(spawn.origin.address, SpawnResponse{spawn.origin.id, status, nspace, {}, spawn.origin.corr});
}

}  // namespace pmixflow
