// The controller's sessions (FLOW.md §4): created by the scheduler's INSTANTIATE (or a
// standalone RM's own decision), their nodes withheld in the DVM for their jobs, operated on by
// session control, timed out, tied to their owner or their parent, and reclaimed - torn down
// first, then reported to the scheduler with PMIX_SESSION_COMPLETE, once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/model/node_slots.hpp"
#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/controller/call_ids.hpp"
#include "pmixflow/roles/controller/dvm.hpp"
#include "pmixflow/roles/controller/job_lineage.hpp"
#include "pmixflow/roles/controller/jobs.hpp"
#include "pmixflow/roles/controller/replies.hpp"
#include "pmixflow/roles/controller/scheduler_link.hpp"
#include "pmixflow/roles/controller/session_index.hpp"
#include "pmixflow/roles/controller/session_op.hpp"

namespace pmixflow {

struct Session {
  std::uint32_t id = 0;
  std::string alloc_id;
  std::string req_id;
  std::string corr;
  Principal owner;
  // PRRTE's session requestor: its INSTANTIATE's PMIX_REQUESTOR, else whoever called. Hears the
  // PMIX_DVM_IS_READY of every DVM change growing its nodes (docs/prrte-conformance.md R41).
  Proc requester;
  bool by_scheduler = false;
  bool has_apps = false;  // reclaimed when its last job ends (else a standing reservation)
  bool terminating = false;
  // PMIX_SESSION_SEP as given: false ties it to its owner's lifetime; true or unset detaches it.
  std::optional<bool> sep;
  // The session its requestor runs in (0: none). Logged only: nothing ends with a parent, and
  // PMIX_ALLOC_CHILD_SEP is not read (PRRTE's code, docs/prrte-conformance.md J21).
  std::uint32_t parent = 0;
  Inheritance inheritance = Inheritance::Default;
  // Released by its owner without a scheduler: its daemons leave whatever its inheritance says
  // (PRRTE's ras_base_teardown_by_alloc_id(), "the nodes are returned to the scheduler").
  bool returned = false;
  SlotList nodes;
  double started = 0;     // when its time limit started counting
  double time_limit = 0;  // 0: none
  TimerId limit_timer = 0;
  std::vector<std::string> live_jobs;
  InfoList ended_jobs;                       // one PMIX_JOB_INFO_ARRAY per job, in the order they ended
  Status first_failure = Status::Success;    // how the first of its jobs that did not end cleanly ended
  std::optional<Origin> instantiate_answer;  // answered once its job is launched
  std::string ctrl_id;                       // its INSTANTIATE's PMIX_SESSION_CTRL_ID, echoed in that answer
  std::uint32_t jobs_created = 0;
  // How to reverse each PAUSE or PREEMPT carried out on it, by the call that asked for it: a
  // stop whose requestor never learns of it is undone (FLOW.md, "Faults"). Forgotten once the
  // session is resumed or restored.
  std::map<std::string, InfoList> undo_stop;

  std::string next_nspace() { return session_job_nspace(id, ++jobs_created); }
};

// What PRRTE's set_response() answers a successful session control with: the caller's
// PMIX_SESSION_CTRL_ID, then the session's PMIX_SESSION_ID, PMIX_ALLOC_ID and
// PMIX_ALLOC_REQ_ID (none for a TERMINATE: the session is going), then a launched job's
// PMIX_NSPACE.
InfoList session_ctrl_response(std::string_view ctrl_id, const Session* s, std::string_view nspace = {});

class Sessions {
 public:
  Sessions(Env& env, const Cluster& cluster, Dvm& dvm, Jobs& jobs, SchedulerLink& link, Replies& replies, CallIds& ids)
      : env_(env), cluster_(cluster), dvm_(dvm), jobs_(jobs), link_(link), replies_(replies), ids_(ids) {}

  std::size_t size() const { return sessions_.size(); }
  Session* find(std::uint32_t id);
  // A session being torn down is gone to whoever names it, even while its jobs are still ending
  // (PRRTE deregisters a reservation at once, prte_ras_base_teardown_reservation(), row R50):
  // only session control and the session's own jobs still reach it, by find().
  Session* live(std::uint32_t id);
  bool is_live(std::uint32_t id) const;
  Session* by_alloc(const std::string& alloc_id);
  // The session made for the request the caller named PMIX_ALLOC_REQ_ID (the first, when several).
  Session* by_req_id(const std::string& req_id);
  // The live sessions instantiated for the call `corr` names.
  std::vector<std::uint32_t> of_call(const std::string& corr) const;
  // A PAUSE or PREEMPT the call `corr` made is reversed, as its caller would (RESUME, RESTORE).
  void reverse_stop(const std::string& corr, std::string_view why);

  // What a new job of the session may be mapped onto: what its own jobs leave of its slots,
  // and no more than each node has free (PRRTE's get_target_nodes(), slots - slots_inuse).
  SlotList slots_left(const Session& s) const;
  // Who `proc` is to the sessions: a tool, or a process of one of the RM's jobs.
  SessionCaller caller_of(const Proc& proc, const InfoList& info, bool scheduler) const;
  // The session holds these nodes too; the DVM grows over those without a daemon, told to its
  // requester. `corr`: the request that asked (the session's own when empty).
  void add_nodes(Session& s, const SlotList& added, const std::string& corr = {});
  // The node leaves the DVM by a shrink: no session holds it any more (PRRTE's shrink clears
  // the node's session). Called by the DVM while it still records who held the node.
  void drop_node(NodeId n);
  // PMIx_Session_control: an order of the scheduler, or (none attached) the controller's own
  // decision on a requestor's call (session_control.cpp).
  void execute(const Origin& origin, SessionCtrlRequest&& req, bool by_scheduler);
  // PMIX_SESSION_INSTANTIATE: answered now for a reservation, once launched for a job.
  Status instantiate(const Origin& origin, const Proc& caller, std::uint32_t id, const InfoList& directives);
  Status terminate(Session& s, Status reason);
  // `ended` (a job, or a requestor that went) has ended: the sessions tied to their owner (SEP
  // false) that end with it, by their inheritance.
  void end_tied_to(const std::string& ended, Status reason);

  // A job's start answers its instantiation.
  void answer_instantiation(const Job& job);
  void job_ended(const EndedJob& job);

 private:
  Session* new_session(const Origin& origin, std::uint32_t id, const InfoList& directives, Status& why);
  void log_instantiated(const Session& s, const Origin& origin);
  void arm_limit(Session& s);
  void reclaim(Session& s);
  void send_complete(Session& s);
  // A job of the session's line still runs: its owner, one of its jobs, or one they spawned.
  bool lineage_runs(const Session& s) const;
  // session_control.cpp
  std::optional<std::vector<std::uint32_t>> targets(const Origin& origin, const SessionCtrlRequest& req,
                                                    const SessionCaller& caller, const SessionOperation& op);
  Status apply(Session& s, const SessionOperation& op, const std::vector<std::string>& jobs, const InfoList& d);
  Status stop_jobs(Session& s, const std::vector<std::string>& named, SessionOp verb);
  Status signal_jobs(Session& s, const std::vector<std::string>& named, int signal);
  Status extend(Session& s, const InfoList& directives);
  void remember_stop(Session& s, const SessionOperation& op, const SessionCtrlRequest& req);

  Env& env_;
  const Cluster& cluster_;
  Dvm& dvm_;
  Jobs& jobs_;
  SchedulerLink& link_;
  Replies& replies_;
  CallIds& ids_;
  std::map<std::uint32_t, Session> sessions_;
  SessionIndex index_;
};

}  // namespace pmixflow
