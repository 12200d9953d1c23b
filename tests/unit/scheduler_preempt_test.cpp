// The priority-preempt policy: a higher-priority request terminates a preemptible session of a
// lower one, which is requeued, without anybody being answered twice.
#include "scheduler_fixture.hpp"

namespace pmixflow::test::scheduler_tests {
namespace {

InfoList in_queue(const std::string& queue, bool preemptible) {
  InfoList info;
  info.add(key::ALLOC_QUEUE, queue);
  if (preemptible) info.add(key::ALLOC_PREEMPTIBLE, true);
  return info;
}

TEST_F(PreemptingSchedulerTest, AHigherPriorityRequestTerminatesAPreemptibleSessionAndItIsRequeued) {
  connect_rm();
  const std::string low = granted(1, 32, kTool, in_queue("low", true));  // the whole machine
  env.advance(5);
  InfoList high = cpus(16);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high), Proc{"boss", 0}));
  // Resources are taken back with a TERMINATE (PREEMPT would keep them), nothing granted yet.
  const auto orders = all_of<SessionCtrlRequest>(env.take_sent());
  ASSERT_EQ(orders.size(), 1u);
  EXPECT_EQ(orders[0].second.session_id, 1u);
  EXPECT_TRUE(orders[0].second.directives.flag(key::SESSION_TERMINATE));
  sched.handle(Address::controller(), SessionCtrlResponse{orders[0].second.id, Status::Success, {}, "t"});
  EXPECT_TRUE(env.take_sent().empty());

  env.advance(1);
  complete(1, low, job_ended(Status::ErrJobKilledByCmd));
  const auto sent = env.take_sent();
  const auto inst = all_of<SessionCtrlRequest>(sent);
  ASSERT_EQ(inst.size(), 1u);  // the high request only: the requeued one no longer fits
  EXPECT_EQ(str(resources(inst[0].second), key::ALLOC_ID), "alloc-2");
  const auto& rec = records()[0];
  EXPECT_EQ(rec.preemptions, 1u);
  EXPECT_DOUBLE_EQ(rec.lost_cpu_s, 6.0 * 32);
  EXPECT_LT(rec.started, 0);  // waiting again

  // The high session runs and ends: the requeued request is instantiated again, and its
  // requestor, who had its answer long ago, is not answered a second time.
  sched.handle(Address::controller(), SessionCtrlResponse{inst[0].second.id, Status::Success, {}, "i"});
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::Success);
  env.advance(10);
  complete(2, "alloc-2");
  const auto again = instantiations();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(str(resources(again[0]), key::ALLOC_ID), "alloc-3");
  sched.handle(Address::controller(), SessionCtrlResponse{again[0].id, Status::Success, {}, "i"});
  EXPECT_TRUE(all_of<AllocResponse>(env.take_sent()).empty());
  EXPECT_DOUBLE_EQ(records()[0].started, 16.0);
}

TEST_F(PreemptingSchedulerTest, LosingTheRmDuringAPreemptionAnswersNobodyTwice) {
  connect_rm();
  granted(1, 32, kTool, in_queue("low", true));
  InfoList high = cpus(8);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high)));
  ASSERT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 1u);  // the TERMINATE
  sched.handle(Address::controller(), PeerLost{Address::controller()});
  // The TERMINATE had no caller; the waiting request, sent straight to the scheduler, is
  // answered once: PMIX_ERR_UNREACH, as no session can be made without the RM.
  const auto answers = all_of<AllocResponse>(env.take_sent());
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].first, Address::requestor(2));
  EXPECT_EQ(answers[0].second.status, Status::ErrUnreach);
}

TEST_F(PreemptingSchedulerTest, AJobThatFinishedBeforeTheTerminateIsNotRequeued) {
  connect_rm();
  const std::string low = granted(1, 32, kTool, in_queue("low", true));
  InfoList high = cpus(8);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high)));
  ASSERT_EQ(all_of<SessionCtrlRequest>(env.take_sent()).size(), 1u);
  complete(1, low, job_ended(Status::Success));  // it completed on its own meanwhile
  EXPECT_EQ(records()[0].preemptions, 0u);
  EXPECT_GE(records()[0].ended, 0);
  EXPECT_EQ(instantiations().size(), 1u);  // the high request
}

TEST_F(PreemptingSchedulerTest, ASessionNotGrantedPreemptibleIsNeverTerminated) {
  connect_rm();
  granted(1, 32, kTool, in_queue("low", false));
  InfoList high = cpus(8);
  high.add(key::ALLOC_QUEUE, std::string("high"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(high)));
  EXPECT_TRUE(all_of<SessionCtrlRequest>(env.take_sent()).empty());
}

TEST_F(PreemptingSchedulerTest, AnUnknownQueueIsABadParam) {
  connect_rm();
  InfoList info = cpus(8);
  info.add(key::ALLOC_QUEUE, std::string("gold"));
  sched.handle(Address::requestor(2), request(2, Directive::New, std::move(info)));
  EXPECT_EQ(only<AllocResponse>(env.take_sent(), Address::requestor(2)).status, Status::ErrBadParam);
}

}  // namespace
}  // namespace pmixflow::test::scheduler_tests
