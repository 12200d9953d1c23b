// priority-preempt and the EASY rule it shares, against a hand-made SchedulingView: which
// request goes first, which running allocations are taken back for it, and when none are.
#include "pmixflow/policies/priority_preempt.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "fake_view.hpp"
#include "pmixflow/policies/easy.hpp"

namespace pmixflow {
namespace {

using Keys = std::vector<std::uint64_t>;

TEST(PriorityPreempt, HigherPriorityGoesFirstThenSubmitOrder) {
  FakeView v;
  v.total = 4;
  v.queue_job(1, 4, 100, 0);
  v.queue_job(2, 4, 100, 5);
  v.queue_job(3, 4, 100, 5);
  PriorityPreemptPolicy p;
  EXPECT_EQ(p.next(v), 2u);  // the higher priority, and of the two the earlier submitted
}

TEST(PriorityPreempt, BackfillsAroundTheFirstRequestsReservation) {
  FakeView v;
  v.total = 10;
  v.run(100, 6, 0, 100);
  v.queue_job(1, 2, 500, 0);  // low priority, short of nothing: fits, but would end after 100
  v.queue_job(2, 8, 50, 9);   // the first by priority: reserved at 100 with 2 extra
  v.queue_job(3, 4, 500, 0);  // fits now, ends after 100, more than the extra: waits
  PriorityPreemptPolicy p;
  EXPECT_EQ(p.next(v), 1u);  // 2 cpus fit in the 2 extra
  v.start(1);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_TRUE(p.preempt(v).empty());  // nothing running is preemptible
}

TEST(PriorityPreempt, TakesTheLowestPriorityAndMostRecentFirstAndNoMoreThanNeeded) {
  FakeView v;
  v.total = 16;
  v.run(10, 4, 0, 1000, 1, true);
  v.run(11, 4, 5, 1000, 1, true);   // same priority, started later: less work lost
  v.run(12, 4, 1, 1000, 0, true);   // lowest priority: first to go
  v.run(13, 4, 2, 1000, 0, false);  // never granted PMIX_ALLOC_PREEMPTIBLE
  v.time = 10;
  v.queue_job(1, 8, 100, 5);
  PriorityPreemptPolicy p;
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.preempt(v), (Keys{12, 11}));
}

TEST(PriorityPreempt, NeverTakesEqualOrHigherPriority) {
  FakeView v;
  v.total = 8;
  v.run(10, 4, 0, 1000, 5, true);
  v.run(11, 4, 0, 1000, 7, true);
  v.queue_job(1, 8, 100, 5);
  PriorityPreemptPolicy p;
  EXPECT_TRUE(p.preempt(v).empty());
}

TEST(PriorityPreempt, TakesNothingWhenEverythingItMayTakeIsNotEnough) {
  FakeView v;
  v.total = 8;
  v.run(10, 2, 0, 1000, 0, true);
  v.run(11, 6, 0, 1000, 0, false);
  v.queue_job(1, 8, 100, 5);
  PriorityPreemptPolicy p;
  EXPECT_TRUE(p.preempt(v).empty());  // terminating job 10 would only lose its work
}

TEST(PriorityPreempt, WaitsForWhatIsAlreadyEnding) {
  FakeView v;
  v.total = 8;
  v.run(10, 4, 0, 1000, 0, true);
  v.active.push_back(RunningAllocation{11, 4, 0, 0, 0, false, true});  // being terminated
  v.queue_job(1, 4, 100, 5);
  PriorityPreemptPolicy p;
  EXPECT_TRUE(p.preempt(v).empty());  // job 11's cpus come back: no second victim
  v.queue_job(2, 8, 100, 6);          // now the first wants all eight: job 10 must go too
  EXPECT_EQ(p.preempt(v), (Keys{10}));
}

TEST(Easy, OfJobsEndingTogetherTheSmallerFreeTheHeadsProcessorsFirst) {
  // Jobs 1 (4 cpus) and 2 (2 cpus) both end at 100; 4 cpus are free and the head needs 6. By
  // the reference rule job 2 covers the head, so nothing is extra at the shadow time and a
  // long two-cpu job may not backfill (counting job 1 first would leave 2 extra for it).
  FakeView v;
  v.total = 10;
  v.run(1, 4, 0, 100);
  v.run(2, 2, 0, 100);
  v.queue_job(10, 6, 100);
  v.queue_job(11, 2, 1000);
  EasyPolicy easy;
  EXPECT_EQ(easy.next(v), std::nullopt);
  v.queue_job(12, 2, 100);  // ends by the shadow time: backfills
  EXPECT_EQ(easy.next(v), 12u);
}

}  // namespace
}  // namespace pmixflow
