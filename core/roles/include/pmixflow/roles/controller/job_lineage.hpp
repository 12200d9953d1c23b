// Which job spawned which: a process of a job calling PMIx_Spawn makes its job the new job's
// parent, as PRRTE links a spawned job into its parent's children. What a reservation
// inherited CHILD waits for (docs/prrte-conformance.md R55). Only jobs spawned by a job are
// recorded, so a trace replay, whose jobs a tool submits, keeps nothing here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pmixflow {

class JobLineage {
 public:
  void spawned(const std::string& child, const std::string& parent) { parent_[child] = parent; }
  // `nspace` and the jobs that spawned it, nearest first.
  std::vector<std::string> ancestry(const std::string& nspace) const;

 private:
  std::unordered_map<std::string, std::string> parent_;
};

// A session's jobs are named `job-<session>.<n>`, n counting from 1; the general pool's are not.
std::string session_job_nspace(std::uint32_t session, std::uint32_t n);
// The session a job's namespace says it ran in; 0 for the general pool.
std::uint32_t session_of_nspace(std::string_view nspace);

}  // namespace pmixflow
