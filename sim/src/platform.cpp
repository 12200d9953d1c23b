#include "pmixflow/sim/platform.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <simgrid/s4u.hpp>

#include "platform_check.hpp"
#include "pmixflow/model/cluster.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/input_file.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace sg4 = simgrid::s4u;

namespace pmixflow::sim {

namespace {

constexpr double kHostSpeed = 1e9;  // flops; the flow does no computation of its own

std::vector<std::string> generated_names(std::uint32_t nodes) {
  std::vector<std::string> names{"head", "sched", "login"};
  for (std::uint32_t i = 1; i <= nodes; ++i) names.push_back(generated_node_name(i));
  return names;
}

void build_star(const PlatformOptions& o, const std::vector<std::string>& names) {
  auto* zone = sg4::create_star_zone("cluster");
  for (const auto& name : names) {
    auto* host = zone->create_host(name, kHostSpeed);
    auto* link = zone->create_split_duplex_link(name + "_link", o.link_bandwidth)->set_latency(o.link_latency)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
  }
  zone->seal();
}

std::vector<unsigned> parse_uints(const std::string& text, const std::string& what) {
  std::vector<unsigned> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    // SimGrid's fat tree takes unsigned ints; a count past 65535 would be no machine anyway.
    unsigned n = 0;
    if (read_whole(item, n, 1u, 65535u) != NumberFault::None)
      throw InputError("--network", 0, what,
                       "expects whole numbers from 1 to 65535 separated by commas, got " + quote_value(text));
    out.push_back(n);
  }
  return out;
}

void build_fat_tree(const PlatformOptions& o, const std::string& params, std::vector<std::string> names) {
  unsigned levels = 2;
  std::vector<unsigned> down, up, count;
  if (params.empty()) {
    // Two levels of 16-port leaf switches, each with two uplinks: enough leaves for every host.
    const unsigned per_leaf = 16;
    const auto leaves = static_cast<unsigned>((names.size() + per_leaf - 1) / per_leaf);
    down = {per_leaf, std::max(1u, leaves)};
    up = {1, 2};
    count = {1, 1};
  } else {
    std::vector<std::string> parts;
    std::stringstream ss(params);
    std::string part;
    while (std::getline(ss, part, ';')) parts.push_back(part);
    if (parts.size() != 4 || read_whole(parts[0], levels, 1u, 16u) != NumberFault::None)
      throw InputError("--network", 0, "fat-tree",
                       "expects fat-tree:LEVELS;DOWN,..;UP,..;COUNT,.. (SimGrid's topo_parameters, 1 to 16 levels), "
                       "got " +
                           quote_value(params));
    down = parse_uints(parts[1], "fat-tree down");
    up = parse_uints(parts[2], "fat-tree up");
    count = parse_uints(parts[3], "fat-tree count");
    if (down.size() != levels || up.size() != levels || count.size() != levels)
      throw InputError("--network", 0, "fat-tree", "each list needs one number per level");
  }
  std::size_t leaves = 1;
  for (auto d : down) leaves *= d;
  if (leaves < names.size())
    throw InputError("--network", 0, "fat-tree",
                     "the tree has " + std::to_string(leaves) + " leaves for " + std::to_string(names.size()) +
                         " hosts (3 service hosts + the nodes)");
  for (std::size_t i = names.size(); i < leaves; ++i) names.push_back("spare-" + std::to_string(i));
  auto* root = sg4::create_full_zone("world");
  const sg4::FatTreeParams tree(levels, down, up, count);
  auto make_leaf = [names](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    auto* host = zone->create_host(names.at(id), kHostSpeed);
    return std::make_pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*>(
        host->get_netpoint(), nullptr);
  };
  sg4::create_fatTree_zone("cluster", root, tree, sg4::ClusterCallbacks(make_leaf), o.link_bandwidth, o.link_latency,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  root->seal();
}

Machine pick_roles(sg4::Engine& engine, const PlatformOptions& o, const std::string& origin) {
  auto hosts = engine.get_all_hosts();
  std::sort(hosts.begin(), hosts.end(),
            [](auto* a, auto* b) { return pmixflow::natural_less(a->get_name(), b->get_name()); });
  Machine m;
  auto take = [&](const char* name) -> sg4::Host* {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](auto* h) { return h->get_name() == name; });
    if (it == hosts.end()) return nullptr;
    auto* h = *it;
    hosts.erase(it);
    return h;
  };
  m.head = take("head");
  m.scheduler = take("sched");
  m.login = take("login");
  for (auto** slot : {&m.head, &m.scheduler, &m.login}) {
    if (*slot) continue;
    if (hosts.empty()) break;
    *slot = hosts.front();
    hosts.erase(hosts.begin());
  }
  std::erase_if(hosts, [](auto* h) { return h->get_name().rfind("spare-", 0) == 0; });
  if (!m.login || hosts.empty())
    throw InputError(origin, 0, "",
                     "the platform needs at least 4 hosts: head, scheduler, login, and one compute node");
  if (o.nodes > 0) {
    if (o.nodes > hosts.size())
      throw InputError(
          origin, 0, "--nodes",
          "asks for " + std::to_string(o.nodes) + " compute nodes; the platform has " + std::to_string(hosts.size()));
    hosts.resize(o.nodes);
  }
  m.compute = std::move(hosts);
  return m;
}

}  // namespace

Machine build_platform(sg4::Engine& engine, const PlatformOptions& o) {
  if (!o.platform_file.empty()) {
    // SimGrid aborts on a file it cannot open; check first so the user gets a clear message.
    refuse_directory(o.platform_file, "a platform file");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(o.platform_file, ec))
      throw InputError(o.platform_file, 0, "", "platform file not found");
    std::ifstream in(o.platform_file);
    std::string head(512, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (!in.good() && in.gcount() == 0) throw InputError(o.platform_file, 0, "", "cannot read the platform file");
    if (head.find("<platform") == std::string::npos && head.find("<?xml") == std::string::npos)
      throw InputError(o.platform_file, 0, "", "not a SimGrid platform (no <platform> element)");
    DeclaredRoutes declared;
    try {
      engine.load_platform(o.platform_file);
    } catch (const std::exception& e) {
      refuse_platform(e, o.platform_file);
    }
    Machine m = pick_roles(engine, o, o.platform_file);
    check_routes(m, o.platform_file, declared);
    m.description = o.platform_file;
    return m;
  }
  const std::uint32_t nodes = o.nodes == 0 ? 8 : o.nodes;
  const auto names = generated_names(nodes);
  if (o.network == "star") {
    build_star(o, names);
  } else if (o.network == "fat-tree" || o.network.rfind("fat-tree:", 0) == 0) {
    build_fat_tree(o, o.network.size() > 9 ? o.network.substr(9) : "", names);
  } else {
    throw InputError("--network", 0, "network",
                     "expects star, fat-tree or fat-tree:L;DOWN;UP;COUNT, got " + quote_value(o.network));
  }
  PlatformOptions generated = o;
  generated.nodes = nodes;
  Machine m = pick_roles(engine, generated, "--nodes");
  // Plain digits: the description is written into the log header and summary.json as well.
  m.description = "generated " + o.network + ", " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
  return m;
}

}  // namespace pmixflow::sim
