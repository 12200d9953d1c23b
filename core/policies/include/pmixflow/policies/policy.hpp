// The scheduling policy interface: the scheduler role owns the queue, the resources and the
// flow; a policy only says which queued request to start next. Built-in policies and
// policies loaded from a shared library implement the same interface.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow {

// 2: Policy::preempt, RunningAllocation::ending.
inline constexpr int kPolicyApiVersion = 2;

struct QueuedRequest {
  std::uint64_t key = 0;     // the scheduler's handle for the request
  double submit_time = 0;    // when the scheduler received it
  std::uint64_t cpus = 0;    // slots asked for (whole nodes count all their slots)
  std::uint32_t nodes = 0;   // whole nodes asked for (PMIX_ALLOC_NUM_NODES), 0 for a cpu count
  double estimate = 0;       // requested time limit in seconds (0: none given)
  int priority = 0;          // from the request's PMIX_ALLOC_QUEUE; higher goes first
  bool preemptible = false;  // asked with PMIX_ALLOC_PREEMPTIBLE
};

struct RunningAllocation {
  std::uint64_t key = 0;
  std::uint64_t cpus = 0;
  double start_time = 0;
  double expected_end = 0;  // start + time limit; +inf without a limit; now while ending
  int priority = 0;
  bool preemptible = false;  // may be named by Policy::preempt now (granted PMIX_ALLOC_PREEMPTIBLE,
                             // running, and not already ending)
  bool ending = false;       // being terminated: its cpus come back shortly
};

// What a policy may look at when deciding. `fits_now` knows the node layout (whole nodes,
// exclusive mode), which a bare slot count cannot tell.
class SchedulingView {
 public:
  virtual ~SchedulingView() = default;
  virtual double now() const = 0;
  virtual std::uint64_t total_cpus() const = 0;
  virtual std::uint64_t free_cpus() const = 0;
  virtual bool fits_now(const QueuedRequest& r) const = 0;
  virtual std::span<const QueuedRequest> queue() const = 0;  // in queue order
  virtual std::span<const RunningAllocation> running() const = 0;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;
  // The key of the next request to start now, or nothing. The scheduler starts it and asks
  // again, so the view always reflects the starts already made.
  virtual std::optional<std::uint64_t> next(const SchedulingView& view) = 0;
  // Running allocations to take back now so that a waiting request can start: the scheduler
  // terminates their sessions through PMIx_Session_control (preemption that frees resources
  // is a TERMINATE, FLOW.md section 4) and requeues their requests with their original submit
  // time. Asked once next() has nothing more to start; only allocations the view marks
  // preemptible may be named, others are ignored. Most policies never preempt.
  // Defined here, not out of line: a class whose virtuals are all inline has no key function,
  // so its vtable and type information are in every library that uses it, plug-ins included.
  virtual std::vector<std::uint64_t> preempt(const SchedulingView& /*view*/) { return {}; }
};

// "fcfs", "easy", "conservative", "priority-preempt"; nullptr for an unknown name.
std::unique_ptr<Policy> make_builtin_policy(std::string_view name);
std::string builtin_policy_names();  // "fcfs, easy, conservative, priority-preempt", for messages
// "unknown policy 'eazy' (did you mean easy? built in: ...)": every refusal of a policy's name.
std::string unknown_policy(std::string_view name);

// A built-in policy by name, or one loaded from a shared library when `name_or_path` names
// a file (contains '/' or ends in ".so"). Throws InputError for an unknown name or a library
// that cannot be loaded or does not speak kPolicyApiVersion.
std::unique_ptr<Policy> make_policy(std::string_view name_or_path);

}  // namespace pmixflow
