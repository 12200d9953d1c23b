// Sessions: instantiation, time limits, termination, dependents, reclamation.
#include "pmixflow/roles/controller/sessions.hpp"

#include <algorithm>
#include <set>

#include "pmixflow/roles/controller/term_status.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

Session* Sessions::find(std::uint32_t id) {
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

std::vector<std::uint32_t> Sessions::of_call(const std::string& corr) const {
  std::vector<std::uint32_t> ids;
  if (corr.empty()) return ids;
  for (const std::uint32_t id : index_.of_call(corr))
    if (is_live(id)) ids.push_back(id);
  return ids;
}

bool Sessions::is_live(std::uint32_t id) const {
  const auto it = sessions_.find(id);
  return it != sessions_.end() && !it->second.terminating;
}

Session* Sessions::live(std::uint32_t id) { return is_live(id) ? find(id) : nullptr; }

Session* Sessions::by_alloc(const std::string& alloc_id) {
  for (const std::uint32_t id : index_.of_alloc(alloc_id))
    if (Session* s = live(id)) return s;
  return nullptr;
}

Session* Sessions::by_req_id(const std::string& req_id) {
  // Rare (a spawn naming its request's id): a walk, rather than an index every session pays for.
  for (auto& [id, s] : sessions_)
    if (s.req_id == req_id && !s.terminating) return &s;
  return nullptr;
}

namespace {

SessionKeys keys_of(const Session& s) { return {s.id, s.corr, s.alloc_id, s.owner.proc.nspace}; }

struct NewSession {
  std::optional<Session> session;
  std::optional<Job> job;
  Status why = Status::Success;
};

NewSession refused(Status why) {
  NewSession out;
  out.why = why;
  return out;
}

// What PMIX_SESSION_INSTANTIATE asks for, checked: resources in PMIX_SESSION_RESOURCES, or
// given directly beside the directive; apps without resources refused up front.
NewSession read_instantiation(const Origin& origin, std::uint32_t id, const InfoList& directives,
                              const Cluster& cluster, double now) {
  const InfoList res = resource_keys(directives);
  const auto* apps = directives.get<std::vector<App>>(key::SESSION_APP);
  Session s;
  s.id = id;
  s.corr = origin.corr;
  s.by_scheduler = origin.address == Address::scheduler();
  s.started = now;
  if (const auto* owner = directives.get<Proc>(key::REQUESTOR)) s.owner = principal_of(*owner, directives);
  if (const auto* a = res.get<std::string>(key::ALLOC_ID)) s.alloc_id = *a;
  if (const auto* c = directives.get<std::string>(key::SESSION_CTRL_ID)) s.ctrl_id = *c;
  if (const auto* r = res.get<std::string>(key::ALLOC_REQ_ID)) s.req_id = *r;
  if (auto inh = res.get_uint(key::ALLOC_INHERITANCE); inh && *inh >= 1 && *inh <= 4)
    s.inheritance = static_cast<Inheritance>(*inh);
  try {
    // Every node list counts. None at all is a standing reservation holding nothing yet (an
    // EXTEND may give it nodes); apps with nowhere to run are refused up front.
    bool listed = false;
    for (const auto& item : res.items) {
      if (item.key != key::ALLOC_NODE_LIST) continue;
      const auto* list = std::get_if<std::string>(&item.value);
      auto nodes = list ? parse_node_slots(*list, cluster) : std::nullopt;
      if (!nodes || nodes->empty()) return refused(Status::ErrBadParam);
      merge_slots(s.nodes, *nodes);
      listed = true;
    }
    if (!listed && apps && !apps->empty()) return refused(Status::ErrBadParam);
    s.time_limit = read_alloc_time(res).value_or(0.0);
    if (auto t = res.get_uint(key::TIMEOUT)) s.time_limit = static_cast<double>(*t);
  } catch (const InputError&) {
    return refused(Status::ErrBadParam);
  }
  // Sessions made by session control are detached by default; SEP=false ties one to its
  // requestor (a session asked for from inside another only names it as its parent).
  if (const Value* v = directives.find(key::SESSION_SEP); v && std::holds_alternative<bool>(*v))
    s.sep = std::get<bool>(*v);
  NewSession out;
  if (apps && !apps->empty()) {
    s.has_apps = true;
    Job job;
    job.nspace = s.next_nspace();
    job.session = id;
    job.apps = *apps;
    job.corr = origin.corr;
    s.instantiate_answer = origin;
    out.job = std::move(job);
  }
  out.session = std::move(s);
  return out;
}

}  // namespace

void Sessions::log_instantiated(const Session& s, const Origin& origin) {
  if (!env_.wants<ev::SessionInstantiate>()) return;
  env_.log(ev::SessionInstantiate{.corr = s.corr,
                                  .session = s.id,
                                  .alloc = s.alloc_id,
                                  .node_list = format_node_slots(s.nodes, cluster_),
                                  .by = env_.name_of(origin.address),
                                  .time_limit = s.time_limit,
                                  .with_apps = s.has_apps,
                                  .owner = to_string(s.owner.proc),
                                  .sep = s.sep,
                                  .parent = s.parent});
}

Status Sessions::instantiate(const Origin& origin, const Proc& caller, std::uint32_t id, const InfoList& directives) {
  if (sessions_.count(id)) return Status::ErrExists;
  NewSession fresh = read_instantiation(origin, id, directives, cluster_, env_.now());
  if (!fresh.session) return fresh.why;
  // Named by whoever asked for it when no id is given (PRRTE's session_instantiate()).
  const auto* requestor = directives.get<Proc>(key::REQUESTOR);
  fresh.session->requester = requestor ? *requestor : caller;
  if (fresh.session->alloc_id.empty())
    fresh.session->alloc_id = fresh.session->requester.nspace + "." + std::to_string(id);
  fresh.session->parent = jobs_.session_of(fresh.session->owner.proc);
  for (const auto& [n, k] : fresh.session->nodes) dvm_.withhold(n, id);
  log_instantiated(*fresh.session, origin);
  for (const auto& [n, k] : fresh.session->nodes) dvm_.log_node(n);
  Session& s = sessions_.emplace(id, std::move(*fresh.session)).first->second;
  index_.add(keys_of(s));
  arm_limit(s);
  // Nodes given are a grow, as PRRTE's session_instantiate() activates one for every node
  // list: its requester hears PMIX_DVM_IS_READY even when every node had a daemon already.
  const bool growing =
      !s.nodes.empty() && dvm_.grow(s.nodes, s.alloc_id, s.corr, s.req_id, GrowRequester::session(s.requester));
  if (!fresh.job) {
    // A standing reservation: granted now; its daemons are reported by PMIX_DVM_IS_READY.
    replies_.session_ctrl(origin, Status::Success, session_ctrl_response(s.ctrl_id, &s));
    return Status::Success;
  }
  // Mapped over what its nodes have left (J26): a granted node may still hold another job's
  // slots (a shared node, or a job that ran there before it left the DVM). Not refused here: it
  // fails at launch.
  const SlotList slots = slots_left(s);
  fresh.job->held_back = slots != s.nodes;
  fresh.job->unmappable = !Jobs::map(*fresh.job, slots);
  s.live_jobs.push_back(fresh.job->nspace);
  jobs_.start_or_fence(jobs_.add(std::move(*fresh.job)), growing);
  return Status::Success;
}

void Sessions::arm_limit(Session& s) {
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  // Counted from the instantiation, as PRRTE's session_instantiate() arms it: the DVM's growth
  // and the launch count against it. The grace lets a job that ends exactly at its limit
  // report its own end (its report crosses the network as the limit expires) rather than be
  // killed.
  if (s.time_limit <= 0) return;
  constexpr double kGrace = 1e-3;
  const double remaining = std::max(0.0, s.started + s.time_limit + (s.has_apps ? kGrace : 0.0) - env_.now());
  const std::uint32_t id = s.id;
  s.limit_timer = env_.after(remaining, [this, id] {
    Session* session = find(id);
    if (!session) return;
    session->limit_timer = 0;
    env_.log(ev::SessionTimeout{.session = id, .corr = session->corr});
    terminate(*session, Status::ErrTimeout);
  });
}

Status Sessions::terminate(Session& s, Status reason) {
  if (s.terminating) return Status::Success;  // already on its way out
  s.terminating = true;
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  env_.log(ev::SessionTerminate{.session = s.id, .corr = s.corr, .reason = reason});
  if (s.live_jobs.empty()) {
    reclaim(s);
    return Status::Success;
  }
  const auto live = s.live_jobs;  // ending jobs edit the list
  for (const auto& nspace : live)
    if (Job* job = jobs_.find(nspace)) jobs_.terminate(*job, reason);
  return Status::Success;
}

SlotList Sessions::slots_left(const Session& s) const {
  // What the session's own jobs leave of its slots, and no more than the node has free: a node
  // shared with another session, or still held by a job that ran there before it left the DVM
  // (J25), has fewer. A node granted with more slots than it has (`n01:16`) may hold them all.
  const SlotList own = jobs_.procs_by_node(s.live_jobs);
  SlotList slots;
  for (const auto& [n, k] : s.nodes) {
    const std::uint32_t used = count_on(own, n);
    if (const std::uint32_t free = std::min(k - std::min(used, k), dvm_.free_slots(n, k))) slots.emplace_back(n, free);
  }
  return slots;
}

InfoList session_ctrl_response(std::string_view ctrl_id, const Session* s, std::string_view nspace) {
  InfoList info;
  if (!ctrl_id.empty()) info.add(key::SESSION_CTRL_ID, std::string(ctrl_id));
  if (s) {
    info.add(key::SESSION_ID, s->id);
    if (!s->alloc_id.empty()) info.add(key::ALLOC_ID, s->alloc_id);
    if (!s->req_id.empty()) info.add(key::ALLOC_REQ_ID, s->req_id);
  }
  if (!nspace.empty()) info.add(key::NSPACE, std::string(nspace));
  return info;
}

void Sessions::answer_instantiation(const Job& job) {
  Session* s = find(job.session);
  if (!s || !s->instantiate_answer) return;
  // "answers only once the launch is done" (FLOW.md §4)
  replies_.session_ctrl(*s->instantiate_answer, Status::Success, session_ctrl_response(s->ctrl_id, s, job.nspace));
  s->instantiate_answer.reset();
}

void Sessions::job_ended(const EndedJob& job) {
  // Sessions tied to this job (requested from inside it with SEP=false) end with it.
  end_tied_to(job.nspace, Status::ErrJobKilledByCmd);
  Session* s = find(job.session);
  if (!s) return;
  InfoList record;
  record.add(key::NSPACE, job.nspace).add(key::JOB_TERM_STATUS, prrte_term_status(job.status));
  if (s->first_failure == Status::Success) s->first_failure = job.status;
  s->ended_jobs.add(key::JOB_INFO_ARRAY, std::move(record));
  std::erase(s->live_jobs, job.nspace);
  // With apps, the session is reclaimed when its last job ends (FLOW.md §4).
  if (s->live_jobs.empty() && (s->has_apps || s->terminating)) reclaim(*s);
}

void Sessions::send_complete(Session& s) {
  InfoList d;
  d.add(key::SESSION_COMPLETE, true).add(key::SESSION_ID, s.id).add(key::ALLOC_ID, s.alloc_id);
  for (auto& item : s.ended_jobs.items) d.items.push_back(std::move(item));
  SessionCtrlRequest complete{ids_.next(), s.id, std::move(d), kControllerProc, s.corr};
  env_.log(ev::SessionComplete{.session = s.id, .alloc = s.alloc_id, .corr = s.corr});
  link_.complete(std::move(complete));
}

void Sessions::reclaim(Session& s) {
  // Tear down first, then tell the scheduler: COMPLETE goes out only once the resources
  // really are free (FLOW.md §4).
  if (s.limit_timer) env_.cancel(s.limit_timer);
  s.limit_timer = 0;
  const bool keep_daemons =
      !s.returned && (s.inheritance == Inheritance::Default || s.inheritance == Inheritance::ChildDefault);
  for (const auto& [n, k] : s.nodes) dvm_.release(n, s.id, keep_daemons);
  env_.log(ev::SessionReclaimed{.session = s.id,
                                .alloc = s.alloc_id,
                                .corr = s.corr,
                                .nodes_to = keep_daemons ? "dvm-pool" : "scheduler",
                                .num_jobs = s.ended_jobs.size()});
  const std::uint32_t id = s.id;
  const SessionKeys keys = keys_of(s);
  // An instantiation still waiting for its launch is answered with how its job ended.
  const Status unlaunched = s.first_failure == Status::Success ? Status::ErrJobKilledByCmd : s.first_failure;
  if (s.by_scheduler) send_complete(s);
  if (s.instantiate_answer) replies_.session_ctrl(*s.instantiate_answer, unlaunched);
  index_.remove(keys);
  sessions_.erase(id);
  // Nothing else ends with it: PRRTE links no session to another, so a child outlives its
  // parent whatever FLOW.md §4 and PRRTE's structures.rst say (docs/prrte-conformance.md, J21).
}

bool Sessions::lineage_runs(const Session& s) const {
  const std::string& owner = s.owner.proc.nspace;
  return jobs_.any_live_in_line([&](const std::string& ns) { return ns == owner || session_of_nspace(ns) == s.id; });
}

void Sessions::end_tied_to(const std::string& ended, Status reason) {
  // As PRRTE's prte_ras_base_check_reservations_on_term(), for sessions tied to their owner (SEP
  // false, checked as it stands now): NONE and DEFAULT end with the owner itself; CHILD and
  // CHILD_DEFAULT once nothing of their line runs any more: the owner, the session's jobs and
  // every job those spawned. What ended may be any of them.
  std::set<std::uint32_t> doomed;
  const auto consider = [&](std::uint32_t sid, bool owner_ended) {
    const auto it = sessions_.find(sid);
    if (it == sessions_.end() || it->second.sep != false || it->second.terminating) return;
    const Session& s = it->second;
    const bool child = s.inheritance == Inheritance::Child || s.inheritance == Inheritance::ChildDefault;
    if (child ? !lineage_runs(s) : owner_ended) doomed.insert(sid);
  };
  for (const auto& ns : jobs_.ancestry(ended)) {
    for (const std::uint32_t sid : index_.of_owner(ns)) consider(sid, ns == ended);
    if (const std::uint32_t sid = session_of_nspace(ns)) consider(sid, false);
  }
  for (std::uint32_t sid : doomed) {
    Session* s = find(sid);
    if (!s || s->terminating) continue;
    env_.log(ev::SessionDependentEnd{.session = sid, .parent = 0, .owner_nspace = s->owner.proc.nspace});
    terminate(*s, reason);
  }
}

}  // namespace pmixflow
