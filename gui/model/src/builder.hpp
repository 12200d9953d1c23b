// Internal: turns each event the reader delivers into the model's rows, records and state
// changes. One call per event, in log order; what it needs to pair things up (sends waiting
// for their receipt, allocations waiting for their end) it keeps here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pmixflow/log/record.hpp"
#include "pmixflow/results/run_info.hpp"
#include "pmixflow/view/run_model.hpp"
#include "pmixflow/vocab/string_hash.hpp"

namespace pmixflow::view {

// A message in flight, as its send and its receipt both name it.
struct MessageKey {
  std::uint32_t from, to, kind, request;
  bool operator==(const MessageKey&) const = default;
};
struct MessageKeyHash {
  std::size_t operator()(const MessageKey& k) const {
    std::uint64_t h = (std::uint64_t{k.from} << 32 | k.to) * 0x9E3779B97F4A7C15ull;
    h ^= (std::uint64_t{k.kind} << 32 | k.request) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

class RunModel::Builder {
 public:
  Builder(RunModel& m, RunInfo info);
  // `send_line`: the line of the send a short recv was rebuilt from (LogReader::send_line()).
  void add(const log::EventView& e, std::uint64_t offset, std::uint64_t line,
           std::optional<std::uint64_t> send_line = std::nullopt);

 private:
  std::uint32_t party(std::string_view name);
  std::uint32_t node(std::string_view name);
  std::uint32_t request(const log::EventView& e);
  SessionRecord* session(std::uint32_t id);
  Status worst_job_status(const log::EventView& completed);
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
  std::uint32_t kind_id(std::string_view msg);
  std::uint32_t row_of_line(std::optional<std::uint64_t> line) const;
  // Sends not yet received, oldest first: nearly always one per key.
  std::unordered_map<MessageKey, std::vector<std::uint32_t>, MessageKeyHash> unreceived_;
  NameIndex kinds_;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> open_execution_;  // by allocation id
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>
      alloc_session_;                                         // allocation id -> session id
  std::unordered_map<std::string, std::uint32_t> job_index_;  // by nspace
};

}  // namespace pmixflow::view
