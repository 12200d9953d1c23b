// What the `pmixflow diff` targets share: run A is the input written as one of a run's files,
// compared with itself (every row paired) and with a small well-formed run (rows on one side
// only, deltas), and both reports rendered as the command renders them. The comparison is
// symmetric in its code (A's rows, then B's), so one direction is enough.
#pragma once

#include <filesystem>

#include "fuzz_support.hpp"
#include "pmixflow/results/diff.hpp"

namespace pmixflow::fuzz {

// `name` holding `bytes` in a directory of the scratch space: a run directory of one file.
inline std::string run_dir(const std::string& dir, const std::string& name, std::string_view bytes) {
  std::filesystem::create_directories(scratch_dir() / dir);
  write_file(dir + "/" + name, bytes);
  return (scratch_dir() / dir).string();
}

// `partial`: also compare as `diff --partial` does (only event logs can be cut).
inline void diff_both_ways(const std::string& name, std::string_view input, std::string_view reference,
                           bool partial_too = false) {
  const std::string a = run_dir("a", name, input);
  const std::string b = run_dir("b", name, reference);
  for (const auto& runs : {std::pair{a, a}, std::pair{a, b}}) {
    for (bool partial : {false, true}) {
      if (partial && !partial_too) continue;
      refused_or_ok([&] {
        const DiffReport r = diff_runs(runs.first, runs.second, DiffOptions{partial});
        (void)r.equal();
        (void)render_diff_text(r, 5);
        (void)render_diff_json(r);
      });
    }
  }
}

}  // namespace pmixflow::fuzz
