// How pmixflow's cost grows with the work and with the machine. For each (jobs, nodes) of a
// grid it generates a workload (pmixflow/trace/workload.hpp), replays it through the whole flow, and measures
// the whole process (fork to exit: reading, platform, run, outputs) and, from summary.json,
// the simulation loop; then the floor, the cheapest plain s4u exchange of as many messages
// (pingpong.cpp), measured the same two ways in the same run. Last, the growth exponents
// fitted over the points that finished: cost ~ jobs^a * nodes^b.
//   bench_scale [--grid full|quick|JOBS:NODES,...] [--limit SECONDS] [--seed N] [--events all|none]
//               [--save DIR]    (keeps the generated traces in DIR)
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floor.hpp"
#include "measure.hpp"
#include "pmixflow/trace/workload.hpp"

namespace fs = std::filesystem;
using pmixflow::bench::ProcessCost;

namespace {

struct Options {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> grid;
  double limit_s = 1800;
  std::uint64_t seed = 1;
  bool events = false;
  std::optional<fs::path> save;  // keep each generated trace there, to profile a point alone
};

struct Point {
  std::uint64_t jobs = 0, nodes = 0;
  ProcessCost flow;
  pmixflow::bench::Floor floor;
  double loop_s = 0, messages = 0;
  bool finished = false;
};

std::vector<std::pair<std::uint64_t, std::uint64_t>> parse_grid(const std::string& text) {
  if (text == "full") return {{10000, 1000}, {100000, 10000}, {1000000, 10000}, {100000, 100000}, {1000000, 100000}};
  if (text == "quick") return {{2000, 100}, {20000, 100}, {2000, 1000}, {20000, 1000}};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> grid;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("--grid: '" + item + "' is not JOBS:NODES");
    grid.emplace_back(std::stoull(item.substr(0, colon)), std::stoull(item.substr(colon + 1)));
  }
  return grid;
}

Options parse(int argc, char** argv) {
  Options o;
  o.grid = parse_grid("full");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--grid" && has_value)
      o.grid = parse_grid(argv[++i]);
    else if (a == "--limit" && has_value)
      o.limit_s = std::stod(argv[++i]);
    else if (a == "--seed" && has_value)
      o.seed = std::stoull(argv[++i]);
    else if (a == "--events" && has_value)
      o.events = std::string(argv[++i]) == "all";
    else if (a == "--save" && has_value)
      o.save = argv[++i];
    else
      throw std::invalid_argument(
          "usage: bench_scale [--grid full|quick|JOBS:NODES,...] [--limit SECONDS] "
          "[--seed N] [--events all|none] [--save DIR]");
  }
  return o;
}

Point measure(std::uint64_t jobs, std::uint64_t nodes, const Options& o, const fs::path& dir) {
  Point p;
  p.jobs = jobs;
  p.nodes = nodes;
  pmixflow::WorkloadShape shape;
  shape.jobs = jobs;
  shape.nodes = nodes;
  shape.seed = o.seed;
  const fs::path trace = o.save ? *o.save / ("workload-" + std::to_string(jobs) + "x" + std::to_string(nodes) + ".swf")
                                : dir / "workload.swf";
  pmixflow::write_workload(shape, trace);
  std::vector<std::string> cmd = {
      PMIXFLOW_BIN,          "sim",      "--quiet", "--trace", trace.string(),        "--nodes",
      std::to_string(nodes), "--policy", "easy",    "--out",   (dir / "run").string()};
  if (!o.events) cmd.push_back("--no-events");
  p.flow = pmixflow::bench::run_process(cmd, "", (dir / "run.err").string(), o.limit_s);
  if (!o.save) fs::remove(trace);
  if (p.flow.timed_out || p.flow.exit_status != 0) return p;
  const auto summary = nlohmann::json::parse(std::ifstream(dir / "run" / "summary.json"));
  p.messages = summary["messages"].get<double>();
  p.loop_s = summary["wall_s"].get<double>();
  p.floor = pmixflow::bench::pingpong_floor(static_cast<std::uint64_t>(p.messages), dir);
  p.finished = p.floor.ok();
  return p;
}

