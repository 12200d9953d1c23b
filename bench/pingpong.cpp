// The floor for any design that carries every hop through SimGrid: two actors exchanging
// N messages through mailboxes on the same kind of link the generated cluster uses.
// Prints "messages=N wall_s=W rate=R" so a benchmark script can divide by it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

int main(int argc, char** argv) {
  const std::uint64_t messages = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
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
  // Same pattern as the flow: detached puts of a heap payload, an asynchronous get.
  auto player = [messages](const char* mine, const char* theirs, bool serve_first) {
    auto* in = sg4::Mailbox::by_name(mine);
    auto* out = sg4::Mailbox::by_name(theirs);
    const std::uint64_t rounds = messages / 2;
    for (std::uint64_t i = 0; i < rounds; ++i) {
      if (serve_first)
        out->put_init(new std::uint64_t(i), 200)->detach([](void* p) { delete static_cast<std::uint64_t*>(p); });
      std::uint64_t* got = nullptr;
      in->get_async<std::uint64_t>(&got)->wait();
      delete got;
      if (!serve_first)
        out->put_init(new std::uint64_t(i), 200)->detach([](void* p) { delete static_cast<std::uint64_t*>(p); });
    }
  };
  sg4::Actor::create("ping", sg4::Host::by_name("a"), [&] { player("a", "b", true); });
  sg4::Actor::create("pong", sg4::Host::by_name("b"), [&] { player("b", "a", false); });
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("messages=%llu wall_s=%.6f rate=%.1f\n", static_cast<unsigned long long>(messages / 2 * 2), wall,
              static_cast<double>(messages / 2 * 2) / wall);
  return 0;
}
