// What the scheduler does with calls whose requestor is gone (FLOW.md §2.11): it withdraws
// what it still has queued for them, hands back a grant nobody took, and refuses what it never
// serves instead of ignoring it.
#include "scheduler_fixture.hpp"

namespace pmixflow::test::scheduler_tests {
namespace {

InfoList lost(const Proc& p) {
  InfoList info;
  info.add(key::PROCID, p);
  return info;
}

TEST_F(SchedulerTest, ASpawnIsRefusedNotIgnored) {
  connect_rm();
  sched.handle(Address::requestor(1), SpawnRequest{9, {}, {}, Proc{"tool", 0}, "t#1"});
  const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
  EXPECT_EQ(r.id, 9u);
  EXPECT_EQ(r.status, Status::ErrNotSupported);
}

TEST_F(SchedulerTest, TheRmReportingARequestorsLostConnectionWithdrawsItsQueuedRequests) {
  // No RM connected yet: what arrives waits in the queue.
  AllocRequest queued = request(6, Directive::New, cpus(8));
  queued.corr = "gone#1";
  queued.info.set(key::REQUESTOR, Proc{"gone", 0});
  sched.handle(Address::controller(), std::move(queued));
  EXPECT_EQ(env.count_events("alloc.queued", {"gone#1"}), 1u);
  sched.handle(Address::controller(), Notification{Status::ErrLostConnection, lost(Proc{"gone", 0}), ""});
  EXPECT_EQ(env.count_events("alloc.dropped", {"gone#1", "PMIX_ERR_UNREACH"}), 1u);
  // The RM is answered, so that it keeps no record of a call nobody waits for.
  const auto answer = only<AllocResponse>(env.take_sent(), Address::controller());
  EXPECT_EQ(answer.id, 6u);
  EXPECT_EQ(answer.status, Status::ErrUnreach);
  connect_rm();
  EXPECT_TRUE(instantiations().empty()) << "a withdrawn request was granted";
}

}  // namespace
}  // namespace pmixflow::test::scheduler_tests
