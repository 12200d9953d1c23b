// How late an emulation's parties acted against scenario time (docs/emulation.md, "Keeping
// time"): each party counts how late its timers fired and its jobs' processes were seen to end,
// in scenario seconds; the emulation merges the parties' counts and reports the distribution.
// A histogram, not the samples: eight buckets per doubling from a microsecond (a quantile is the
// upper bound of its bucket, within 9 %, and never above the exact maximum), each keeping the
// scenario time of its earliest sample and whose it was, so that the first action later than
// some allowance is found after the merge without the parties knowing the allowance.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pmixflow/trace/spacing.hpp"

namespace pmixflow::emul {

class Lateness {
 public:
  // One action due at scenario time `due`, taken `late` seconds after it (< 0 counts as 0).
  // `what` is copied only when the sample is kept (the earliest of its bucket, or the worst).
  void add(double due, double late, std::string_view what = {});
  // Another party's counts, under its name.
  void merge(const Lateness& other, const std::string& party);

  std::uint64_t count() const { return count_; }
  double max() const { return max_.late; }
  double quantile(double q) const;

  // A sample worth naming: when it was due, how late, whose, and what it was.
  struct Sample {
    double due = 0;
    double late = 0;
    std::string party;
    std::string what;
  };
  const Sample& worst() const { return max_; }
  // The earliest action known to be later than `allowed`: the earliest first sample among the
  // buckets whose first sample is (a later one in a bucket straddling `allowed` may be missed,
  // never a bucket wholly beyond it).
  std::optional<Sample> first_beyond(double allowed) const;

  // A party's counts as it sends them to the emulation (in its goodbye), and back. from_json
  // throws std::invalid_argument on anything else.
  nlohmann::json to_json() const;
  static Lateness from_json(const nlohmann::json& j);

 private:
  struct Bucket {
    std::uint64_t count = 0;
    Sample first;
  };
  static int bucket_of(double late);
  static double upper_bound(int bucket);

  std::map<int, Bucket> buckets_;
  std::uint64_t count_ = 0;
  Sample max_;
};

// The emulation's figures for the log's closing line and summary.json (docs/events.md,
// "lateness"): how many actions were counted, p50/p90/max in scenario seconds, the worst; and,
// when the worst exceeds the room the scenario leaves (`allowed`), the first action beyond it
// and a speed that would keep within it.
nlohmann::json lateness_figures(const Lateness& l, const std::optional<Spacing>& allowed, double speed);

}  // namespace pmixflow::emul
