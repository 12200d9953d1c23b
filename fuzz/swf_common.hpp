// What both SWF targets do with a trace the reader accepted: plan its replay, as a run would,
// on the machine its header describes (or a small one), then deploy it.
#pragma once

#include "fuzz_support.hpp"
#include "pmixflow/model/cluster.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/trace/run.hpp"
#include "pmixflow/trace/swf.hpp"

namespace pmixflow::fuzz {

inline void replay(const SwfTrace& trace) {
  // A replay of a job list is planned in memory: bounded here so that a header claiming a
  // million nodes does not make one input take seconds.
  if (trace.jobs.size() > 2000) return;
  std::vector<Node> nodes{{"head", 4, false}};
  for (std::uint32_t i = 1; i <= 4; ++i) nodes.push_back({generated_node_name(i), 4, true});
  const Cluster cluster(std::move(nodes));
  Workload w;
  w.trace = trace;
  w.policy = "easy";
  RunInputs in;
  in.all_preemptible = true;
  plan_replay(w, in, 4);
  refused_or_ok([&] { deploy(w, in, cluster); });
}

}  // namespace pmixflow::fuzz
