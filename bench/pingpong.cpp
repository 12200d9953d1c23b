// The floor for any design that carries every hop through SimGrid: the cheapest plain s4u
// exchange of N messages, two actors on two hosts of a star cluster (the kind of link the
// generated cluster uses) taking turns with a blocking put and get of one pointer. Nothing is
// allocated per message. Prints "messages=N wall_s=W rate=R" (W: the simulation loop only,
// engine.run(); the benchmarks time the whole process themselves).
//   bench_pingpong [MESSAGES]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace {

void player(sg4::Mailbox* in, sg4::Mailbox* out, std::uint64_t rounds, bool serves_first) {
  std::uint64_t token = 0;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    if (serves_first) out->put(&token, 200);
    in->get<std::uint64_t>();
    if (!serves_first) out->put(&token, 200);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t messages = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  const std::uint64_t rounds = messages / 2;
  std::string quiet = "--log=root.thres:critical";
  char* args[] = {argv[0], quiet.data()};
  int nargs = 2;
  sg4::Engine engine(&nargs, args);
  auto* zone = sg4::create_star_zone("cluster");
  for (const char* name : {"a", "b"}) {
    auto* host = zone->create_host(name, 1e9);
    auto* link = zone->create_split_duplex_link(std::string(name) + "_link", 12.5e9)->set_latency(1e-6)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
  }
  zone->seal();
  auto* a = sg4::Mailbox::by_name("a");
  auto* b = sg4::Mailbox::by_name("b");
  sg4::Actor::create("ping", sg4::Host::by_name("a"), [=] { player(a, b, rounds, true); });
  sg4::Actor::create("pong", sg4::Host::by_name("b"), [=] { player(b, a, rounds, false); });
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("messages=%llu wall_s=%.6f rate=%.1f\n", static_cast<unsigned long long>(rounds * 2), wall,
              static_cast<double>(rounds * 2) / wall);
  return 0;
}
