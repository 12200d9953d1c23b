// A job spawned from inside a job, and what its parent's end does to it (PRRTE's
// check_complete_resume(), docs/prrte-conformance.md J22).
#include "controller_fixture.hpp"

namespace pmixflow::test::controller_tests {
namespace {

InfoList child_sep(bool sep) {
  InfoList info;
  info.add(key::SPAWN_CHILD_SEP, sep);
  return info;
}

TEST_F(ControllerTest, AChildSpawnedWithChildSepFalseIsKilledAsItsParentEnds) {
  serve_dvm({1});
  const std::string parent = spawned(spawn(5, 2, {}), {1});
  const std::string tied = spawned(spawn(6, 2, child_sep(false), Proc{parent, 0}), {1});
  const std::string free = spawned(spawn(7, 2, child_sep(true), Proc{parent, 0}), {1});
  ctl->handle(Address::daemon(1), ProcsEnded{parent, 1, Status::Success, 0});
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].second.nspace, tied);
  EXPECT_EQ(kills[0].second.reason, Status::ErrJobKilledByCmd);
  EXPECT_EQ(env.count_events("job.child_killed", {"\"parent_job\":\"" + parent + "\""}), 1u);
  ctl->handle(Address::daemon(1), ProcsEnded{tied, 1, Status::ErrJobKilledByCmd, 0});
  EXPECT_EQ(env.count_events("job.end", {"\"status\":\"PMIX_ERR_JOB_KILLED_BY_CMD\""}), 1u);
  EXPECT_EQ(env.count_events("job.end", {"\"nspace\":\"" + free + "\""}), 0u) << "it outlives its parent";
}

TEST_F(ControllerTest, AChildAlreadyBeingEndedKeepsItsOwnEndWhenItsParentEnds) {
  serve_dvm({1});
  const std::string parent = spawned(spawn(5, 2, {}), {1});
  InfoList info = child_sep(false);
  info.add(key::JOB_TIMEOUT, std::int32_t{1});
  const std::string child = spawned(spawn(6, 2, std::move(info), Proc{parent, 0}), {1});
  env.advance(1);  // its own time limit runs out: killed by order
  ASSERT_EQ(all_of<KillProcs>(env.take_sent()).size(), 1u);
  ctl->handle(Address::daemon(1), ProcsEnded{parent, 1, Status::Success, 0});
  EXPECT_TRUE(all_of<KillProcs>(env.take_sent()).empty());
  EXPECT_EQ(env.count_events("job.child_killed"), 0u);
  ctl->handle(Address::daemon(1), ProcsEnded{child, 1, Status::ErrTimeout, 0});
  EXPECT_EQ(env.count_events("job.end", {"\"nspace\":\"" + child + "\"", "\"status\":\"PMIX_ERR_TIMEOUT\""}), 1u);
}

TEST_F(ControllerTest, AParentReachingItsTimeLimitTakesEveryChildWithIt) {
  serve_dvm({1});
  const std::string parent = spawned(spawn(5, 2, with({}, key::JOB_TIMEOUT, std::int32_t{2})), {1});
  const std::string child = spawned(spawn(6, 2, child_sep(true), Proc{parent, 0}), {1});
  env.advance(2);  // as PRRTE's job_timeout_cb(): the children go too, PMIX_SPAWN_CHILD_SEP or not
  const auto kills = all_of<KillProcs>(env.take_sent());
  ASSERT_EQ(kills.size(), 2u);
  EXPECT_EQ(kills[0].second.nspace, parent);
  EXPECT_EQ(kills[0].second.reason, Status::ErrTimeout);
  EXPECT_EQ(kills[1].second.nspace, child);
  EXPECT_EQ(kills[1].second.reason, Status::ErrJobKilledByCmd);
  EXPECT_EQ(env.count_events("job.child_killed", {"\"nspace\":\"" + child + "\""}), 1u);
}

}  // namespace
}  // namespace pmixflow::test::controller_tests
