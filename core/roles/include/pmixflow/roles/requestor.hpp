// Anything that asks for resources: a submit tool, an application process, a launcher. It
// places its calls at their planned times through its entry point (a daemon, the controller,
// or the scheduler itself) and logs each call and its answer: what it asked and what it got
// is in the event log, where the run's outputs are computed from.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "pmixflow/proto/env.hpp"
#include "pmixflow/roles/call_source.hpp"

namespace pmixflow {

class Requestor final : public Role {
 public:
  Requestor(Env& env, Proc identity, std::vector<PlannedCall> plan);
  Requestor(Env& env, Proc identity, std::unique_ptr<CallSource> calls);

  void start() override;
  void handle(Address from, Message&& msg) override;

  const Proc& identity() const { return identity_; }
  // Calls placed and not answered yet.
  std::size_t outstanding() const { return outstanding_.size(); }

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
  std::unique_ptr<CallSource> calls_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Outstanding> outstanding_;
};

std::string describe_call(const Call& call);  // "PMIX_ALLOC_NEW", "PMIX_SESSION_TERMINATE"

}  // namespace pmixflow
