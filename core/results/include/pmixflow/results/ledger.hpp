// The two accounts a run's outcomes are read from, both rebuilt from the log: what each
// requestor asked and was answered (its `call` and `answer` events), and how the scheduler
// accounted for each PMIX_ALLOC_NEW it queued (alloc.queued ... session.completed).
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

// One call of a requestor: what it asked, and its answer.
struct CallRecord {
  std::string corr;
  std::string requestor;  // the party that called: "requestor:alice"
  std::string what;
  std::string via;
  std::string directive;  // of an allocation request; empty otherwise
  std::string info;       // the call's PMIx info as JSON (allocation requests)
  std::size_t line = 0;
  std::optional<Status> expect;
  std::optional<double> recorded_wait;
  double sent = 0;
  std::optional<double> answered;
  Status status = Status::Success;  // when answered
  std::string answer_info = "[]";   // the answer's PMIx info as JSON (the first answer's)
  std::size_t answers = 0;          // more than one breaks FLOW.md's promise (invariants.hpp)
  // The requestor exited before any answer reached it: the call was abandoned, not left hanging.
  std::optional<double> caller_gone;
};

class CallLedger {
 public:
  static log::KindSet kinds();
  void apply(const log::EventView& e);
  // In the order the calls were placed.
  const std::vector<CallRecord>& calls() const { return calls_; }
  const CallRecord* find(std::string_view corr) const;
  // Grouped by requestor, requestors in the order of their first line, each one's calls in
  // the order placed: how a scenario lists them.
  std::vector<const CallRecord*> by_requestor() const;

 private:
  std::vector<CallRecord> calls_;
  std::unordered_map<std::string, std::size_t> by_corr_;
  std::unordered_map<std::string, std::vector<std::size_t>> waiting_;  // unanswered calls, by requestor
};

// One PMIX_ALLOC_NEW as it was accounted for: by the scheduler that queued it, or, with no
// scheduler, by the RM that served it from its own pool.
struct AllocationAccount {
  std::string corr;
  std::string requestor;
  std::string alloc_id;
  std::uint32_t session = 0;
  bool standalone = false;  // served by the RM itself (alloc.standalone)
  double submitted = 0;
  double started = -1;  // granted; -1: not (or not since its last preemption)
  double ended = -1;    // its session reported complete (standalone: reclaimed)
  std::uint64_t cpus = 0;
  double time_limit = 0;
  std::string node_list;
  std::string resources;                             // the slots held, as Batsim resource ids (empty: not logged)
  Status status = Status::Success;                   // how the RM answered its instantiation, or why it left the queue
  std::vector<std::pair<std::string, Status>> jobs;  // from PMIX_SESSION_COMPLETE (standalone: job.end)
  std::int64_t priority = 0;
  std::uint32_t preemptions = 0;
  double lost_cpu_s = 0;
};

class AllocationLedger {
 public:
  static log::KindSet kinds();
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

  std::vector<AllocationAccount> accounts_;
  std::unordered_map<std::string, std::size_t> corr_index_;
  std::unordered_map<std::string, std::size_t> alloc_index_;
  std::unordered_map<std::uint32_t, std::size_t> standalone_sessions_;  // by session id
};

}  // namespace pmixflow
