// Checks a run's assertions against its log as it is read: each at its moment (once every
// event up to its time is in, or right after the answer it waits for), against the state the
// log has built by then; the rest when the log ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/results/assertion.hpp"
#include "pmixflow/results/run_state.hpp"

namespace pmixflow {

class AssertionChecker {
 public:
  // `compute_nodes` resolves `+nK` node names.
  AssertionChecker(std::vector<Assertion> assertions, std::vector<std::string> compute_nodes);

  bool empty() const { return pending_.empty() && checked_ == 0; }
  void apply(const log::EventView& e);
  // The log has ended (or is cut): what is still waiting is checked against the last state.
  void finish();

  std::size_t checked() const { return checked_; }
  // One object per failure: line, assert, expected, saw.
  const nlohmann::json& failures() const { return failures_; }

 private:
  struct Pending {
    Assertion a;
    std::uint64_t counted = 0;  // Count: matching events so far
  };
  void count(const log::EventView& e);
  void check(Pending& p);
  void check_session(const Assertion& a);
  void check_node(const Assertion& a);
  void check_job(const Assertion& a);
  void fail(const Assertion& a, const std::string& property, const std::string& expected, const std::string& saw);

  std::vector<Pending> pending_;
  std::vector<std::string> compute_nodes_;
  RunState state_;
  std::size_t checked_ = 0;
  nlohmann::json failures_ = nlohmann::json::array();
};

}  // namespace pmixflow
