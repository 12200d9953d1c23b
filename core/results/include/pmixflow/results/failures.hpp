// What node failures cost a run, read from its log alone: how many nodes failed and were
// repaired (node.fail, node.return), which jobs a failure killed (job.end with
// PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT, the status a job gets when a node or daemon it ran on is
// lost) and the work they lost. Kept apart from preemption's lost work (ledger.hpp), which is
// the scheduler's choice; this is the machine's.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "pmixflow/log/record.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/vocab/string_hash.hpp"

namespace pmixflow {

struct FailureFigures {
  std::size_t node_failures = 0;
  std::size_t node_repairs = 0;
  std::size_t jobs_killed = 0;  // jobs that ended PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT
  // Each killed job's ranks (its slots) x how long it had run: from its job.start to its
  // job.end (none for a job killed before all its processes started).
  double lost_cpu_s = 0;
};

class FailureLedger {
 public:
  static log::KindSet kinds();
  void apply(const log::EventView& e);
  const FailureFigures& figures() const { return figures_; }

 private:
  struct Running {
    std::uint64_t ranks = 0;
    double started = -1;  // -1: not every process has started
  };
  std::unordered_map<std::string, Running, StringHash, std::equal_to<>> jobs_;  // by nspace, from launch to end
  FailureFigures figures_;
};

// The ranks a job.launch's rank_map places ("n01:0-3,n02:4-7" is 8); 0 for a map it cannot read.
std::uint64_t rank_count(std::string_view rank_map);

}  // namespace pmixflow
