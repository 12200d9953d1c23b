// Conservative backfilling against a hand-made SchedulingView: hand-computed reservations, the
// cases where it and EASY part ways, and a bare event loop checking its promise that no
// queued request starts later than the first reservation it was given.
#include "pmixflow/policies/conservative.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "fake_view.hpp"
#include "pmixflow/policies/easy.hpp"

namespace pmixflow {
namespace {

// 10 processors, 6 of them held until t=100. A (8 cpus, 50 s) is reserved at 100, B (9 cpus,
// 100 s) after it at 150: [100,150) leaves 2 free, [150,250) leaves 1.
FakeView two_reservations() {
  FakeView v;
  v.total = 10;
  v.run(100, 6, 0, 100);
  v.queue_job(1, 8, 50);
  v.queue_job(2, 9, 100);
  return v;
}

TEST(ConservativePolicy, EmptyQueueStartsNothing) {
  FakeView v;
  v.total = 10;
  ConservativePolicy p;
  EXPECT_EQ(p.name(), "conservative");
  EXPECT_EQ(p.next(v), std::nullopt);
  v.run(1, 4, 0, 10);
  EXPECT_EQ(p.next(v), std::nullopt);
}

TEST(ConservativePolicy, HeadThatFitsNowStarts) {
  FakeView v;
  v.total = 10;
  v.queue_job(1, 4, 100);
  v.queue_job(2, 4, 100);
  v.queue_job(3, 4, 100);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), 1u);
  v.start(1);
  EXPECT_EQ(p.next(v), 2u);
  v.start(2);
  EXPECT_EQ(p.next(v), std::nullopt);  // 2 free: request 3 waits for t=100
  EXPECT_EQ(p.reserved_start(3), 100.0);
  EXPECT_EQ(p.reserved_start(1), std::nullopt);  // started
}

TEST(ConservativePolicy, ReservationsFollowTheEstimates) {
  FakeView v = two_reservations();
  v.queue_job(3, 2, 1000);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 100.0);
  EXPECT_EQ(p.reserved_start(2), 150.0);
  // 2 cpus for 1000 s: [150,250) has only 1 free, so after B's estimate.
  EXPECT_EQ(p.reserved_start(3), 250.0);
}

TEST(ConservativePolicy, DoesNotBackfillWhatDelaysALaterReservation) {
  // C (2 cpus, 1000 s) fits now and uses only the head's 2 extra processors, so EASY starts
  // it; but it would still run at 150, when B holds 9 of the 10 processors.
  FakeView v = two_reservations();
  v.queue_job(3, 2, 1000);
  EasyPolicy easy;
  EXPECT_EQ(easy.next(v), 3u);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), std::nullopt);
}

TEST(ConservativePolicy, BackfillsWhatDelaysNobody) {
  // C (2 cpus, 150 s) ends as B's reservation starts; A's [100,150) leaves it room.
  FakeView v = two_reservations();
  v.queue_job(3, 2, 150);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), 3u);
  v.start(3);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 100.0);
  EXPECT_EQ(p.reserved_start(2), 150.0);
}

TEST(ConservativePolicy, AJobEndingExactlyAtAReservationMayStart) {
  FakeView v = two_reservations();
  v.queue_job(3, 4, 100.5);  // would hold 4 of [100,150)'s 2
  v.queue_job(4, 4, 100);    // ends as A starts
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), 4u);
  v.start(4);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(3), 250.0);
}

TEST(ConservativePolicy, ARequestLeavingTheQueueLetsTheOthersMoveUp) {
  FakeView v = two_reservations();
  v.queue_job(3, 2, 1000);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(3), 250.0);
  std::erase_if(v.waiting, [](const auto& q) { return q.key == 2; });  // B is cancelled
  EXPECT_EQ(p.next(v), 3u);                                            // A's [100,150) leaves it the 2 it needs
}

TEST(ConservativePolicy, TiesAreDeterministic) {
  // Two allocations end together: the order they are listed in does not matter.
  for (bool swapped : {false, true}) {
    FakeView v;
    v.total = 10;
    v.run(swapped ? 8 : 7, 5, 0, 50);
    v.run(swapped ? 7 : 8, 5, 0, 50);
    v.queue_job(1, 10, 10);
    v.queue_job(2, 5, 60);
    ConservativePolicy p;
    EXPECT_EQ(p.next(v), std::nullopt);
    EXPECT_EQ(p.reserved_start(1), 50.0);
    EXPECT_EQ(p.reserved_start(2), 60.0);
  }
  // Several requests could start now: queue order decides, not the keys.
  FakeView v;
  v.total = 10;
  v.queue_job(9, 6, 10);
  v.queue_job(3, 6, 10);
  v.queue_job(5, 4, 10);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), 9u);
  v.start(9);
  EXPECT_EQ(p.next(v), 5u);  // 3 waits for t=10; 5 ends by then
  v.start(5);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(3), 10.0);
}

