#include <algorithm>
#include <cmath>
#include <cstdio>

#include "diff_internal.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::diff_detail {

std::string fmt(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string fmt_signed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.6g", v);
  return buf;
}

std::string fmt_start(const std::optional<double>& s) { return s ? fmt(*s) : std::string("never"); }

std::string clip(const std::string& s, std::size_t max) {
  return s.size() <= max ? s : s.substr(0, max) + "... (" + std::to_string(s.size()) + " characters)";
}

std::string value_or_absent(const std::optional<std::string>& v) { return v ? clip(*v, 120) : std::string("absent"); }

ojson opt_value(const std::optional<std::string>& v) {
  if (!v) return nullptr;
  ojson parsed = ojson::parse(*v, nullptr, false);
  return parsed.is_discarded() ? ojson(*v) : parsed;
}

}  // namespace pmixflow::diff_detail

namespace pmixflow::diff_detail {

bool within_time(double a, double b, double tolerance_s) { return std::fabs(b - a) <= tolerance_s; }

bool within_derived(double a, double b, double tolerance_s) {
  if (a == b) return true;
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(b - a) <= scale * tolerance_s / kDerivedScale_s;
}

}  // namespace pmixflow::diff_detail
