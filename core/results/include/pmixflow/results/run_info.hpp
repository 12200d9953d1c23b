// What a run was, as its log's header says: the inputs every output repeats (the scenario or
// trace, the machine, the policy) and the facts the outputs are computed with (the machine's
// size, the time origin of a replay, whether it compares with the recording).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/log/header.hpp"
#include "pmixflow/results/assertion.hpp"

namespace pmixflow {

struct RunInfo {
  std::string env;  // "sim", "emul"
  std::uint64_t seed = 0;
  std::string scenario;  // the scenario or trace file, as given
  std::string name;      // the scenario's name (a trace's file name); empty: none
  std::string description;
  std::string platform;     // the machine, for people: "generated star, 8 nodes"
  std::string topology;     // where the node shape came from
  std::string head;         // the head node's name
  std::uint32_t nodes = 0;  // compute nodes
  std::uint32_t slots_per_node = 0;
  std::vector<std::string> compute_nodes;  // their names, in the machine's order
  std::string policy;
  std::string trace;                                      // the SWF file of a replay; empty for a scenario
  std::map<std::string, std::size_t> skipped_by_reason;   // SWF lines a replay left out
  std::map<std::string, std::size_t> repaired_by_reason;  // SWF lines --lenient sorted or renumbered
  // A replay's jobs whose estimate was "missing" or "shorter" than their run time, which
  // options.estimates ("raised" or "recorded") decided for; empty in a log written before it.
  std::map<std::string, std::size_t> estimates_by_case;
  double time_origin = 0;             // the outputs' time 0: a replay's first submission
  bool compare_recorded = false;      // recorded.csv is wanted
  std::optional<double> node_mtbf;    // a replay's random node failures: mean s up
  std::optional<double> node_mttr;    // and mean s down; none: never repaired
  std::string host;                   // --host: the DVM's hosts at start instead of the scenario's; empty: not given
  std::string hostfile;               // --hostfile, the same from a file
  std::vector<Assertion> assertions;  // the scenario's, checked against the log
  // How many calls the requestors are to make (scenario calls, replayed jobs): what the outputs
  // account for, each call once (call_account.hpp). None in a log written before it was kept.
  std::optional<std::uint64_t> calls_planned;
  // The settings that change a run's results beyond the fields above (batch_delay,
  // exclusive_nodes, via_daemon, jitter, ...), as they took effect: what `pmixflow diff` and
  // `pmixflow compare` name when two runs differ in them. A JSON object, written as given.
  nlohmann::json options = nlohmann::json::object();

  std::string workload() const { return name.empty() ? scenario : name; }
  // options.estimates: "raised", "recorded"; empty for a scenario, or a log written before it.
  std::string estimate_rule() const;
  std::uint64_t total_slots() const { return std::uint64_t{nodes} * slots_per_node; }
  // The place of a compute node in the machine's order (Batsim's resource numbering); known
  // for a RunInfo read from a header.
  std::optional<std::uint32_t> node_index(const std::string& name) const;

  // The header's inputs for this run.
  nlohmann::json inputs() const;
  // Throws InputError naming `file`, line 1 and the input at fault.
  static RunInfo from_header(const log::LogHeader& header, const std::string& file);

 private:
  std::unordered_map<std::string, std::uint32_t> index_;
};

}  // namespace pmixflow