void print_header() {
  std::printf("%9s %7s %10s | %9s %9s %8s %7s %7s | %8s %8s | %6s %6s\n", "jobs", "nodes", "messages", "process s",
              "loop s", "peak MB", "KB/job", "us/msg", "floor s", "floor lp", "x proc", "x loop");
}

void print_point(const Point& p) {
  if (!p.finished) {
    std::printf("%9llu %7llu  %s after %.0f s (exit %d)\n", static_cast<unsigned long long>(p.jobs),
                static_cast<unsigned long long>(p.nodes), p.flow.timed_out ? "did not finish" : "FAILED", p.flow.wall_s,
                p.flow.exit_status);
    return;
  }
  std::printf("%9llu %7llu %10.0f | %9.2f %9.2f %8.0f %7.2f %7.2f | %8.2f %8.2f | %6.2f %6.2f\n",
              static_cast<unsigned long long>(p.jobs), static_cast<unsigned long long>(p.nodes), p.messages,
              p.flow.wall_s, p.loop_s, p.flow.peak_rss_mb, p.flow.peak_rss_mb * 1024 / static_cast<double>(p.jobs),
              p.flow.wall_s / p.messages * 1e6, p.floor.process.wall_s, p.floor.loop_s,
              p.flow.wall_s / p.floor.process.wall_s, p.loop_s / p.floor.loop_s);
  std::fflush(stdout);
}

// Least squares of ln(y) = c + a ln(jobs) + b ln(nodes); nullopt when the points do not vary
// in both.
std::optional<std::pair<double, double>> fit(const std::vector<Point>& points, double (*y)(const Point&)) {
  double s[3][3] = {}, t[3] = {};
  int n = 0;
  for (const auto& p : points) {
    if (!p.finished || y(p) <= 0) continue;
    const double x[3] = {1, std::log(static_cast<double>(p.jobs)), std::log(static_cast<double>(p.nodes))};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) s[i][j] += x[i] * x[j];
      t[i] += x[i] * std::log(y(p));
    }
    ++n;
  }
  // Cramer's rule on the 3x3 normal equations.
  auto det = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double d = det(s);
  if (n < 3 || std::abs(d) < 1e-9) return std::nullopt;
  auto with_column = [&](int c) {
    double m[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = j == c ? t[i] : s[i][j];
    return det(m) / d;
  };
  return std::pair{with_column(1), with_column(2)};
}

void print_fits(const std::vector<Point>& points) {
  const struct {
    const char* what;
    double (*y)(const Point&);
  } rows[] = {
      {"process wall", [](const Point& p) { return p.flow.wall_s; }},
      {"loop wall", [](const Point& p) { return p.loop_s; }},
      {"peak memory", [](const Point& p) { return p.flow.peak_rss_mb; }},
      {"wall per message", [](const Point& p) { return p.flow.wall_s / p.messages; }},
  };
  std::printf("\ngrowth fitted over the finished points (cost ~ jobs^a * nodes^b; work-proportional: a=1, b=0)\n");
  for (const auto& r : rows) {
    if (const auto f = fit(points, r.y))
      std::printf("  %-17s a = %5.2f   b = %5.2f\n", r.what, f->first, f->second);
    else
      std::printf("  %-17s (needs three finished points varying in jobs and nodes)\n", r.what);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_scale: " << e.what() << "\n";
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / ("pmixflow-bench-scale-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf(
      "pmixflow sim --trace (generated, load 0.85, 8 slots/node) --policy easy%s; floor: plain s4u "
      "ping-pong of as many messages\n",
      o.events ? "" : " --no-events");
  std::printf("process: fork to exit; loop: the simulation alone (summary.json wall_s, the floor's engine.run())\n");
  print_header();
  std::vector<Point> points;
  int failed = 0;
  for (const auto& [jobs, nodes] : o.grid) {
    points.push_back(measure(jobs, nodes, o, dir));
    print_point(points.back());
    if (!points.back().finished && !points.back().flow.timed_out) ++failed;
    fs::remove_all(dir / "run");
  }
  print_fits(points);
  fs::remove_all(dir);
  return failed ? 1 : 0;
}
