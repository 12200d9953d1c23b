#include "pmixflow/emul/lateness.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pmixflow::emul {
namespace {

constexpr double kFloor = 1e-6;      // later than this is late; bucket 0 holds the rest
constexpr int kPerDoubling = 8;
constexpr int kLastBucket = 8 * 64;  // up to 2^64 µs: any double a clock can give

}  // namespace

int Lateness::bucket_of(double late) {
  if (!(late >= kFloor)) return 0;
  const int b = 1 + static_cast<int>(std::floor(kPerDoubling * std::log2(late / kFloor)));
  return std::clamp(b, 1, kLastBucket);
}

double Lateness::upper_bound(int bucket) {
  return bucket == 0 ? kFloor : kFloor * std::exp2(static_cast<double>(bucket) / kPerDoubling);
}

void Lateness::add(double due, double late, std::string_view what) {
  late = std::max(0.0, late);
  Bucket& b = buckets_[bucket_of(late)];
  const auto sample = [&] { return Sample{due, late, {}, std::string(what)}; };
  if (b.count == 0 || due < b.first.due) b.first = sample();
  ++b.count;
  ++count_;
  if (count_ == 1 || late > max_.late) max_ = sample();
}

void Lateness::merge(const Lateness& other, const std::string& party) {
  for (const auto& [index, theirs] : other.buckets_) {
    Bucket& mine = buckets_[index];
    if (mine.count == 0 || theirs.first.due < mine.first.due) {
      mine.first = theirs.first;
      mine.first.party = party;
    }
    mine.count += theirs.count;
  }
  if (other.count_ > 0 && (count_ == 0 || other.max_.late > max_.late)) {
    max_ = other.max_;
    max_.party = party;
  }
  count_ += other.count_;
}

double Lateness::quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (const auto& [index, b] : buckets_) {
    seen += b.count;
    if (seen >= std::max<std::uint64_t>(rank, 1)) return std::min(upper_bound(index), max_.late);
  }
  return max_.late;
}

std::optional<Lateness::Sample> Lateness::first_beyond(double allowed) const {
  std::optional<Sample> first;
  for (const auto& [index, b] : buckets_)
    if (b.first.late > allowed && (!first || b.first.due < first->due)) first = b.first;
  return first;
}

nlohmann::json Lateness::to_json() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& [index, b] : buckets_)
    buckets.push_back({index, b.count, b.first.due, b.first.late, b.first.what});
  return {{"count", count_}, {"worst", {max_.due, max_.late, max_.what}}, {"buckets", std::move(buckets)}};
}

Lateness Lateness::from_json(const nlohmann::json& j) {
  try {
    Lateness l;
    l.count_ = j.at("count").get<std::uint64_t>();
    const auto& w = j.at("worst");
    l.max_ = Sample{w.at(0).get<double>(), w.at(1).get<double>(), {}, w.at(2).get<std::string>()};
    std::uint64_t total = 0;
    for (const auto& b : j.at("buckets")) {
      const int index = b.at(0).get<int>();
      if (index < 0 || index > kLastBucket) throw std::invalid_argument("a lateness bucket out of range");
      Bucket& mine = l.buckets_[index];
      mine.count = b.at(1).get<std::uint64_t>();
      mine.first = Sample{b.at(2).get<double>(), b.at(3).get<double>(), {}, b.at(4).get<std::string>()};
      total += mine.count;
    }
    if (total != l.count_) throw std::invalid_argument("lateness buckets that do not add up to their count");
    return l;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("unreadable lateness counts: ") + e.what());
  }
}

nlohmann::json lateness_figures(const Lateness& l, const std::optional<Spacing>& allowed, double speed) {
  nlohmann::json j{{"actions", l.count()}};
  if (l.count() > 0) {
    j["p50_s"] = l.quantile(0.5);
    j["p90_s"] = l.quantile(0.9);
    j["max_s"] = l.max();
    j["worst"] = {{"party", l.worst().party}, {"what", l.worst().what}, {"due_s", l.worst().due}};
  }
  if (!allowed) return j;
  j["allowed_s"] = allowed->seconds;
  j["allowed_by"] = allowed->what;
  const auto beyond = l.first_beyond(allowed->seconds);
  if (!beyond) return j;
  j["first_beyond"] = {{"party", beyond->party}, {"what", beyond->what}, {"due_s", beyond->due}, {"late_s", beyond->late}};
  // Lateness is mostly wall time (a wake-up, a fork, a socket) times the speed: at half the speed
  // at which the worst would just fit, it fits with room to spare. Two significant digits, down.
  const double fits = speed * allowed->seconds / l.max() / 2;
  const double scale = std::pow(10.0, std::floor(std::log10(fits)) - 1);
  j["faithful_speed"] = std::max(std::floor(fits / scale) * scale, 0.001);
  return j;
}

}  // namespace pmixflow::emul
