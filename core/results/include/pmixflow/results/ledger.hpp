// The two accounts a run's outcomes are read from, both rebuilt from the log: what each
// requestor asked and was answered (its `call` and `answer` events), and how the scheduler
// accounted for each PMIX_ALLOC_NEW it queued (alloc.queued ... session.completed), completed
// by what the RM logged of its session when the scheduler was not there to hear it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmixflow/log/record.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

// What an allocation request asked for, as its info said it (the first of each key).
struct RequestAsked {
  std::string profile = "reservation";  // its app's command; a reservation has none
  std::uint64_t cpus = 0;
  std::uint64_t nodes = 0;
};
RequestAsked read_asked(std::string_view info_json);  // the log's [[key, value], ...]

// One call of a requestor: what it asked, and its answer.
struct CallRecord {
  std::string corr;
  std::string requestor;  // the party that called: "requestor:alice"
  std::string what;
  std::string via;
  std::string directive;  // of an allocation request; empty otherwise
  std::string info;       // the call's PMIx info as JSON (allocation requests); kept only with detail
  RequestAsked asked;     // what that info asked for, read as the call is recorded
  std::size_t line = 0;
  std::optional<Status> expect;
  std::optional<double> recorded_wait;
  double sent = 0;
  std::optional<double> answered;
  Status status = Status::Success;  // when answered
  std::string answer_info = "[]";   // the answer's PMIx info as JSON (the first answer's); kept only with detail
  std::size_t answers = 0;          // more than one breaks FLOW.md's promise (invariants.hpp)
  // The requestor exited before any answer reached it: the call was abandoned, not left hanging.
  std::optional<double> caller_gone;
};

class CallLedger {
 public:
  static log::KindSet kinds();
  // Without detail, each call's info and its answer's are not kept (a replay's outputs read
  // neither, and they are most of what a call costs to remember); `asked` is, either way.
  void keep_detail(bool keep) { detail_ = keep; }
  void apply(const log::EventView& e);
  // In the order the calls were placed.
  const std::vector<CallRecord>& calls() const { return calls_; }
  const CallRecord* find(std::string_view corr) const;
  // Grouped by requestor, requestors in the order of their first line, each one's calls in
  // the order placed: how a scenario lists them.
  std::vector<const CallRecord*> by_requestor() const;

 private:
  std::vector<CallRecord> calls_;
  bool detail_ = true;
  std::unordered_map<std::string, std::size_t> by_corr_;
  std::unordered_map<std::string, std::vector<std::size_t>> waiting_;  // unanswered calls, by requestor
};

// One PMIX_ALLOC_NEW as it was accounted for: by the scheduler that queued it, or, with no
// scheduler, by the RM that served it from its own pool. What the scheduler could not report
// (it was detached when the session ended, or never came back) is taken from what the RM
// itself logged of the session it instantiated, so that a job that ran is never shown as
// still running, or as ending when a late scheduler heard of it.
struct AllocationAccount {
  std::string corr;
  std::string requestor;
  std::string alloc_id;
  std::uint32_t session = 0;
  bool standalone = false;  // served by the RM itself (alloc.standalone)
  double submitted = 0;
  double started = -1;  // granted; -1: not (or not since its last preemption)
  // Its session reported complete to the scheduler; the RM's session.complete when no scheduler
  // heard it in time (standalone: reclaimed); the controller's death, which ends every session.
  double ended = -1;
  std::uint64_t cpus = 0;
  double time_limit = 0;
  std::string node_list;
  std::string resources;                             // the slots held, as Batsim resource ids (empty: not logged)
  Status status = Status::Success;                   // how the RM answered its instantiation, or why it left the queue
  std::vector<std::pair<std::string, Status>> jobs;  // from PMIX_SESSION_COMPLETE (else the RM's job.end)
  bool lost_with_rm = false;  // its session was still held when the controller died: the DVM went with it
  std::int64_t priority = 0;
  std::uint32_t preemptions = 0;
  double lost_cpu_s = 0;
};

class AllocationLedger {
 public:
  static log::KindSet kinds();
  // Without detail, a scheduler's account keeps neither its requestor nor its node list (a
  // replay's outputs read its resources); a standalone RM's keeps its node list, its only record
  // of its resources.
  void keep_detail(bool keep) { detail_ = keep; }
  // An event of kinds(); those neither the scheduler's accounting nor a standalone RM's are ignored.
  void apply(const log::EventView& e);
  const std::vector<AllocationAccount>& accounts() const { return accounts_; }
  const AllocationAccount* find(std::string_view corr) const;

 private:
  AllocationAccount* by_alloc(std::string_view alloc);
  AllocationAccount* by_corr(std::string_view corr);
  void scheduler_event(const log::EventView& e);
  void controller_event(const log::EventView& e);
  void granted(const log::EventView& e);
  void requeued(const log::EventView& e);
  void completed(const log::EventView& e);
  void instantiated(const log::EventView& e);
  void standalone_instantiated(const log::EventView& e);
  void job_ended(const log::EventView& e);
  AllocationAccount& add(AllocationAccount&& a);
  void ended_by_scheduler(std::size_t i, double t);
  // What the controller logged of a session the scheduler granted.
  void rm_instantiated(const log::EventView& e);
  void rm_refused(const log::EventView& e);
  void rm_complete(const log::EventView& e);
  void rm_ended(std::size_t i, double t);
  void scheduler_lost();
  void rm_down(double t);

  // The RM's own view of an account's session, beside the scheduler's.
  struct RmView {
    std::uint32_t session = 0;     // the session the controller instantiated for it; 0: none (yet)
    double ended = -1;             // the controller's session.complete
    bool held = false;             // no scheduler heard of that end in time: it came late, if at all
    bool scheduler_ended = false;  // the scheduler reported its end (session.completed, failed instantiation)
    std::vector<std::pair<std::string, Status>> jobs;  // job.end, in the order the jobs ended
  };

  std::vector<AllocationAccount> accounts_;
  bool detail_ = true;
  std::vector<RmView> rm_;  // one per account, in the same order
  std::unordered_map<std::string, std::size_t> corr_index_;
  std::unordered_map<std::string, std::size_t> alloc_index_;
  std::unordered_map<std::uint32_t, std::size_t> standalone_sessions_;  // by session id
  std::unordered_map<std::uint32_t, std::size_t> rm_sessions_;          // granted, still held by the RM
  std::vector<std::size_t> awaiting_;  // ended at the RM, the scheduler's session.completed still to come
  bool rm_has_scheduler_ = false;      // as the controller logged it (scheduler.attached / .detached)
};

}  // namespace pmixflow
