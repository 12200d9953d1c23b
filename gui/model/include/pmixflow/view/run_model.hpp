// The replay model: a run's event log in, the state at any moment T out. It reads the log once
// (through core's streaming reader), keeps one small row per event, the records of sessions,
// jobs, requests and messages, and a copy of the machine every few thousand changes, so that
// the state at any T is one copy and a short replay away. It knows nothing of rendering: the
// widgets read it, the tests check it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pmixflow/log/header.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/view/machine.hpp"
#include "pmixflow/view/records.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::view {

// A quantity that changes by steps: its value from `t[i]` on is `v[i]`.
struct StepSeries {
  std::vector<double> t;
  std::vector<double> v;
  double at(double time) const;
  double max() const;
};

// Looks names up by view: reading a log asks for a party, a node or a request at almost every
// line, and building a string for each question was most of the time it took.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameIndex = std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>>;

struct OpenOptions {
  bool follow = false;  // the log is still being written: read_more() reads what follows
  // Machine changes between two copies of the machine: enough that the copies stay a small part
  // of the memory, few enough that replaying from the last copy stays far under a frame.
  std::size_t changes_per_copy = 4096;
};

class RunModel {
 public:
  // `path` is a run directory (its events.jsonl is read) or a log file. Throws InputError when
  // it is not a log at all (no file, a foreign header); a log cut or malformed further on is
  // read up to the bad line, which problem() then names.
  explicit RunModel(const std::filesystem::path& path, OpenOptions options = {});
  ~RunModel();
  RunModel(const RunModel&) = delete;
  RunModel& operator=(const RunModel&) = delete;

  // Following: reads what has been written since; how many events it added.
  std::size_t read_more();
  bool following() const { return options_.follow && !complete() && !problem(); }
  bool complete() const;
  const std::optional<InputError>& problem() const;
  const std::string& log_path() const { return log_path_; }
  const log::LogHeader& header() const;

  std::span<const EventRow> events() const { return events_; }
  const std::vector<Party>& parties() const { return parties_; }
  const std::vector<NodeRecord>& nodes() const { return nodes_; }
  const std::vector<Group>& groups() const { return groups_; }
  const std::vector<SessionRecord>& sessions() const { return sessions_; }
  const std::vector<JobRecord>& jobs() const { return jobs_; }
  const std::vector<RequestRecord>& requests() const { return requests_; }
  const std::vector<Message>& messages() const { return messages_; }
  const std::vector<Execution>& executions() const { return executions_; }
  std::uint64_t total_slots() const { return total_slots_; }
  std::size_t copies() const { return snapshots_.size(); }  // of the machine, kept for seeking

  std::optional<std::uint32_t> find_node(std::string_view name) const;
  std::optional<std::uint32_t> find_session(std::uint32_t id) const;
  std::optional<std::uint32_t> find_request(std::string_view corr) const;
  std::optional<std::uint32_t> find_party(std::string_view name) const;

  double start_time() const;
  double end_time() const;
  // How many events happened at or before T (the state at T is after them).
  std::size_t events_until(double t) const;
  // The machine after the first `count` events.
  MachineState machine_after(std::size_t count) const;
  MachineState machine_at(double t) const { return machine_after(events_until(t)); }

  // Slots held by granted allocations, and requests waiting in the scheduler's queue.
  const StepSeries& used_slots() const { return used_; }
  const StepSeries& queue_length() const { return queued_; }

  // The line of event `i` as the log has it (read again from the file).
  std::string line_text(std::size_t i) const;

 private:
  class Builder;
  friend class Builder;
  void ingest();
  void take_snapshot_if_due();

  OpenOptions options_;
  std::string log_path_;
  std::unique_ptr<log::LogReader> reader_;
  std::unique_ptr<Builder> builder_;

  std::vector<EventRow> events_;
  std::vector<double> time_index_;  // running maximum of the times: what events_until() searches
  std::vector<Party> parties_;
  std::vector<NodeRecord> nodes_;
  std::vector<Group> groups_;
  std::vector<SessionRecord> sessions_;
  std::vector<JobRecord> jobs_;
  std::vector<RequestRecord> requests_;
  std::vector<Message> messages_;
  std::vector<Execution> executions_;
  std::vector<StateOp> ops_;
  struct Snapshot {
    std::size_t ops = 0;  // how many ops it has applied
    MachineState machine;
  };
  std::vector<Snapshot> snapshots_;
  MachineState live_;  // after every op so far: where the next snapshot is copied from
  StepSeries used_, queued_;
  std::uint64_t total_slots_ = 0;
  NameIndex node_index_, party_index_, request_index_;
  std::unordered_map<std::uint32_t, std::uint32_t> session_index_;
};

}  // namespace pmixflow::view
