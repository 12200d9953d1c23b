// Loading a scheduling policy from a shared library (the contract: plugin.hpp).
#include <dlfcn.h>

#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/policies/policy.hpp"
#include "pmixflow/policies/plugin.hpp"

namespace pmixflow {
namespace {

struct LibraryCloser {
  void operator()(void* handle) const noexcept { ::dlclose(handle); }
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

// Destroys a loaded policy through its own library's pmixflow_policy_destroy.
struct PluginDeleter {
  PolicyDestroyFn destroy = nullptr;
  void operator()(Policy* policy) const noexcept { destroy(policy); }
};
using PluginPolicy = std::unique_ptr<Policy, PluginDeleter>;

// What make_policy() returns for a library: owns the library and the policy it made, forwards
// to the policy, and on destruction destroys the policy before it unloads the library (the
// members are destroyed in reverse order). Its own code and vtable live in pmixflow, so
// deleting it never runs code from an unloaded library.
class LoadedPolicy final : public Policy {
 public:
  LoadedPolicy(LibraryHandle library, PluginPolicy policy)
      : library_(std::move(library)), policy_(std::move(policy)), name_(policy_->name()) {}

  std::string_view name() const override { return name_; }
  std::optional<std::uint64_t> next(const SchedulingView& view) override { return policy_->next(view); }

 private:
  LibraryHandle library_;  // declared first: closed last
  PluginPolicy policy_;
  std::string name_;  // a copy, so it never points into the library
};

std::string last_dl_error() {
  const char* e = ::dlerror();
  return e ? std::string(e) : std::string("unknown error");
}

template <typename Fn>
Fn find_entry(void* handle, const char* symbol, const std::string& path) {
  ::dlerror();  // clear any earlier error: a symbol may legitimately have the value null
  void* address = ::dlsym(handle, symbol);
  if (const char* e = ::dlerror())
    throw InputError(path, 0, "--policy",
                     std::string("not a pmixflow policy library: no entry point '") + symbol + "' (" + e +
                         "); see plugin.hpp and examples/policies/");
  if (!address) throw InputError(path, 0, "--policy", std::string("entry point '") + symbol + "' is null");
  return reinterpret_cast<Fn>(address);  // POSIX: a dlsym result converts to a function pointer
}

}  // namespace

std::unique_ptr<Policy> load_policy_library(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, 0, "--policy", "policy library not found");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "--policy", "is a directory, not a policy library");

  // dlopen() looks a name without '/' up in the library search path, not the current directory.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  ::dlerror();
  LibraryHandle library(::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!library) throw InputError(path, 0, "--policy", "cannot load the policy library: " + last_dl_error());

  // The version first: a library of another version may not even have the same entry points.
  const auto api_version = find_entry<PolicyApiVersionFn>(library.get(), kPolicyApiVersionSymbol, path);
  const int version = api_version();
  if (version != kPolicyApiVersion)
    throw InputError(path, 0, "--policy",
                     "the library implements policy API version " + std::to_string(version) +
                         "; this pmixflow speaks version " + std::to_string(kPolicyApiVersion) +
                         " (rebuild the library against this pmixflow's policy.hpp)");
  const auto create = find_entry<PolicyCreateFn>(library.get(), kPolicyCreateSymbol, path);
  const auto destroy = find_entry<PolicyDestroyFn>(library.get(), kPolicyDestroySymbol, path);

  PluginPolicy policy(nullptr, PluginDeleter{destroy});
  try {
    policy.reset(create());
  } catch (const std::exception& e) {
    throw InputError(path, 0, "--policy", std::string("the policy library could not create its policy: ") + e.what());
  } catch (...) {
    throw InputError(path, 0, "--policy", "the policy library could not create its policy (unknown exception)");
  }
  if (!policy)
    throw InputError(path, 0, "--policy",
                     "the policy library created no policy (pmixflow_policy_create returned null)");
  return std::make_unique<LoadedPolicy>(std::move(library), std::move(policy));
}

}  // namespace pmixflow
