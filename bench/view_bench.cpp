// The viewer on a big run: a workload it generates itself (Poisson arrivals, log-uniform sizes
// and runtimes, from a seed) replayed by the simulator on 10,000 nodes, then opened as a user
// opens it. Prints, each against a floor measured in the same run:
//   - the whole process a user waits for (`pmixflow-view --screenshot` of the machine pane)
//     against a process that only reads the log with core's reader (the least any viewer must do);
//   - open: building the replay model, against reading every event with core's reader;
//   - the state at a random T, against one copy of the machine;
//   - one frame of the machine pane, against filling every node's cell with one colour.
// Targets (issue 11): open under 3 s, state at T under 20 ms, a frame under 16 ms.
//   bench_view [JOBS] [NODES] [SEED]        (default 1700 jobs, about a million events)
//   bench_view --read-only LOG              (the whole-process floor; used by the benchmark itself)
#include <unistd.h>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "machine_pane.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/view/run_model.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Stats {
  double mean = 0, p99 = 0, max = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stats s;
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  s.p99 = v[std::min(v.size() - 1, v.size() * 99 / 100)];
  s.max = v.back();
  return s;
}

// SWF: id submit wait run procs cpu mem req_procs req_time ... (18 fields).
void write_workload(const fs::path& file, int jobs, int nodes, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(1 / 20.0);
  std::uniform_real_distribution<double> unit(0, 1);
  const int per_node = 8;
  const double max_nodes = std::min(256, nodes);
  std::ofstream out(file);
  double t = 0;
  for (int j = 1; j <= jobs; ++j) {
    t += gap(rng);
    const int size = static_cast<int>(std::pow(max_nodes, unit(rng))) * per_node;
    const int run = static_cast<int>(std::pow(10, 1 + 2.5 * unit(rng)));
    out << j << ' ' << static_cast<long>(t) << " -1 " << run << ' ' << size << " -1 -1 " << size << ' ' << 2 * run
        << " -1 1 1 1 -1 1 -1 -1 -1\n";
  }
}

double run_process(const std::string& cmd) {
  const auto t = Clock::now();
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "bench_view: failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  return since(t);
}

double median_of_3(const std::string& cmd) {
  std::vector<double> v{run_process(cmd), run_process(cmd), run_process(cmd)};
  std::sort(v.begin(), v.end());
  return v[1];
}

std::size_t read_only(const std::string& log) {
  pmixflow::log::LogReader reader(log);
  std::size_t n = 0;
  while (reader.next()) ++n;
  return n;
}

void frames(const pmixflow::view::RunModel& model, const std::vector<double>& times) {
  const QSize size(1600, 1000);
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  pmixflow::gui::MachinePainter painter;
  const QRectF area(8, 8, size.width() - 16, size.height() - 16 - pmixflow::gui::MachinePainter::kLegendHeight);
  painter.layout(model, area);
  std::vector<double> frame, floor;
  // The first frame also loads the fonts: once per window, not per frame; shown apart.
  const auto warm_start = Clock::now();
  {
    const auto state = model.machine_at(times.front());
    QPainter p(&image);
    painter.paint(p, {&model, &state, {}, nullptr, times.front()}, QRectF(QPointF(0, 0), size));
    painter.paint_legend(p, {&model, &state, {}, nullptr, times.front()},
                         QRectF(8, area.bottom() + 6, area.width(), 54));
  }
  const double first = since(warm_start);
  for (double t : times) {
    const auto state = model.machine_at(t);
    const pmixflow::gui::MachinePainter::Input in{&model, &state, {}, nullptr, t};
    auto start = Clock::now();
    {
      QPainter p(&image);
      p.fillRect(image.rect(), Qt::white);
      painter.paint(p, in, QRectF(QPointF(0, 0), size));
      painter.paint_legend(p, in, QRectF(8, area.bottom() + 6, area.width(), 54));
    }
    frame.push_back(since(start));
    start = Clock::now();
    {
      QPainter p(&image);
      p.fillRect(image.rect(), Qt::white);
      for (std::uint32_t i = 0; i < model.nodes().size(); ++i) p.fillRect(painter.cell(i), Qt::blue);
    }
    floor.push_back(since(start));
  }
  const auto f = stats(frame), g = stats(floor);
  std::printf("frame:  machine pane of %zu nodes at 1600x1000: mean %.1f ms, p99 %.1f ms, max %.1f ms (target < 16)\n",
              model.nodes().size(), f.mean * 1e3, f.p99 * 1e3, f.max * 1e3);
  std::printf(
      "        floor (every cell filled with one colour) mean %.1f ms: ratio %.1f; the first frame, which "
      "loads the fonts, %.1f ms\n",
      g.mean * 1e3, f.mean / g.mean, first * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--read-only") return read_only(argv[2]) > 0 ? 0 : 1;
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 1700;
  const int nodes = argc > 2 ? std::atoi(argv[2]) : 10000;
  const unsigned seed = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 1;
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);

  const auto dir = fs::temp_directory_path() / ("pmixflow-bench-view-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_workload(dir / "work.swf", jobs, nodes, seed);
  const auto run = dir / "run";
  run_process(std::string(PMIXFLOW_BIN) + " sim --quiet --trace " + (dir / "work.swf").string() + " --nodes " +
              std::to_string(nodes) + " --policy easy --out " + run.string());
  const auto log = (run / "events.jsonl").string();
  std::printf("workload: %d jobs (seed %u) on %d nodes: %zu events, %.0f MB of log\n", jobs, seed, nodes,
              read_only(log), static_cast<double>(fs::file_size(log)) / 1e6);

  const double view = median_of_3("QT_QPA_PLATFORM=offscreen " + std::string(PMIXFLOW_VIEW_BIN) + " --screenshot " +
                                  (dir / "shot.png").string() + " --pane machine " + run.string() + " 2>/dev/null");
  const double reader = median_of_3(std::string(argv[0]) + " --read-only " + log);
  std::printf("whole process: pmixflow-view --screenshot (machine) %.2f s; reading the log alone %.2f s: ratio %.2f\n",
              view, reader, view / reader);

  auto start = Clock::now();
  const pmixflow::view::RunModel model(run);
  const double open = since(start);
  start = Clock::now();
  read_only(log);
  const double parse = since(start);
  std::printf("open:   %.2f s for %zu events (target < 3 s); reading them alone %.2f s: ratio %.2f; %zu copies\n", open,
              model.events().size(), parse, open / parse, model.copies());

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> when(model.start_time(), model.end_time());
  std::vector<double> times(200), state, copy;
  for (auto& t : times) t = when(rng);
  const auto last = model.machine_at(model.end_time());
  for (double t : times) {
    start = Clock::now();
    const auto m = model.machine_at(t);
    state.push_back(since(start));
    start = Clock::now();
    auto c = last;
    copy.push_back(since(start));
    if (m.nodes().size() != c.nodes().size()) return 1;
  }
  const auto s = stats(state), c = stats(copy);
  std::printf(
      "state:  at a random T: mean %.2f ms, p99 %.2f ms, max %.2f ms (target < 20); one copy of the machine "
      "%.3f ms: ratio %.1f\n",
      s.mean * 1e3, s.p99 * 1e3, s.max * 1e3, c.mean * 1e3, s.mean / c.mean);
  times.resize(50);
  frames(model, times);
  fs::remove_all(dir);
  return 0;
}
