#include "pmixflow/trace/spacing.hpp"

#include <algorithm>
#include <vector>

#include "pmixflow/vocab/human_text.hpp"

namespace pmixflow {
namespace {

std::vector<double> planned_instants(const Deployment& d) {
  std::vector<double> at;
  const auto schedule = [&](const UpDown& s) {
    for (const auto& [t, up] : s) at.push_back(t);
  };
  schedule(d.controller_schedule);
  schedule(d.scheduler_schedule);
  for (const auto& r : d.requestors) {
    schedule(r.schedule);
    for (const auto& c : r.plan) at.push_back(c.at);
    for (const auto& j : r.replay) at.push_back(j.at);
  }
  for (const auto& s : d.scheduler.script) at.push_back(s.at);
  for (const auto& f : d.faults)
    if (!f.when) at.push_back(f.at);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  return at;
}

}  // namespace

std::optional<Spacing> tightest_spacing(const Deployment& d) {
  std::optional<Spacing> tightest;
  const auto consider = [&](double seconds, const auto& say) {
    if (seconds > 0 && (!tightest || seconds < tightest->seconds)) tightest = Spacing{seconds, say()};
  };
  const std::vector<double> at = planned_instants(d);
  for (std::size_t i = 1; i < at.size(); ++i)
    consider(at[i] - at[i - 1], [&] {
      return "two planned instants " + significant(at[i] - at[i - 1]) + " s apart (at " + significant(at[i - 1], 10) +
             " s and " + significant(at[i], 10) + " s)";
    });
  for (const auto& r : d.requestors)
    for (const auto& j : r.replay)
      consider(j.estimate - j.runtime, [&] {
        return "job" + std::to_string(j.job) + "'s estimate, " + significant(j.estimate - j.runtime) +
               " s beyond its run time (trace line " + std::to_string(j.line) + ")";
      });
  return tightest;
}

}  // namespace pmixflow
