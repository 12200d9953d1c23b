// Event lines compared under a tolerance: the same but for their times, one pair at a time or,
// where parties' events at nearly one instant came in another order, as windows of lines.
#include <algorithm>

#include "diff_internal.hpp"

namespace pmixflow::diff_detail {
namespace {

// The catalogue's fields that are times, in seconds (docs/events.md): the line's own, a call's
// latency, a stall's end.
constexpr const char* kTimeFields[] = {"t", "latency", "until"};

struct Untimed {
  std::string rest;  // the line without its times, as JSON text: what must be the same
  std::vector<double> times;
};

std::optional<Untimed> untimed(std::string_view line) {
  ojson j = ojson::parse(line, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  Untimed out;
  for (const char* field : kTimeFields) {
    const auto it = j.find(field);
    if (it == j.end() || !it->is_number()) {
      out.times.push_back(-1);
      continue;
    }
    out.times.push_back(it->get<double>());
    j.erase(field);
  }
  out.rest = j.dump();
  return out;
}

bool same(const Untimed& a, const Untimed& b, double tolerance_s) {
  if (a.rest != b.rest) return false;
  for (std::size_t i = 0; i < a.times.size(); ++i)
    if (!within_time(a.times[i], b.times[i], tolerance_s)) return false;
  return true;
}

}  // namespace

bool same_but_times(std::string_view a, std::string_view b, double tolerance_s) {
  if (tolerance_s <= 0) return false;
  const auto ua = untimed(a), ub = untimed(b);
  return ua && ub && same(*ua, *ub, tolerance_s);
}

bool same_window(const std::vector<std::string>& a, const std::vector<std::string>& b, double tolerance_s) {
  if (a.size() != b.size()) return false;
  std::vector<Untimed> ua, ub;
  for (const auto* side : {&a, &b})
    for (const auto& line : *side) {
      auto u = untimed(line);
      if (!u) return false;
      (side == &a ? ua : ub).push_back(std::move(*u));
    }
  auto order = [](const Untimed& x, const Untimed& y) { return std::tie(x.rest, x.times) < std::tie(y.rest, y.times); };
  std::sort(ua.begin(), ua.end(), order);
  std::sort(ub.begin(), ub.end(), order);
  for (std::size_t i = 0; i < ua.size(); ++i)
    if (!same(ua[i], ub[i], tolerance_s)) return false;
  return true;
}

}  // namespace pmixflow::diff_detail
