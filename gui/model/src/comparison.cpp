#include "pmixflow/view/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace pmixflow::view {

std::vector<JobSpan> job_spans(const RunModel& run) {
  std::vector<JobSpan> spans;
  std::vector<std::uint32_t> span_of(run.requests().size(), kNone);
  // Executions are in the order they were granted, so a request's first one is its start and
  // its last one its end.
  for (const auto& x : run.executions()) {
    if (x.request == kNone || x.request >= span_of.size()) continue;
    auto& index = span_of[x.request];
    if (index == kNone) {
      index = static_cast<std::uint32_t>(spans.size());
      spans.push_back({.job = run.requests()[x.request].corr, .request = x.request, .start = x.start, .end = x.end});
      continue;
    }
    auto& span = spans[index];
    span.start = std::min(span.start, x.start);
    span.end = x.end;
  }
  std::stable_sort(spans.begin(), spans.end(), [](const JobSpan& l, const JobSpan& r) {
    return l.start != r.start ? l.start < r.start : l.job < r.job;
  });
  return spans;
}

bool same_start(double a, double b, double tolerance) {
  return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

namespace {

void summarise(Comparison& c, double sum_abs, double sum_signed) {
  auto& s = c.summary;
  s.moved = c.moved.size();
  s.only_a = c.only_a.size();
  s.only_b = c.only_b.size();
  if (s.matched > 0) {
    s.mean_abs_delta = sum_abs / static_cast<double>(s.matched);
    s.mean_delta = sum_signed / static_cast<double>(s.matched);
  }
  double moved_abs = 0;
  for (const auto& m : c.moved) moved_abs += std::abs(m.delta());
  if (s.moved > 0) s.mean_abs_delta_moved = moved_abs / static_cast<double>(s.moved);
  s.max_abs_delta = c.moved.empty() ? 0 : std::abs(c.moved.front().delta());
}

}  // namespace

Comparison compare_runs(const RunModel& a, const RunModel& b, double tolerance) {
  Comparison c;
  c.moved_in_a.assign(a.requests().size(), 0);
  c.moved_in_b.assign(b.requests().size(), 0);
  const auto spans_a = job_spans(a);
  const auto spans_b = job_spans(b);
  std::unordered_map<std::string_view, const JobSpan*> in_b;
  in_b.reserve(spans_b.size());
  for (const auto& s : spans_b) in_b.emplace(s.job, &s);

  double sum_abs = 0, sum_signed = 0;
  std::unordered_map<std::string_view, bool> matched;
  for (const auto& sa : spans_a) {
    const auto it = in_b.find(sa.job);
    if (it == in_b.end()) {
      c.only_a.push_back(sa);
      continue;
    }
    const JobSpan& sb = *it->second;
    matched.emplace(sb.job, true);
    ++c.summary.matched;
    sum_abs += std::abs(sb.start - sa.start);
    sum_signed += sb.start - sa.start;
    if (same_start(sa.start, sb.start, tolerance)) continue;
    c.moved.push_back({.job = sa.job,
                       .request_a = sa.request,
                       .request_b = sb.request,
                       .start_a = sa.start,
                       .start_b = sb.start,
                       .end_a = sa.end,
                       .end_b = sb.end});
    c.moved_in_a[sa.request] = 1;
    c.moved_in_b[sb.request] = 1;
  }
  for (const auto& sb : spans_b)
    if (!matched.contains(sb.job)) c.only_b.push_back(sb);
  std::stable_sort(c.moved.begin(), c.moved.end(), [](const MovedJob& l, const MovedJob& r) {
    const double dl = std::abs(l.delta()), dr = std::abs(r.delta());
    return dl != dr ? dl > dr : l.job < r.job;
  });
  summarise(c, sum_abs, sum_signed);
  return c;
}

}  // namespace pmixflow::view
