// Anything that asks for resources: a submit tool, an application process, a launcher. It
// places its calls at their planned times through its entry point (a daemon, the controller,
// or the scheduler itself) and logs each call and its answer: what it asked and what it got
// is in the event log, where the run's outputs are computed from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "pmixflow/proto/env.hpp"

namespace pmixflow {

using Call = std::variant<AllocRequest, SessionCtrlRequest, SpawnRequest>;

// What the plan says about a call besides the call itself; the requestor writes it into the
// call's event, so that the log alone tells what was expected of each call.
struct CallNotes {
  std::size_t line = 0;                 // of the scenario or trace file; 0: none
  std::optional<Status> expect;         // the status the scenario expects
  std::optional<double> recorded_wait;  // a replayed job's wait on the traced machine (SWF field 3)
};

struct PlannedCall {
  double at = 0;
  Address via;
  Call call;  // ids are assigned when sent; corr is set by the planner
  CallNotes notes;
};

class Requestor final : public Role {
 public:
  Requestor(Env& env, Proc identity, std::vector<PlannedCall> plan);

  void start() override;
  void handle(Address from, Message&& msg) override;

  const Proc& identity() const { return identity_; }

 private:
  struct Outstanding {
    std::string corr;
    std::string what;  // directive or session operation, for people reading the log
    double sent = 0;
    Address via;
  };
  void arm_next();
  void place(PlannedCall& planned);
  void log_call(const PlannedCall& planned, std::string_view what);
  void answer(std::uint64_t id, Status status, InfoList info);
  void fail_via(Address via, Status status);

  Env& env_;
  Proc identity_;
  std::vector<PlannedCall> plan_;
  std::size_t next_call_ = 0;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Outstanding> outstanding_;
};

std::string describe_call(const Call& call);  // "PMIX_ALLOC_NEW", "PMIX_SESSION_TERMINATE"

}  // namespace pmixflow
