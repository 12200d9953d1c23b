// What holds at a moment of a run, as its log says: each node's daemon and use and the
// sessions holding it, the sessions that exist, the jobs and where their ranks went. Folded
// from the events in order, so the state after any event is the run's at that instant - what
// a scenario's assertions are checked against, and what a viewer draws.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/log/record.hpp"
#include "pmixflow/log/sink.hpp"

namespace pmixflow {

struct LoggedNode {
  std::string daemon = "none";  // none, starting, up, failed
  std::string use = "free";     // free, withheld, busy
  std::vector<std::uint32_t> sessions;
};

struct LoggedSession {
  std::string alloc;
  std::string corr;  // the request it was granted for
  bool exists = true;
};

struct LoggedJob {
  std::string corr;
  std::uint32_t session = 0;
  std::string ranks;  // `n01:0-3,n02:4-7`
  bool ended = false;
};

class RunState {
 public:
  static log::KindSet kinds();
  void apply(const log::EventView& e);

  const std::map<std::string, LoggedNode>& nodes() const { return nodes_; }
  const LoggedNode* node(const std::string& name) const;
  const LoggedSession* session(std::uint32_t id) const;
  const LoggedJob* job(const std::string& nspace) const;
  // The last session, and the last job, a call's request was given; none yet.
  std::optional<std::uint32_t> session_of(const std::string& corr) const;
  std::optional<std::string> job_of(const std::string& corr) const;
  // The nodes holding slots of the session, sorted.
  std::vector<std::string> nodes_of(std::uint32_t session) const;

 private:
  std::map<std::string, LoggedNode> nodes_;
  std::map<std::uint32_t, LoggedSession> sessions_;
  std::map<std::string, LoggedJob> jobs_;
  std::map<std::string, std::uint32_t> session_by_corr_;
  std::map<std::string, std::string> job_by_corr_;
};

}  // namespace pmixflow
