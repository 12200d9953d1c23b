#include "pmixflow/roles/controller/job_lineage.hpp"

#include <charconv>

namespace pmixflow {

std::vector<std::string> JobLineage::ancestry(const std::string& nspace) const {
  std::vector<std::string> line{nspace};
  // A namespace is never reused, so the chain ends; the bound is against a corrupted map only.
  for (auto it = parent_.find(nspace); it != parent_.end() && line.size() <= parent_.size();
       it = parent_.find(it->second))
    line.push_back(it->second);
  return line;
}

namespace {
constexpr std::string_view kPrefix = "job-";
}

std::string session_job_nspace(std::uint32_t session, std::uint32_t n) {
  return std::string(kPrefix) + std::to_string(session) + "." + std::to_string(n);
}

std::uint32_t session_of_nspace(std::string_view nspace) {
  if (!nspace.starts_with(kPrefix)) return 0;
  nspace.remove_prefix(kPrefix.size());
  std::uint32_t id = 0;
  const auto [end, ec] = std::from_chars(nspace.data(), nspace.data() + nspace.size(), id);
  return ec == std::errc() && end != nspace.data() && end < nspace.data() + nspace.size() && *end == '.' ? id : 0;
}

}  // namespace pmixflow
