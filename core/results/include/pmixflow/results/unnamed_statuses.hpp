// The statuses a run met that PMIx gives no name to, read from its log alone: each is written
// as the named unknown ("PMIX_STATUS_UNKNOWN(-4242)", vocab.hpp) and counted here, so that a
// code no one can look up is said on the terminal and in summary.json, never passed over.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "pmixflow/log/record.hpp"
#include "pmixflow/log/sink.hpp"

namespace pmixflow {

class UnnamedStatuses {
 public:
  // Every kind with a status field but send and recv: a message's status is also the status of
  // the event that took it in (an answer, a job's end), and would count two or three times.
  static log::KindSet kinds();
  void apply(const log::EventView& e);
  // The named unknown -> how many events carried it.
  const std::map<std::string, std::size_t>& counts() const { return counts_; }
  std::size_t total() const;

 private:
  std::map<std::string, std::size_t> counts_;
};

}  // namespace pmixflow
