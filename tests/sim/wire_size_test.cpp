// The simulated network's cost model: a message costs more the more it carries, so that big
// requests and big launches take longer to cross the network.
#include "pmixflow/sim/wire_size.hpp"

#include <gtest/gtest.h>

namespace pmixflow::sim {
namespace {

TEST(WireSize, GrowsWithContent) {
  InfoList info;
  const auto empty = wire_size(info);
  info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  const auto one = wire_size(info);
  EXPECT_GT(one, empty);
  InfoList short_str, long_str;
  short_str.add(key::ALLOC_NODE_LIST, std::string("n01"));
  long_str.add(key::ALLOC_NODE_LIST, std::string("n01,n02,n03,n04,n05,n06,n07,n08"));
  EXPECT_GT(wire_size(long_str), wire_size(short_str));
  InfoList nested;
  nested.add(key::SESSION_RESOURCES, long_str);
  EXPECT_GT(wire_size(nested), wire_size(long_str));
  App app{"sleep", {"10"}, {}, 4};
  InfoList with_app;
  with_app.add(key::SESSION_APP, std::vector<App>{app});
  InfoList with_two;
  with_two.add(key::SESSION_APP, std::vector<App>{app, app});
  EXPECT_GT(wire_size(with_two), wire_size(with_app));

  // And so do the messages that carry it.
  AllocRequest small{1, Directive::New, {}, Proc{"t", 0}, ""};
  AllocRequest big = small;
  big.info = nested;
  EXPECT_GT(wire_size(Message(big)), wire_size(Message(small)));
  EXPECT_GT(wire_size(Message(small)), 0u);
}

TEST(WireSize, ALaunchCarriesEveryAppAndItsEnvironment) {
  LaunchProcs one{"job-1.1", 1, {App{"sleep", {"10"}, {}, 4}}, 4, 0, "a#1"};
  LaunchProcs two = one;
  two.apps.push_back(App{"a.out", {}, {}, 4});
  EXPECT_GT(wire_size(Message(two)), wire_size(Message(one)));
  LaunchProcs with_env = one;
  with_env.apps[0].env = {"OMP_NUM_THREADS=4"};
  EXPECT_EQ(wire_size(Message(with_env)), wire_size(Message(one)) + 4 + 17 + 1);
}

}  // namespace
}  // namespace pmixflow::sim
