// The scheduler's calls to the RM (PMIx_Session_control) still waiting for their answer, and
// what each answer is for: an instantiation, a release, an extension, a preemption, or one
// session of a requestor's session control the scheduler decided and orders session by session.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/proto/env.hpp"
#include "pmixflow/proto/origin.hpp"
#include "pmixflow/roles/scheduler/resource_pool.hpp"

namespace pmixflow {

// HandBack: a TERMINATE of a grant nobody took (its requestor is gone); nobody waits for it.
enum class RmCall : std::uint8_t { Instantiate, Terminate, Extend, OnBehalf, Preempt, HandBack };

struct Outstanding {
  RmCall kind = RmCall::Instantiate;
  std::string alloc_id{};
  Origin origin{};          // the request the call serves
  SlotRuns added{};         // Extend: the slots being added
  double new_limit = 0;     // Extend: the new time limit (0: unchanged)
  std::uint64_t group = 0;  // OnBehalf: the decision it is part of
  bool requeued = false;    // Instantiate of a requeued request: nobody waits for its answer
};

// A requestor's session control, decided here and carried out by the RM session by session.
struct Decision {
  Origin origin;
  std::size_t left = 0;  // sessions still to be answered
  Status status = Status::Success;
};

class RmCalls {
 public:
  explicit RmCalls(Env& env) : env_(env) {}

  // The scheduler's own call handles, one sequence for all its calls.
  std::uint64_t next_id() { return next_++; }
  void call(std::uint32_t session, InfoList directives, const std::string& corr, Outstanding out);
  // The call this answers, no longer outstanding; nothing for an answer to no call of ours.
  std::optional<Outstanding> answered(std::uint64_t id);

  std::uint64_t open_decision(Origin origin, std::size_t sessions);
  // One session of a decision has been answered; the decision, once every one has.
  std::optional<Decision> settle(std::uint64_t group, Status status);

  // The RM has gone: every call still waiting on it, each once, to be taken as failed.
  std::vector<Outstanding> abandon_calls();
  std::vector<Origin> abandon_decisions();
  // A restarted scheduler has lost the calls it had in flight.
  void forget();

 private:
  Env& env_;
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, Outstanding> outstanding_;
  std::map<std::uint64_t, Decision> decisions_;
};

}  // namespace pmixflow
