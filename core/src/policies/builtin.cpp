#include "pmixflow/policies/fcfs.hpp"
#include "pmixflow/policy.hpp"

namespace pmixflow {

std::unique_ptr<Policy> make_builtin_policy(std::string_view name) {
  if (name == "fcfs") return std::make_unique<FcfsPolicy>();
  return nullptr;
}

}  // namespace pmixflow
