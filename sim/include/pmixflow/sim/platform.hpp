// The simulated machine: a SimGrid platform loaded from XML (SimGrid's own examples load)
// or generated from the command line, with the hosts each party runs on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace pmixflow::sim {

struct PlatformOptions {
  std::string platform_file;       // SimGrid XML; empty: generate one
  std::uint32_t nodes = 0;         // compute nodes: generated count, or the first N of the XML (0: all)
  std::string network = "star";    // generated: "star", "fat-tree" or "fat-tree:L;down;up;count"
  double link_bandwidth = 12.5e9;  // bytes/s of each generated link (100 Gb/s)
  double link_latency = 1e-6;      // seconds per generated link
};

struct Machine {
  simgrid::s4u::Host* head = nullptr;        // the controller (and node 0 of the cluster)
  simgrid::s4u::Host* scheduler = nullptr;   // the scheduler
  simgrid::s4u::Host* login = nullptr;       // requestors
  std::vector<simgrid::s4u::Host*> compute;  // in node order
  std::string description;                   // for the summary
};

// Throws pmixflow::InputError for a missing or unusable platform, or bad options. In an XML
// platform, hosts named "head", "sched" and "login" take those roles; otherwise the first
// three hosts (in natural name order) do, and the rest are the compute nodes.
Machine build_platform(simgrid::s4u::Engine& engine, const PlatformOptions& options);

}  // namespace pmixflow::sim
