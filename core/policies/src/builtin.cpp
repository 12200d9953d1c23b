#include <array>
#include <string>
#include <vector>

#include "pmixflow/policies/conservative.hpp"
#include "pmixflow/policies/easy.hpp"
#include "pmixflow/policies/fcfs.hpp"
#include "pmixflow/policies/policy.hpp"
#include "pmixflow/policies/priority_preempt.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/near_miss.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow {

std::unique_ptr<Policy> make_builtin_policy(std::string_view name) {
  if (name == "fcfs") return std::make_unique<FcfsPolicy>();
  if (name == "easy") return std::make_unique<EasyPolicy>();
  if (name == "conservative") return std::make_unique<ConservativePolicy>();
  if (name == "priority-preempt") return std::make_unique<PriorityPreemptPolicy>();
  return nullptr;
}

namespace {

// In the order messages list them; make_builtin_policy() makes each.
constexpr std::array<std::string_view, 4> kBuiltinPolicies = {"fcfs", "easy", "conservative", "priority-preempt"};

}  // namespace

std::string builtin_policy_names() {
  std::string names;
  for (const std::string_view name : kBuiltinPolicies) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

std::string unknown_policy(std::string_view name) {
  const std::string near = nearest_word(name, {kBuiltinPolicies.begin(), kBuiltinPolicies.end()});
  return "unknown policy " + quote_value(name) + (near.empty() ? " (" : " (did you mean " + near + "? ") +
         "built in: " + builtin_policy_names() + "; or the path of a policy library)";
}

std::unique_ptr<Policy> load_policy_library(const std::string& path);  // policy_loader.cpp

std::unique_ptr<Policy> make_policy(std::string_view name_or_path) {
  const bool is_file = name_or_path.find('/') != std::string_view::npos ||
                       (name_or_path.size() > 3 && name_or_path.substr(name_or_path.size() - 3) == ".so");
  if (is_file) return load_policy_library(std::string(name_or_path));
  if (auto p = make_builtin_policy(name_or_path)) return p;
  throw InputError("--policy", 0, "policy", unknown_policy(name_or_path));
}

}  // namespace pmixflow
