// Internal: turns each event the reader delivers into the model's rows, records and state
// changes. One call per event, in log order; what it needs to pair things up (sends waiting
// for their receipt, allocations waiting for their end) it keeps here.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pmixflow/log/record.hpp"
#include "pmixflow/results/run_info.hpp"
#include "pmixflow/view/run_model.hpp"

namespace pmixflow::view {

class RunModel::Builder {
 public:
  Builder(RunModel& m, RunInfo info);
  void add(const log::EventView& e, std::uint64_t offset, std::uint64_t line);

 private:
  std::uint32_t party(std::string_view name);
  std::uint32_t node(std::string_view name);
  std::uint32_t request(const log::EventView& e);
  SessionRecord* session(std::uint32_t id);
  SessionRecord* session_of_alloc(std::string_view alloc);
  void op(StateOp o);

  void on_message(const log::EventView& e, std::uint32_t index);
  void on_call(const log::EventView& e, std::uint32_t index);
  void on_node(const log::EventView& e, std::uint32_t index);
  void on_session(const log::EventView& e);
  void on_job(const log::EventView& e, std::uint32_t index);
  void on_accounting(const log::EventView& e);
  void open_execution(const log::EventView& e, std::string_view alloc, std::string_view resources);
  void close_execution(std::string_view alloc, double t, bool preempted);
  void step(StepSeries& s, double t, double delta);
  void session_phase(SessionRecord& s, double t, SessionPhase p);
  std::vector<std::uint32_t> nodes_of(std::string_view list, char item_end);

  RunModel& m_;
  RunInfo info_;
  std::unordered_map<std::string, std::deque<std::uint32_t>> unreceived_;  // sends by (from, to, msg, corr)
  std::unordered_map<std::string, std::uint32_t> open_execution_;          // by allocation id
  std::unordered_map<std::string, std::uint32_t> alloc_session_;           // allocation id -> session id
  std::unordered_map<std::string, std::uint32_t> job_index_;               // by nspace
};

}  // namespace pmixflow::view
