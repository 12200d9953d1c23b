// A sweep's study, as its spec file names it: policies, traces, seeds and `pmixflow sim`
// options, each a list of values, whose cartesian product is the set of runs. Each run has an
// id made of its parameters alone, so that the same spec always names the same directories and a
// second invocation finds what the first one finished.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pmixflow/trace/workload.hpp"

namespace pmixflow::cli {

// One varied or fixed `pmixflow sim` option: `--nodes = 8, 16`.
struct SweepOption {
  std::string name;  // with its dashes: "--nodes"
  std::vector<std::string> values;
};

// A generated workload (pmixflow/trace/workload.hpp): `jobs=200 nodes=8 load=0.9`.
struct SweepWorkload {
  std::string text;  // as written
  WorkloadShape shape;
  bool seeded = false;  // it names its own seed; otherwise each run draws it from the run's seed
};

struct SweepSpec {
  std::filesystem::path file;
  // As written: a policy is a built-in name or a library's path, a trace a path; paths are
  // relative to the spec's directory, so a spec and its traces move together.
  std::vector<std::string> policies;
  std::vector<std::string> traces;
  std::vector<SweepWorkload> workloads;  // beside the traces, or instead of them
  std::vector<std::uint64_t> seeds;
  std::vector<SweepOption> options;
  std::filesystem::path out;  // absolute; empty when the spec names none
};

// One run of the product: its id (its directory's name under runs/), its parameters as
// (column, value) pairs in sweep.csv's order, and the `pmixflow sim` arguments that make it.
struct SweepRun {
  std::string id;
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<std::string> sim_args;      // without --out (nor --trace, for a generated workload)
  std::optional<WorkloadShape> workload;  // generated into the run's directory as workload.swf
};

// Reads the spec; throws InputError naming the file, line and field of what is wrong.
// `sim_options`: the options of `pmixflow sim` ("--nodes"), so that a misspelt one is refused
// with its line, and the nearest named, before any run starts.
SweepSpec read_sweep_spec(const std::filesystem::path& file, const std::vector<std::string>& sim_options);

// Every run of the product, policies outermost and seeds innermost; throws InputError when two
// runs would share an id (two traces with the same file name).
std::vector<SweepRun> expand_runs(const SweepSpec& spec);

}  // namespace pmixflow::cli