TEST(ConservativePolicy, NoEstimateHoldsTheProcessorsForEver) {
  FakeView v;
  v.total = 10;
  v.run(100, 4, 0, 100);
  v.queue_job(1, 8, 0);    // from 100 on, for ever: 2 left
  v.queue_job(2, 3, 200);  // would need 3 of those 2: never
  v.queue_job(3, 2, 0);    // the 2 left, now and for ever
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), 3u);
  EXPECT_EQ(p.reserved_start(1), 100.0);
  EXPECT_EQ(p.reserved_start(2), std::nullopt);
  v.start(3);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 100.0);
  EXPECT_EQ(p.reserved_start(2), std::nullopt);  // 3 cpus are never free again

  // A running allocation without a limit never gives its processors back: a request that
  // needs them has no reservation and holds nobody up.
  FakeView w;
  w.total = 10;
  w.run(100, 6, 0, kForever);
  w.queue_job(1, 8, 10);
  w.queue_job(2, 4, 1e6);
  ConservativePolicy q;
  EXPECT_EQ(q.next(w), 2u);
  EXPECT_EQ(q.reserved_start(1), std::nullopt);
}

TEST(ConservativePolicy, AnEarlyEndNeverTakesAReservationAway) {
  // 10 processors: 6 until t=10, 4 until t=30. X (10 cpus, 10 s) is reserved at 30, B (4 cpus,
  // 20 s) backfilled into [10,30).
  FakeView v;
  v.total = 10;
  v.run(101, 6, 0, 10);
  v.run(102, 4, 0, 30);
  v.queue_job(1, 10, 10);
  v.queue_job(2, 4, 20);
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 30.0);
  EXPECT_EQ(p.reserved_start(2), 10.0);
  // The 4 end at t=5. Planning afresh in queue order would put X at [10,20) and push B to 20;
  // compression keeps B's reservation, and B fits in it from now on.
  v.time = 5;
  v.end(102);
  EXPECT_EQ(p.next(v), 2u);
  v.start(2);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 25.0);  // moved up from 30
}

TEST(ConservativePolicy, ARequestThatDoesNotFitItsReservationKeepsIt) {
  // A's count fits now, its layout does not: it keeps [now, now+100) and B may only take what
  // that leaves.
  FakeView v;
  v.total = 10;
  v.queue_job(1, 6, 100);
  v.queue_job(2, 4, 50);
  v.queue_job(3, 1, 10);
  v.blocked = {1};
  ConservativePolicy p;
  EXPECT_EQ(p.next(v), 2u);
  v.start(2);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 0.0);
  EXPECT_EQ(p.reserved_start(3), 50.0);
  // Still blocked at t=10: A's reservation went by, it is placed again from now on, first.
  v.time = 10;
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 10.0);
  EXPECT_EQ(p.reserved_start(3), 50.0);
  v.blocked.clear();
  EXPECT_EQ(p.next(v), 1u);
}

TEST(ConservativePolicy, WholeNodeRequestsPlanWithAllTheirSlotsAndWaitForTheLayout) {
  // 4 nodes of 8 slots; 4 slots run until t=100, spread over two nodes.
  FakeView v;
  v.total = 32;
  v.run(100, 4, 0, 100);
  v.whole_free_nodes = 2;
  v.waiting.push_back(QueuedRequest{1, 0, 24, 3, 50, 0, false});  // 3 nodes: 24 slots
  v.waiting.push_back(QueuedRequest{2, 0, 32, 4, 50, 0, false});  // 4 nodes
  v.queue_job(3, 4, 100);  // the 4 slots the 3 nodes leave, until 2's reservation
  v.queue_job(4, 5, 10);   // more than that
  ConservativePolicy p;
  // 28 slots are free, so 1's reservation is now, but it does not fit: it keeps it.
  EXPECT_EQ(p.next(v), 3u);
  v.start(3);
  EXPECT_EQ(p.next(v), std::nullopt);
  EXPECT_EQ(p.reserved_start(1), 0.0);
  EXPECT_EQ(p.reserved_start(2), 100.0);  // all 32 slots once the 4 and 3 end
  EXPECT_EQ(p.reserved_start(4), 50.0);   // when 1 ends
  // The 3 nodes are free at last.
  v.whole_free_nodes = 3;
  EXPECT_EQ(p.next(v), 1u);
}

// ---- The promise, in a bare event loop ----

struct QueuedJob {
  std::uint64_t key;
  double submit;
  std::uint64_t cpus;
  double estimate;  // 0: none
  double runtime;   // <= estimate when there is one
};

