#include "pmixflow/trace/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow {
namespace {

// The mean of a log-uniform variable on [lo, hi].
double log_uniform_mean(double lo, double hi) { return hi > lo ? (hi - lo) / std::log(hi / lo) : lo; }

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// One KEY=VALUE word into the shape.
void set_field(WorkloadShape& s, const std::string& key, const std::string& value, const std::string& file,
               std::size_t line) {
  NumberFault fault = NumberFault::None;
  std::string range;
  auto whole = [&](std::uint64_t& field, std::uint64_t min) {
    fault = read_whole(value, field, min, UINT64_MAX);
    range = range_text(min, UINT64_MAX);
  };
  auto real = [&](double& field, double min, double max) {
    fault = read_real(value, field, min, max);
    range = range_text(min, max);
  };
  if (key == "jobs")
    whole(s.jobs, 1);
  else if (key == "nodes")
    whole(s.nodes, 1);
  else if (key == "slots_per_node")
    whole(s.slots_per_node, 1);
  else if (key == "seed")
    whole(s.seed, 0);
  else if (key == "load")
    real(s.load, 1e-6, 1e6);
  else if (key == "min_runtime_s")
    real(s.min_runtime_s, 1, 1e9);
  else if (key == "max_runtime_s")
    real(s.max_runtime_s, 1, 1e9);
  else if (key == "max_size_share")
    real(s.max_size_share, 1e-9, 1);
  else
    throw InputError(file, line, key,
                     "not a workload key (jobs, nodes, slots_per_node, load, min_runtime_s, max_runtime_s, "
                     "max_size_share, seed)");
  if (fault != NumberFault::None) throw InputError(file, line, key, number_refusal(fault, value, range));
}

}  // namespace

WorkloadShape parse_workload_shape(const std::string& text, const std::string& file, std::size_t line, bool* seeded) {
  WorkloadShape shape;
  std::istringstream words(text);
  bool named_seed = false;
  for (std::string word; words >> word;) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(file, line, "workloads", "'" + word + "' is not KEY=VALUE (e.g. jobs=200)");
    const std::string key = word.substr(0, eq);
    set_field(shape, key, word.substr(eq + 1), file, line);
    named_seed = named_seed || key == "seed";
  }
  if (shape.min_runtime_s > shape.max_runtime_s)
    throw InputError(file, line, "min_runtime_s", "more than max_runtime_s");
  if (seeded) *seeded = named_seed;
  return shape;
}

double write_workload(const WorkloadShape& s, const std::filesystem::path& path) {
  const double slots = static_cast<double>(s.nodes * s.slots_per_node);
  const double max_size = std::max(1.0, std::floor(slots * s.max_size_share));
  // log-uniform sizes on [1, max_size + 1) floored: the mean of the floor is close enough to
  // the continuous mean for setting a load, which is all it is used for.
  const double mean_work = log_uniform_mean(1, max_size + 1) * log_uniform_mean(s.min_runtime_s, s.max_runtime_s);
  const double mean_gap = mean_work / (s.load * slots);
  std::mt19937_64 random(s.seed);
  std::exponential_distribution<double> gap(1.0 / mean_gap);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto log_uniform = [&](double lo, double hi) { return lo * std::exp(unit(random) * std::log(hi / lo)); };

  const std::unique_ptr<std::FILE, FileCloser> out(std::fopen(path.c_str(), "w"));
  if (!out) throw std::runtime_error("cannot write " + path.string());
  std::fprintf(out.get(),
               "; Version: 2.2\n; Computer: pmixflow generated workload (synthetic)\n"
               "; Note: Poisson arrivals, log-uniform sizes and runtimes, seed %llu, load %.2f\n"
               "; MaxNodes: %llu\n; MaxProcs: %llu\n",
               static_cast<unsigned long long>(s.seed), s.load, static_cast<unsigned long long>(s.nodes),
               static_cast<unsigned long long>(s.nodes * s.slots_per_node));
  double submit = 0;
  for (std::uint64_t j = 1; j <= s.jobs; ++j) {
    submit += gap(random);
    const auto procs = static_cast<long long>(std::min(max_size, std::floor(log_uniform(1, max_size + 1))));
    const auto run = static_cast<long long>(std::floor(log_uniform(s.min_runtime_s, s.max_runtime_s)));
    // Users ask for more than they use: up to three times the runtime, as archive traces show.
    const auto estimate = static_cast<long long>(std::ceil(static_cast<double>(run) * (1 + 2 * unit(random))));
    const auto user = static_cast<long long>(random() % 500);
    std::fprintf(out.get(), "%llu %lld -1 %lld %lld -1 -1 %lld %lld -1 1 %lld 1 -1 1 -1 -1 -1\n",
                 static_cast<unsigned long long>(j), static_cast<long long>(std::floor(submit)), run, procs, procs,
                 estimate, user);
  }
  if (std::ferror(out.get())) throw std::runtime_error("cannot write " + path.string());
  return mean_gap;
}

}  // namespace pmixflow
