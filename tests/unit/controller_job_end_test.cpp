// How a job ends when more than one thing ends it: the first decides, as PRRTE's "first failure
// wins" (PRTE_JOB_FLAG_ABORTED, errmgr_dvm.c proc_errors()), docs/prrte-conformance.md J20.
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

TEST_F(ControllerTest, AJobAFailedRankIsEndingKeepsThatEndWhenItsSessionIsTerminated) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobNonZeroTerm, 1});
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobNonZeroTerm);
  from_scheduler(2, 1, op(key::SESSION_TERMINATE));
  EXPECT_TRUE(all_of<KillProcs>(env.take_sent()).empty()) << "its ranks are being killed already";
  ctl->handle(Address::daemon(2), ProcsEnded{ns, 2, Status::ErrJobNonZeroTerm, 0});
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_NON_ZERO_TERM\""}), 1u);
}

TEST_F(ControllerTest, AJobAFailedRankIsEndingKeepsThatEndWhenANodeOfItsIsLost) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobNonZeroTerm, 1});
  env.take_sent();
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_NON_ZERO_TERM\""}), 1u);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT\""}), 0u);
}

TEST_F(ControllerTest, AJobKilledByOrderEndsAbortedWhenANodeOfItsIsLost) {
  attach();
  const std::string ns = running_session(1, "n01:4,n02:4", {1, 2}, 8);
  from_scheduler(2, 1, op(key::SESSION_TERMINATE));
  env.take_sent();
  // PRRTE's TERM_WO_SYNC branch is guarded by PRTE_JOB_FLAG_ABORTED, which an order does not set.
  ctl->handle(Address::daemon(2), PeerLost{Address::daemon(2)});
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT\""}), 1u);
}

TEST_F(ControllerTest, AJobKilledByOrderKeepsThatEndWhenItsOwnTimeLimitRunsOut) {
  attach();
  reservation(1, "n01:8", {1}, kTool);
  InfoList info = in_session(1);
  info.add(key::JOB_TIMEOUT, std::int32_t{2});
  const std::string ns = spawned(spawn(5, 2, std::move(info)), {1});
  from_scheduler(3, 1, op(key::SESSION_TERMINATE));
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobKilledByCmd);
  env.advance(2);  // its ranks have not reported their end yet
  EXPECT_TRUE(all_of<KillProcs>(env.take_sent()).empty());
  ctl->handle(Address::daemon(1), ProcsEnded{ns, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_KILLED_BY_CMD\""}), 1u);
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_TIMEOUT\""}), 0u);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
