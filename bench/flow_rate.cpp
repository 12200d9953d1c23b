// How fast the whole flow runs against the SimGrid floor, measured in one run: a scenario of
// N allocation requests (through all three entry points, each a session with a job, each
// completed) is simulated by `pmixflow sim`, then the same number of messages is ping-ponged
// between two bare SimGrid actors (floor.hpp). Both are timed as a whole process and as their
// simulation loop; prints both ratios.
//   bench_flow_rate [REQUESTS] [NODES]
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "floor.hpp"
#include "measure.hpp"

int main(int argc, char** argv) {
  const long requests = argc > 1 ? std::atol(argv[1]) : 20000;
  const long nodes = argc > 2 ? std::atol(argv[2]) : 64;
  const auto dir = std::filesystem::temp_directory_path() / ("pmixflow-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream s(dir / "scenario.jsonl");
    s << R"({"format":"pmixflow-scenario","version":1,"name":"bench","controller":{"dvm":"all"}})"
      << "\n";
    for (long i = 0; i < requests; ++i) {
      const char* via[] = {"controller", "scheduler", nullptr};
      std::string v = via[i % 3] ? via[i % 3] : "daemon:+n" + std::to_string(i % nodes);
      const long cpus = 1 + i % 16;
      s << R"({"at":)" << i * 0.5 << R"(,"op":"alloc","requestor":"u)" << i % 50 << R"(","via":")" << v
        << R"(","directive":"NEW","info":{"PMIX_ALLOC_NUM_CPUS":)" << cpus
        << R"(,"PMIX_ALLOC_TIME":"100"},"app":{"cmd":"sleep","argv":[")" << 10 + i % 40 << R"("],"np":)" << cpus
        << "}}\n";
    }
  }
  const auto flow =
      pmixflow::bench::run_process({PMIXFLOW_BIN, "sim", "--quiet", "--no-events", "--nodes", std::to_string(nodes),
                                    "--scenario", (dir / "scenario.jsonl").string(), "--out", (dir / "out").string()},
                                   "", (dir / "sim.err").string());
  if (flow.exit_status != 0) {
    std::cerr << "bench: the simulation failed (exit " << flow.exit_status << "), see " << (dir / "sim.err") << "\n";
    return 1;
  }
  const auto summary = nlohmann::json::parse(std::ifstream(dir / "out" / "summary.json"));
  const double messages = summary["messages"].get<double>();
  const double loop = summary["wall_s"].get<double>();
  const auto floor = pmixflow::bench::pingpong_floor(static_cast<std::uint64_t>(messages), dir);
  if (!floor.ok()) return 1;
  std::printf("requests=%ld nodes=%ld messages=%.0f\n", requests, nodes, messages);
  std::printf("flow:  process %.3f s, loop %.3f s (%.0f messages/s in the loop)\n", flow.wall_s, loop, messages / loop);
  std::printf("floor: process %.3f s, loop %.3f s (plain s4u ping-pong of as many messages)\n", floor.process.wall_s,
              floor.loop_s);
  std::printf("flow / floor: process %.2f, loop %.2f (1.0 is the floor)\n", flow.wall_s / floor.process.wall_s,
              loop / floor.loop_s);
  std::filesystem::remove_all(dir);
  return 0;
}
