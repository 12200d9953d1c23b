// A release waiting for the DVM to stop changing size (PRRTE's parked releases): carried out in
// arrival order, or withdrawn when the connection it came by breaks - its caller's library has
// answered it then, and carrying it out would act for nobody.
#include "pmixflow/roles/controller/deferred_releases.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"

namespace pmixflow {
namespace {

AllocRequest release_of(const char* who, std::uint64_t id) {
  return AllocRequest{id, Directive::Release, {}, Proc{who, 0}, std::string(who) + "#" + std::to_string(id)};
}

std::vector<std::string> replayed(DeferredReleases& d) {
  std::vector<std::string> corrs;
  d.replay([&](Address, AllocRequest&& req) { corrs.push_back(req.corr); });
  return corrs;
}

TEST(DeferredReleases, ParkedReleasesAreCarriedOutInArrivalOrderOnce) {
  test::FakeEnv env(Address::controller());
  DeferredReleases d(env);
  d.park(Address::daemon(1), release_of("a", 1));
  d.park(Address::requestor(2), release_of("b", 2));
  EXPECT_EQ(env.count_events("request.deferred"), 2u);
  EXPECT_EQ(replayed(d), (std::vector<std::string>{"a#1", "b#2"}));
  EXPECT_TRUE(replayed(d).empty());  // each once
}

TEST(DeferredReleases, AReleaseWhoseConnectionBrokeIsWithdrawnNotCarriedOut) {
  test::FakeEnv env(Address::controller());
  DeferredReleases d(env);
  d.park(Address::daemon(1), release_of("a", 1));
  d.park(Address::daemon(1), release_of("c", 3));
  d.park(Address::daemon(2), release_of("b", 2));
  const Proc c{"c", 0};
  d.withdraw(Address::daemon(1), &c);  // c exited, a (through the same daemon) did not
  EXPECT_EQ(env.count_events("request.withdrawn", {"c#3"}), 1u);
  d.withdraw(Address::daemon(2), nullptr);  // the daemon b called through died
  EXPECT_EQ(env.count_events("request.withdrawn", {"b#2"}), 1u);
  EXPECT_EQ(replayed(d), (std::vector<std::string>{"a#1"}));
}

}  // namespace
}  // namespace pmixflow
