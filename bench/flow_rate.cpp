// How fast the whole flow runs against the SimGrid floor, measured in one run: a scenario of
// N allocation requests (through all three entry points, each a session with a job, each
// completed) is simulated by `pmixflow sim`, then the same number of messages is ping-ponged
// between two bare SimGrid actors. Prints both rates and their ratio.
//   bench_flow_rate [REQUESTS] [NODES]
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

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
  std::ostringstream cmd;
  cmd << PMIXFLOW_BIN << " sim --quiet --no-events --nodes " << nodes << " --scenario " << (dir / "scenario.jsonl")
      << " --out " << (dir / "out");
  if (std::system(cmd.str().c_str()) != 0) {
    std::cerr << "bench: the simulation failed: " << cmd.str() << "\n";
    return 1;
  }
  const auto summary = nlohmann::json::parse(std::ifstream(dir / "out" / "summary.json"));
  const double messages = summary["messages"].get<double>();
  const double flow_wall = summary["wall_s"].get<double>();
  const std::string pp = std::string(PINGPONG_BIN) + " " + std::to_string(static_cast<long>(messages)) + " > " +
                         (dir / "pingpong.txt").string();
  if (std::system(pp.c_str()) != 0) return 1;
  std::ifstream ppin(dir / "pingpong.txt");
  std::string line;
  std::getline(ppin, line);
  const double pp_rate = std::stod(line.substr(line.find("rate=") + 5));
  const double flow_rate = messages / flow_wall;
  std::printf("requests=%ld nodes=%ld flow_messages=%.0f flow_wall_s=%.3f flow_msgs_per_s=%.0f\n", requests, nodes,
              messages, flow_wall, flow_rate);
  std::printf(
      "pingpong_msgs_per_s=%.0f  pingpong/flow=%.2f  (the flow carries every hop through SimGrid; 1.0 is the floor)\n",
      pp_rate, pp_rate / flow_rate);
  std::filesystem::remove_all(dir);
  return 0;
}