struct Outcome {
  std::map<std::uint64_t, double> first_reservation;
  std::map<std::uint64_t, double> started;
  std::size_t broken = 0;  // starts later than the first reservation
  std::size_t raised = 0;  // reservations that moved later
};

// Arrivals and ends in time order; after each instant, the policy is asked until it says no,
// as the scheduler does. Starts are checked against the first reservation each request got.
Outcome simulate(const std::vector<QueuedJob>& jobs, std::uint64_t total) {
  ConservativePolicy policy;
  FakeView v;
  v.total = total;
  Outcome out;
  std::map<std::uint64_t, double> ends;  // running key -> actual end
  std::map<std::uint64_t, double> current;
  std::size_t next_arrival = 0;
  while (next_arrival < jobs.size() || !ends.empty()) {
    double t = next_arrival < jobs.size() ? jobs[next_arrival].submit : kForever;
    for (const auto& [key, end] : ends) t = std::min(t, end);
    v.time = t;
    for (auto it = ends.begin(); it != ends.end();) {
      if (it->second == t) {
        v.end(it->first);
        it = ends.erase(it);
      } else {
        ++it;
      }
    }
    for (; next_arrival < jobs.size() && jobs[next_arrival].submit == t; ++next_arrival)
      v.queue_job(jobs[next_arrival].key, jobs[next_arrival].cpus, jobs[next_arrival].estimate);
    while (auto key = policy.next(v)) {
      v.start(*key);
      const QueuedJob& job = jobs[*key];
      ends[*key] = t + job.runtime;
      out.started[*key] = t;
      if (!out.first_reservation.count(*key)) out.first_reservation[*key] = t;
      if (t > out.first_reservation[*key]) ++out.broken;
    }
    for (const auto& q : v.waiting) {
      const auto r = policy.reserved_start(q.key);
      if (!r) continue;
      if (!out.first_reservation.count(q.key)) out.first_reservation[q.key] = *r;
      if (current.count(q.key) && *r > current[q.key]) ++out.raised;
      current[q.key] = *r;
    }
    if (ends.empty() && next_arrival == jobs.size()) {
      EXPECT_TRUE(v.waiting.empty()) << v.waiting.size() << " requests never started";
      break;
    }
  }
  return out;
}

// Runtimes within the estimates, unless `overrun`: then some run past them by up to 20 s.
std::vector<QueuedJob> workload(std::uint32_t seed, std::size_t n, std::uint64_t total, bool overrun = false) {
  std::mt19937 rng(seed);
  std::vector<QueuedJob> jobs;
  double t = 0;
  for (std::uint64_t key = 0; key < n; ++key) {
    t += rng() % 40;  // equal submit times happen
    const std::uint64_t cpus = rng() % 4 == 0 ? 1 + rng() % total : 1 + rng() % (total / 4);
    const bool no_estimate = rng() % 30 == 0;
    const double estimate = no_estimate ? 0 : 10 + rng() % 600;
    double runtime;
    switch (rng() % 3) {
      case 0: runtime = no_estimate ? 50 : estimate; break;                                    // ends at its estimate
      case 1: runtime = std::min<double>(1 + rng() % 20, no_estimate ? 20 : estimate); break;  // early
      default: runtime = no_estimate ? 1 + rng() % 300 : 1 + rng() % static_cast<std::uint32_t>(estimate);
    }
    if (overrun && !no_estimate && rng() % 5 == 0) runtime = estimate + 1 + rng() % 20;
    jobs.push_back(QueuedJob{key, t, no_estimate ? std::min<std::uint64_t>(cpus, 2) : cpus, estimate, runtime});
  }
  return jobs;
}

TEST(ConservativePolicy, NoRequestStartsLaterThanItsFirstReservation) {
  std::size_t backfilled = 0;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    const auto jobs = workload(seed, 300, 32);
    const Outcome out = simulate(jobs, 32);
    EXPECT_EQ(out.started.size(), jobs.size()) << "seed " << seed;
    EXPECT_EQ(out.broken, 0u) << "seed " << seed;
    EXPECT_EQ(out.raised, 0u) << "seed " << seed;
    // Backfilling did happen: some request started before one queued ahead of it.
    for (std::size_t i = 1; i < jobs.size(); ++i)
      if (out.started.at(i) < out.started.at(i - 1)) ++backfilled;
  }
  EXPECT_GT(backfilled, 100u);
}

TEST(ConservativePolicy, RequestsRunningPastTheirEstimatesHoldNobodyUpForEver) {
  // The plan breaks (a reservation comes due while its processors are still busy) and is
  // mended; every request still starts.
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const auto jobs = workload(seed, 300, 32, true);
    EXPECT_EQ(simulate(jobs, 32).started.size(), jobs.size()) << "seed " << seed;
  }
}

}  // namespace
}  // namespace pmixflow
