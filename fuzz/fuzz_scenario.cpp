// Scenario files (JSON Lines: a header, then timed operations), read as `pmixflow sim
// --scenario` reads them, then deployed on a small machine as a run would: the parser's
// checks and the deployment's (unknown nodes, entry points, requestors) both see the input.
#include <sstream>

#include "fuzz_support.hpp"
#include "pmixflow/model/cluster.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/trace/run.hpp"
#include "pmixflow/trace/scenario.hpp"

namespace {

using namespace pmixflow;

const Cluster& machine() {
  static const Cluster cluster = [] {
    std::vector<Node> nodes{{"head", 8, false}};
    for (std::uint32_t i = 1; i <= 8; ++i) nodes.push_back({generated_node_name(i), 8, true});
    return Cluster(std::move(nodes));
  }();
  return cluster;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(fuzz::as_text(data, size))};
  // Named as a file in the scratch directory: a hostfile it names relatively is looked for there.
  const std::string origin = (fuzz::scratch_dir() / "scenario.jsonl").string();
  Workload workload;
  if (!fuzz::refused_or_ok([&] { workload.scenario = parse_scenario(in, origin); })) return 0;
  workload.policy = workload.scenario.policy;
  workload.head_computes = workload.scenario.head_computes;
  fuzz::refused_or_ok([&] { deploy(workload, RunInputs{}, machine()); });
  return 0;
}
