// The policy plug-in contract: how a shared library hands pmixflow a scheduling policy.
//
// A policy library implements pmixflow::Policy (policy.hpp) - the very interface the built-in
// policies "fcfs" and "easy" implement - and exports three entry points with C linkage:
//
//   int               pmixflow_policy_api_version(void);  // must return pmixflow::kPolicyApiVersion
//   pmixflow::Policy* pmixflow_policy_create(void);       // a new policy, owned by the caller
//   void              pmixflow_policy_destroy(pmixflow::Policy*);  // deletes what create made
//
// PMIXFLOW_EXPORT_POLICY(ClassName) defines all three for a class derived from
// pmixflow::Policy with a default constructor; write it once, at global scope, in one source
// file of the library:
//
//   #include "pmixflow/policies/plugin.hpp"
//   class MyPolicy final : public pmixflow::Policy { ... };
//   PMIXFLOW_EXPORT_POLICY(MyPolicy);
//
// and run it with `pmixflow sim --policy ./libmy_policy.so ...`. examples/policies/ holds a
// complete one with its build and a README.
//
// Why the entry points have C linkage: pmixflow finds them by name with dlsym(). A C name is
// the plain identifier; a C++ name is mangled (and the mangling of a pointer-to-class return
// type is compiler-specific), so only C names can be looked up reliably.
//
// Why the library must be built with the same compiler, standard library and C++ standard as
// pmixflow: past the three entry points, C++ crosses the boundary - the Policy object and its
// vtable, the SchedulingView pmixflow passes in, std::span, std::optional, std::string_view,
// and exceptions. Their layout is the C++ ABI of the toolchain, which the C entry points do not
// make portable. (On Linux, any g++ and clang++ against the same libstdc++ agree.)
//
// Ownership and lifetime: pmixflow calls create once per policy it needs, destroys the policy
// with pmixflow_policy_destroy from the same library (the library's own operator delete), and
// unloads the library (dlclose) right after. Nothing the library returns - name()'s string
// included - may be used once its policy is destroyed; static state in the library lives as
// long as one loading of it. A constructor may throw; pmixflow reports the exception's message.
//
// Versioning: pmixflow refuses a library whose pmixflow_policy_api_version() differs from its
// own kPolicyApiVersion, naming both. Whoever changes policy.hpp in any way that changes the
// ABI - a member of QueuedRequest, RunningAllocation or SchedulingView, a virtual function of
// Policy, their order - must bump kPolicyApiVersion there, so that libraries built against the
// old header are refused instead of misreading memory. Rebuilding a library against the new
// header is all it takes to follow.
#pragma once

#include <type_traits>

#include "pmixflow/policies/policy.hpp"

// The entry points stay visible even when a library is built with -fvisibility=hidden.
#define PMIXFLOW_POLICY_ENTRY __attribute__((visibility("default")))

extern "C" {
PMIXFLOW_POLICY_ENTRY int pmixflow_policy_api_version(void);
PMIXFLOW_POLICY_ENTRY pmixflow::Policy* pmixflow_policy_create(void);
PMIXFLOW_POLICY_ENTRY void pmixflow_policy_destroy(pmixflow::Policy* policy);
}

namespace pmixflow {

// The names pmixflow looks up, and their types.
inline constexpr const char* kPolicyApiVersionSymbol = "pmixflow_policy_api_version";
inline constexpr const char* kPolicyCreateSymbol = "pmixflow_policy_create";
inline constexpr const char* kPolicyDestroySymbol = "pmixflow_policy_destroy";
using PolicyApiVersionFn = int (*)();
using PolicyCreateFn = Policy* (*)();
using PolicyDestroyFn = void (*)(Policy*);

}  // namespace pmixflow

// Defines the three entry points for ClassName (a default-constructible class derived from
// pmixflow::Policy; qualify it if it is in a namespace). Use at global scope, followed by ';'.
#define PMIXFLOW_EXPORT_POLICY(ClassName)                                                                          \
  static_assert(std::is_base_of_v<::pmixflow::Policy, ClassName>,                                                  \
                "PMIXFLOW_EXPORT_POLICY: " #ClassName " must derive from pmixflow::Policy");                       \
  static_assert(std::is_default_constructible_v<ClassName>,                                                        \
                "PMIXFLOW_EXPORT_POLICY: " #ClassName " needs a default constructor");                             \
  extern "C" PMIXFLOW_POLICY_ENTRY int pmixflow_policy_api_version(void) { return ::pmixflow::kPolicyApiVersion; } \
  extern "C" PMIXFLOW_POLICY_ENTRY ::pmixflow::Policy* pmixflow_policy_create(void) { return new ClassName(); }    \
  extern "C" PMIXFLOW_POLICY_ENTRY void pmixflow_policy_destroy(::pmixflow::Policy* policy) { delete policy; }     \
  static_assert(true, "")
