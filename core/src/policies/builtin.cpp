#include "pmixflow/policies/easy.hpp"
#include "pmixflow/policies/fcfs.hpp"
#include "pmixflow/policy.hpp"

namespace pmixflow {

std::unique_ptr<Policy> make_builtin_policy(std::string_view name) {
  if (name == "fcfs") return std::make_unique<FcfsPolicy>();
  if (name == "easy") return std::make_unique<EasyPolicy>();
  return nullptr;
}

std::string builtin_policy_names() { return "fcfs, easy"; }

}  // namespace pmixflow
