// Not an example to follow: two deliberately broken policy libraries, which the test suite
// (tests/sim/plugin_test.cpp) checks pmixflow refuses with a clear message.
//   PMIXFLOW_BROKEN_WRONG_API: built against a "future" policy API version.
//   PMIXFLOW_BROKEN_NO_CREATE: the right version, but no pmixflow_policy_create entry point.
//   PMIXFLOW_BROKEN_THROWS: loads, then throws the first time it is asked to decide.
//   PMIXFLOW_BROKEN_BLOCKS: loads, then never returns the first time it is asked to decide
//     (it suspends the simulated scheduler for good): the simulation stops progressing with
//     work outstanding, which pmixflow must report as such (exit 1), not hang or call a success.
#include <stdexcept>

#if defined(PMIXFLOW_BROKEN_BLOCKS)
#include <simgrid/s4u/Actor.hpp>
#endif

#include "pmixflow/policies/plugin.hpp"

#if defined(PMIXFLOW_BROKEN_WRONG_API)

namespace {
class Idle final : public pmixflow::Policy {
 public:
  std::string_view name() const override { return "broken"; }
  std::optional<std::uint64_t> next(const pmixflow::SchedulingView&) override { return std::nullopt; }
};
}  // namespace

extern "C" int pmixflow_policy_api_version(void) { return pmixflow::kPolicyApiVersion + 1; }
extern "C" pmixflow::Policy* pmixflow_policy_create(void) { return new Idle(); }
extern "C" void pmixflow_policy_destroy(pmixflow::Policy* policy) { delete policy; }

#elif defined(PMIXFLOW_BROKEN_NO_CREATE)

extern "C" int pmixflow_policy_api_version(void) { return pmixflow::kPolicyApiVersion; }
extern "C" void pmixflow_policy_destroy(pmixflow::Policy* policy) { delete policy; }

#elif defined(PMIXFLOW_BROKEN_THROWS)

namespace {
class Throws final : public pmixflow::Policy {
 public:
  std::string_view name() const override { return "throws"; }
  std::optional<std::uint64_t> next(const pmixflow::SchedulingView&) override {
    throw std::out_of_range("vector::_M_range_check: __n (which is 7) >= this->size() (which is 0)");
  }
};
}  // namespace

extern "C" int pmixflow_policy_api_version(void) { return pmixflow::kPolicyApiVersion; }
extern "C" pmixflow::Policy* pmixflow_policy_create(void) { return new Throws(); }
extern "C" void pmixflow_policy_destroy(pmixflow::Policy* policy) { delete policy; }

#elif defined(PMIXFLOW_BROKEN_BLOCKS)

namespace {
class Blocks final : public pmixflow::Policy {
 public:
  std::string_view name() const override { return "blocks"; }
  std::optional<std::uint64_t> next(const pmixflow::SchedulingView&) override {
    simgrid::s4u::this_actor::suspend();  // nobody resumes it
    return std::nullopt;
  }
};
}  // namespace

extern "C" int pmixflow_policy_api_version(void) { return pmixflow::kPolicyApiVersion; }
extern "C" pmixflow::Policy* pmixflow_policy_create(void) { return new Blocks(); }
extern "C" void pmixflow_policy_destroy(pmixflow::Policy* policy) { delete policy; }

#else
#error "define PMIXFLOW_BROKEN_WRONG_API, PMIXFLOW_BROKEN_NO_CREATE, PMIXFLOW_BROKEN_THROWS or PMIXFLOW_BROKEN_BLOCKS"
#endif
