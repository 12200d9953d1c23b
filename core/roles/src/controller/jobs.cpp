#include "pmixflow/roles/controller/jobs.hpp"

#include <algorithm>
#include <utility>

#include "pmixflow/roles/controller/term_status.hpp"

namespace pmixflow {

bool Jobs::map(Job& job, const SlotList& slots) {
  // By slot over the given nodes, in order: PRRTE's default mapping. Never oversubscribes. The
  // apps stay as asked, so that a job mapped again starts from what it asked for.
  std::uint64_t total = 0, procs = 0;
  for (const auto& [n, k] : slots) total += k;
  for (const auto& app : job.apps) procs += app.maxprocs == 0 ? total : app.maxprocs;
  if (procs == 0 || procs > total) return false;
  // An app asking for no count gets every slot (then it is the job's only app).
  job.counts.clear();
  for (const auto& app : job.apps)
    job.counts.push_back(app.maxprocs == 0 ? static_cast<std::uint32_t>(total) : app.maxprocs);
  job.placement.clear();
  auto node = slots.begin();
  std::uint32_t used = 0;
  for (std::uint64_t p = 0; p < procs; ++p) {
    while (used == node->second) {
      ++node;
      used = 0;
    }
    if (job.placement.empty() || job.placement.back().first != node->first) job.placement.emplace_back(node->first, 0);
    ++job.placement.back().second;
    ++used;
  }
  SlotList sorted = job.placement;
  std::sort(sorted.begin(), sorted.end());
  job.by_node.clear();
  for (const auto& [n, k] : sorted) {
    if (!job.by_node.empty() && job.by_node.back().first == n)
      job.by_node.back().second += k;  // a node the slots named twice apart holds the ranks of both runs
    else
      job.by_node.emplace_back(n, k);
  }
  return true;
}

std::uint32_t count_on(const SlotList& by_node, NodeId n) {
  const auto it = std::lower_bound(by_node.begin(), by_node.end(), std::pair<NodeId, std::uint32_t>{n, 0});
  return it != by_node.end() && it->first == n ? it->second : 0;
}

Job& Jobs::add(Job job) {
  const std::string nspace = job.nspace;
  Job& added = jobs_.emplace(nspace, std::move(job)).first->second;
  hold(added);
  if (added.run_limit.seconds > 0)
    added.run_limit.timer = env_.after(added.run_limit.seconds, [this, nspace] { timed_out(nspace); });
  if (added.launch_limit.seconds > 0)
    added.launch_limit.timer = env_.after(added.launch_limit.seconds, [this, nspace] { launch_timed_out(nspace); });
  return added;
}

void Jobs::cancel(JobLimit& limit) {
  if (limit.timer) env_.cancel(std::exchange(limit.timer, 0));
}

void Jobs::timed_out(const std::string& nspace) {
  // As PRRTE's job_timeout_cb(): the job's processes are killed by order, wherever it stands,
  // and its children's with them, whatever PMIX_SPAWN_CHILD_SEP said.
  Job* job = find(nspace);
  if (!job) return;
  job->run_limit.timer = 0;
  env_.log(ev::JobTimeout{.nspace = nspace, .corr = job->corr, .time_limit = job->run_limit.seconds});
  const std::vector<std::string> children = job->children;  // it may end at once (held behind the fence)
  terminate(*job, Status::ErrTimeout);
  kill_children(nspace, children, false);
}

void Jobs::launch_timed_out(const std::string& nspace) {
  // As PRRTE's spawn_timeout_cb(): both limits are dropped and the job fails to start
  // (FAILED_TO_START, PMIX_ERR_JOB_FAILED_TO_LAUNCH), whether it still waits behind the fence
  // or some of its processes have started; those are killed.
  Job* job = find(nspace);
  if (!job) return;
  job->launch_limit.timer = 0;
  cancel(job->run_limit);
  env_.log(ev::JobLaunchTimeout{.nspace = nspace, .corr = job->corr, .time_limit = job->launch_limit.seconds});
  terminate(*job, Status::ErrJobFailedToLaunch);
}

void Jobs::spawned_by(const std::string& child, const std::string& parent) {
  lineage_.spawned(child, parent);
  if (Job* p = find(parent)) p->children.push_back(child);
}

Job* Jobs::find(const std::string& nspace) {
  const auto it = jobs_.find(nspace);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::uint32_t Jobs::session_of(const Proc& p) const {
  const auto it = jobs_.find(p.nspace);
  return it == jobs_.end() ? 0 : it->second.session;
}

bool Jobs::any_live_in_line(const std::function<bool(const std::string&)>& in_line) const {
  for (const auto& [nspace, job] : jobs_)
    for (const auto& ancestor : lineage_.ancestry(nspace))
      if (in_line(ancestor)) return true;
  return false;
}

SlotList Jobs::procs_by_node(const std::vector<std::string>& nspaces) const {
  SlotList all;
  for (const auto& ns : nspaces) {
    const auto& by_node = jobs_.at(ns).by_node;
    all.insert(all.end(), by_node.begin(), by_node.end());
  }
  std::sort(all.begin(), all.end());
  SlotList summed;
  for (const auto& [n, procs] : all) {
    if (!summed.empty() && summed.back().first == n)
      summed.back().second += procs;
    else
      summed.emplace_back(n, procs);
  }
  return summed;
}

void Jobs::hold(const Job& job) {
  // As PRRTE's prte_rmaps_base_setup_proc(): a slot is in use from when a process is mapped
  // onto it, whether the job then waits behind the fence or its ranks have yet to start.
  for (const auto& [n, procs] : job.by_node) {
    dvm_.add_procs(n, procs);
    dvm_.log_node(n);
  }
}

void Jobs::give_back(const Job& job) {
  // As PRRTE's check_complete_resume() (state_dvm.c L954-1048): a job's slots come back when
  // the job is done with, on every node of its map, not as each node's ranks end.
  for (const auto& [n, procs] : job.by_node) {
    dvm_.remove_procs(n, procs);
    dvm_.log_node(n);
  }
}

void Jobs::unmap(Job& job) {
  // As PRRTE's prte_plm_base_reset_proc_map() for a held job mapped again.
  give_back(job);
  job.placement.clear();
  job.by_node.clear();
}

bool Jobs::map_held(Job& job, const SlotList& slots) {
  if (!map(job, slots)) return false;
  hold(job);
  return true;
}

void Jobs::start_or_fence(Job& job, bool growing) {
  if (growing || dvm_.changing()) {
    env_.log(ev::JobFenced{.nspace = job.nspace, .corr = job.corr, .detail = "DVM changing size"});
    dvm_.fence(job.nspace);
  } else {
    launch(job);
  }
}

void Jobs::launch_fenced(const std::deque<std::string>& fenced) {
  // Held again when the DVM has started changing size meanwhile (a replayed shrink).
  for (const auto& nspace : fenced)
    if (Job* job = find(nspace)) start_or_fence(*job, false);
}

void Jobs::fail_fenced(const std::deque<std::string>& fenced) {
  // PRRTE's prte_plm_base_abort_premap_held(): NEVER_LAUNCHED, PMIX_ERR_JOB_FAILED_TO_LAUNCH.
  for (const auto& nspace : fenced)
    if (Job* job = find(nspace)) end_unlaunched(*job, Status::ErrJobFailedToLaunch);
}

namespace {
std::string rank_map(const SlotList& placement, const Cluster& cluster) {
  std::string out;
  std::uint32_t rank = 0;
  for (const auto& [n, procs] : placement) {
    if (procs == 0) continue;
    out += (out.empty() ? "" : ",") + cluster.node(n).name + ":" + std::to_string(rank);
    if (procs > 1) out += "-" + std::to_string(rank + procs - 1);
    rank += procs;
  }
  return out;
}
}  // namespace

void Jobs::launch(Job& job) {
  if (job.unmappable) return end_unlaunched(job, Status::ErrJobFailedToMap);
  job.state = JobState::Launching;
  if (env_.wants<ev::JobLaunch>())
    env_.log(ev::JobLaunch{.nspace = job.nspace,
                           .session = job.session,
                           .corr = job.corr,
                           .num_daemons = job.placement.size(),
                           .rank_map = rank_map(job.placement, cluster_)});
  // Each daemon is sent the whole job and the ranks that are its own (PRRTE's launch message
  // carries the job map the same way).
  std::vector<App> apps = job.apps;
  for (std::size_t i = 0; i < apps.size(); ++i) apps[i].maxprocs = job.counts[i];
  std::uint32_t rank = 0;
  std::vector<NodeId> unreachable;
  for (const auto& [n, procs] : job.placement) {
    if (dvm_.node(n).daemon != DaemonState::Up) {
      unreachable.push_back(n);
    } else {
      env_.send(Address::daemon(n), LaunchProcs{job.nspace, job.session, apps, procs, rank, job.corr});
      // Paused or preempted while it waited behind the fence: it starts stopped.
      if (job.suspended) env_.send(Address::daemon(n), SignalProcs{job.nspace, kSigStop});
    }
    rank += procs;
  }
  // Ranks whose daemon never came up cannot start; the job may end here, so it is looked up
  // again rather than held by reference.
  const std::string nspace = job.nspace;
  for (NodeId n : unreachable) on_started(ProcsStarted{nspace, n, Status::ErrJobFailedToLaunch});
}

void Jobs::on_started(const ProcsStarted& m) {
  Job* found = find(m.nspace);
  if (!found) return;
  Job& job = *found;
  if (job.released_on.contains(m.node)) return;  // its ranks there were accounted for when it left
  if (m.status != Status::Success) {
    // A launch that fails anywhere fails the job: the ranks that did start are killed.
    env_.log(ev::JobLaunchFailed{.nspace = job.nspace, .node = cluster_.node(m.node).name, .status = m.status});
    return on_ended(ProcsEnded{m.nspace, m.node, m.status, 0});
  }
  job.running_on.insert(m.node);
  job.ran = true;
  count_started(job);
}

void Jobs::count_started(Job& job) {
  if (++job.started < job.placement.size() || job.state != JobState::Launching || job.ending()) return;
  // Every node left the DVM before any rank there started: the job never ran, and ends with the
  // release (PRRTE's job never reaches RUNNING; prte_plm_base_post_launch() never runs).
  if (!job.ran) return;
  job.state = JobState::Running;
  cancel(job.launch_limit);  // as PRRTE's prte_plm_base_post_launch()
  env_.log(ev::JobStart{.nspace = job.nspace, .session = job.session, .corr = job.corr, .code = Status::EventJobStart});
  events_.job_started(job);
}

void Jobs::on_ended(const ProcsEnded& m) {
  Job* found = find(m.nspace);
  if (!found) return;
  Job& job = *found;
  if (job.released_on.contains(m.node)) return;  // accounted for when it left
  ranks_ended(job, m);
}

void Jobs::ranks_ended(Job& job, const ProcsEnded& m) {
  job.ended_on.insert(m.node);
  job.running_on.erase(m.node);
  // The job's status is the first failure any of its daemons reports. As PRRTE's errmgr
  // (proc_errors()), that first abnormal end, a launch that failed, a non-zero exit or a signal,
  // kills the job's other ranks at once.
  if (!job.ending() && m.status != Status::Success) {
    job.status = m.status;
    job.aborted = true;
    for (const auto& [n, procs] : job.by_node)
      if (!job.ended_on.contains(n) && dvm_.node(n).daemon == DaemonState::Up)
        env_.send(Address::daemon(n), KillProcs{job.nspace, m.status});
  }
  if (++job.ended < job.placement.size()) return;
  end(job);
}

void Jobs::end(Job& job) {
  job.state = JobState::Ended;
  cancel(job.run_limit);
  cancel(job.launch_limit);
  give_back(job);
  env_.log(ev::JobEnd{.nspace = job.nspace,
                      .session = job.session,
                      .corr = job.corr,
                      .status = job.status,
                      .code = Status::EventJobEnd,
                      .term_status = prrte_term_status(job.status)});
  const EndedJob ended{job.nspace, job.session, job.status, job.spawn};
  const std::vector<std::string> children = std::move(job.children);
  jobs_.erase(ended.nspace);
  events_.job_ended(ended);
  if (!children.empty()) kill_children(ended.nspace, children, true);
}

void Jobs::kill_children(const std::string& parent, const std::vector<std::string>& children, bool only_tied) {
  for (const auto& nspace : children) {
    Job* child = find(nspace);
    // One already being ended (a time limit, a failed rank, a TERMINATE) keeps its own end.
    if (!child || (only_tied && !child->ends_with_parent) || child->state == JobState::Ended || child->ending())
      continue;
    env_.log(ev::JobChildKilled{.nspace = nspace, .corr = child->corr, .parent_job = parent});
    terminate(*child, Status::ErrJobKilledByCmd);
  }
}

void Jobs::end_unlaunched(Job& job, Status status) {
  dvm_.unfence(job.nspace);
  job.status = status;
  end(job);
}

bool Jobs::set_suspended(Job& job, bool suspend, SessionOp by) {
  if (job.suspended == suspend || job.state == JobState::Ended) return false;
  job.suspended = suspend;
  if (suspend) job.stopped_by = by;
  if (job.state == JobState::Fenced) return true;  // no processes yet: launched stopped
  const bool paused = suspend && by == SessionOp::Pause;
  const bool preempted = suspend && by == SessionOp::Preempt;
  if (suspend)
    env_.log(ev::JobSuspend{.nspace = job.nspace, .session = job.session, .paused = paused, .preempted = preempted});
  else
    env_.log(ev::JobContinue{.nspace = job.nspace, .session = job.session, .paused = paused, .preempted = preempted});
  send_to_ranks(job, SignalProcs{job.nspace, suspend ? kSigStop : kSigCont});
  return true;
}

void Jobs::signal(const Job& job, int signal) { send_to_ranks(job, SignalProcs{job.nspace, signal}); }

void Jobs::send_to_ranks(const Job& job, const Message& msg, std::optional<NodeId> except) {
  // Not to a node that left the DVM by a release: its daemon is gone, and its ranks with it.
  for (const auto& [n, procs] : job.placement)
    if (n != except && !job.released_on.contains(n)) env_.send(Address::daemon(n), msg);
}

void Jobs::terminate(Job& job, Status reason) {
  // A job already being ended keeps its first end (J20): a later order finds its processes
  // already being killed, as PRRTE's kill of a job already aborting changes nothing.
  if (job.ending()) return;
  if (job.state == JobState::Fenced) return end_unlaunched(job, reason);
  job.status = reason;
  set_suspended(job, false, job.stopped_by);  // stopped processes are continued first, then killed
  send_to_ranks(job, KillProcs{job.nspace, reason});
}

void Jobs::release_on(NodeId node) {
  std::vector<std::string> hit;
  for (const auto& [ns, job] : jobs_)
    if (job.state != JobState::Fenced && job.procs_on(node) && !job.ended_on.contains(node)) hit.push_back(ns);
  std::sort(hit.begin(), hit.end());
  for (const auto& ns : hit) {
    Job* job = find(ns);
    if (!job) continue;             // ended with an earlier one's ranks
    job->released_on.insert(node);  // first: whatever follows sends nothing there
    // Ranks sent there and not yet reported started never will be: counted as started, so the
    // job still runs (and its spawn is answered) once its other nodes have started, or, when
    // none had, ends without having run.
    if (job->state == JobState::Launching && !job->running_on.contains(node)) count_started(*job);
    if ((job = find(ns))) ranks_ended(*job, ProcsEnded{ns, node, Status::Success, 0});
  }
}

void Jobs::abort_on(NodeId node) {
  std::vector<std::string> hit;
  for (const auto& [ns, job] : jobs_)
    for (const auto& [n, procs] : job.placement)
      if (n == node && job.state != JobState::Ended && !job.released_on.contains(n)) hit.push_back(ns);
  std::sort(hit.begin(), hit.end());
  for (const auto& ns : hit) {
    Job* job = find(ns);
    if (!job) continue;
    // As PRRTE's TERM_WO_SYNC branch: the job's end unless a failure came first (an order does
    // not count: J20).
    if (!job->aborted) job->status = Status::ErrJobAbortedBySysEvent;
    job->aborted = true;
    send_to_ranks(*job, KillProcs{ns, Status::ErrJobAbortedBySysEvent}, node);
    if (job->state == JobState::Fenced)
      end_unlaunched(*job, Status::ErrJobAbortedBySysEvent);
    else
      on_ended(ProcsEnded{ns, node, Status::ErrJobAbortedBySysEvent, 0});
  }
}

}  // namespace pmixflow
