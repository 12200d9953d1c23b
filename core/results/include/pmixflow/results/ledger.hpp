// The two accounts a run's outcomes are read from, both rebuilt from the log: what each
// requestor asked and was answered (its `call` and `answer` events), and how the scheduler
// accounted for each PMIX_ALLOC_NEW it queued (alloc.queued ... session.completed), completed
// by what the RM logged of its session when the scheduler was not there to hear it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmixflow/log/record.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/vocab/stable_vector.hpp"
#include "pmixflow/vocab/string_hash.hpp"
#include "pmixflow/vocab/string_pool.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

// What an allocation request asked for, as its info said it (the first of each key).
struct RequestAsked {
  std::string_view profile = "reservation";  // its app's command (kept in `pool`); a reservation has none
  std::uint64_t cpus = 0;
  std::uint64_t nodes = 0;
  std::string_view node_list;  // PMIX_ALLOC_NODE_LIST (kept in `pool`): the nodes it names
};
RequestAsked read_asked(std::string_view info_json, StringPool& pool);  // the log's [[key, value], ...]

// One call of a requestor: what it asked, and its answer. Its views are of strings its ledger
// keeps once for all calls (a handful of names, a million calls).
struct CallRecord {
  std::string corr;
  std::string_view requestor;  // the party that called: "requestor:alice"
  std::string_view what;
  std::string_view via;
  std::string_view directive;  // of an allocation request; empty otherwise
  RequestAsked asked;          // what its info asked for, read as the call is recorded
  std::size_t line = 0;
  std::optional<Status> expect;
  std::optional<double> recorded_wait;
  double sent = 0;
  std::optional<double> answered;
  Status status = Status::Success;  // when answered
  std::size_t answers = 0;          // more than one breaks FLOW.md's promise (invariants.hpp)
  // The requestor exited before any answer reached it: the call was abandoned, not left hanging.
  std::optional<double> caller_gone;

  // The call's PMIx info and its (first) answer's, as JSON; "" and "[]" when not kept.
  std::string_view info() const { return detail ? std::string_view(detail->info) : std::string_view(); }
  std::string_view answer_info() const { return detail ? std::string_view(detail->answer_info) : "[]"; }

  // Kept only with detail, and apart: most of what a call would cost to remember, and a
  // replay's outputs read neither.
  struct Detail {
    std::string info;
    std::string answer_info = "[]";
  };
  std::unique_ptr<Detail> detail;
};

class CallLedger {
 public:
  static log::KindSet kinds();
  // Without detail, each call's info and its answer's are not kept (a replay's outputs read
  // neither, and they are most of what a call costs to remember); `asked` is, either way.
  void keep_detail(bool keep) { detail_ = keep; }
  void apply(const log::EventView& e);
  // In the order the calls were placed. Records stay where they are: the index below views
  // their correlators.
  const StableVector<CallRecord>& calls() const { return calls_; }
  const CallRecord* find(std::string_view corr) const;
  // Grouped by requestor, requestors in the order of their first line, each one's calls in
  // the order placed: how a scenario lists them.
  std::vector<const CallRecord*> by_requestor() const;

 private:
  StringPool names_;  // declared before the records that view it
  StableVector<CallRecord> calls_;
  bool detail_ = true;
  std::unordered_map<std::string_view, std::size_t> by_corr_;               // views of calls_[i].corr
  std::unordered_map<std::string_view, std::vector<std::size_t>> waiting_;  // unanswered calls, by requestor
};

// One PMIX_ALLOC_NEW as it was accounted for: by the scheduler that queued it, or, with no
// scheduler, by the RM that served it itself. What the scheduler could not report
// (it was detached when the session ended, or never came back) is taken from what the RM
// itself logged of the session it instantiated, so that a job that ran is never shown as
// still running, or as ending when a late scheduler heard of it.
struct AllocationAccount {
  std::string corr;
  std::string_view requestor;  // kept once by its ledger
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
  std::vector<std::pair<std::string, Status>> jobs;  // how each ended: the RM's job.end (else PMIX_SESSION_COMPLETE)
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
  const StableVector<AllocationAccount>& accounts() const { return accounts_; }
  const AllocationAccount* find(std::string_view corr) const;

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t index_by_alloc(std::string_view alloc) const;
  std::size_t index_by_corr(std::string_view corr) const;
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

  // Records stay where they are, as the call ledger's do.
  StringPool names_;  // declared before the accounts that view it
  StableVector<AllocationAccount> accounts_;
  bool detail_ = true;
  StableVector<RmView> rm_;                                       // one per account, in the same order
  std::unordered_map<std::string_view, std::size_t> corr_index_;  // views of accounts_[i].corr
  std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> alloc_index_;
  std::unordered_map<std::uint32_t, std::size_t> standalone_sessions_;  // by session id
  std::unordered_map<std::uint32_t, std::size_t> rm_sessions_;          // granted, still held by the RM
  std::vector<std::size_t> awaiting_;  // ended at the RM, the scheduler's session.completed still to come
  bool rm_has_scheduler_ = false;      // as the controller logged it (scheduler.attached / .detached)
};

}  // namespace pmixflow
