// Random node failures (core/trace/node_failures.hpp): drawn alike from one seed, within the
// trace's span, a node failing and returning in turn, at the rates asked for; and the ranks a
// job's rank_map places, which its lost work is counted by.
#include <cmath>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/results/failures.hpp"
#include "pmixflow/trace/node_failures.hpp"

namespace pmixflow {
namespace {

std::vector<NodeId> mtbf_nodes(NodeId count) {
  std::vector<NodeId> out;
  for (NodeId n = 1; n <= count; ++n) out.push_back(n);
  return out;
}

TEST(NodeFailures, TheSameSeedDrawsTheSameFailuresAndAnotherSeedOthers) {
  const NodeFailureModel model{100, 20};
  const FailureSpan span{1, 1001};
  const auto a = draw_node_failures(model, 7, mtbf_nodes(8), span);
  const auto b = draw_node_failures(model, 7, mtbf_nodes(8), span);
  const auto c = draw_node_failures(model, 8, mtbf_nodes(8), span);
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].node, b[i].node);
    EXPECT_EQ(a[i].fault, b[i].fault);
  }
  EXPECT_TRUE(a.size() != c.size() || a.front().at != c.front().at);
}

TEST(NodeFailures, EachNodeFailsWithinTheSpanAndReturnsBeforeItFailsAgain) {
  const FailureSpan span{5, 505};
  const auto drawn = draw_node_failures(NodeFailureModel{50, 10}, 3, mtbf_nodes(4), span);
  std::map<NodeId, std::vector<FaultAt>> by_node;
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(drawn[i - 1].at, drawn[i].at);  // in time order
    }
    EXPECT_FALSE(drawn[i].when);
    by_node[drawn[i].node].push_back(drawn[i]);
  }
  ASSERT_EQ(by_node.size(), 4u);
  for (const auto& [node, faults] : by_node) {
    ASSERT_EQ(faults.size() % 2, 0u) << node;  // every failure is repaired, even past the span
    for (std::size_t i = 0; i < faults.size(); ++i) {
      EXPECT_EQ(faults[i].fault, i % 2 == 0 ? Fault::NodeDies : Fault::NodeReturns);
      if (i % 2 == 0) {
        EXPECT_GT(faults[i].at, span.from);
        EXPECT_LE(faults[i].at, span.until);
      }
    }
  }
}

TEST(NodeFailures, WithoutARepairTimeAFailedNodeNeverReturns) {
  const auto drawn = draw_node_failures(NodeFailureModel{10, std::nullopt}, 1, mtbf_nodes(16), FailureSpan{0, 1000});
  EXPECT_EQ(drawn.size(), 16u);  // each node fails once (1000 s at a mean of 10: all but surely)
  for (const auto& f : drawn) EXPECT_EQ(f.fault, Fault::NodeDies);
}

TEST(NodeFailures, TimesUpAndDownHaveTheMeansAskedFor) {
  const auto drawn = draw_node_failures(NodeFailureModel{100, 25}, 11, mtbf_nodes(50), FailureSpan{0, 200000});
  std::map<NodeId, double> last;  // each node's last repair (or the span's start)
  double up = 0, down = 0;
  std::size_t failures = 0, repairs = 0;
  for (const auto& f : drawn) {
    if (f.fault == Fault::NodeDies) {
      up += f.at - last[f.node];
      ++failures;
    } else {
      down += f.at - last[f.node];
      ++repairs;
    }
    last[f.node] = f.at;
  }
  ASSERT_GT(failures, 10000u);
  EXPECT_NEAR(up / static_cast<double>(failures), 100, 3);
  EXPECT_NEAR(down / static_cast<double>(repairs), 25, 1);
}

TEST(NodeFailures, TheSpanRunsFromTheFirstSubmissionToTheLastPlusTheLongestEstimate) {
  SwfTrace trace;
  for (const auto& [submit, estimate] : {std::pair{0.0, 100.0}, {50.0, 3000.0}, {400.0, 10.0}}) {
    SwfJob job;
    job.submit = submit;
    job.runtime = estimate / 2;
    job.estimate = estimate;
    trace.jobs.push_back(job);
  }
  const FailureSpan span = failure_span(trace, 1);
  EXPECT_EQ(span.from, 1);
  EXPECT_EQ(span.until, 1 + 400 + 3000);
}

TEST(NodeFailures, ARankMapCountsItsRanks) {
  EXPECT_EQ(rank_count("n01:0-3,n02:4-7"), 8u);
  EXPECT_EQ(rank_count("n01:0"), 1u);
  EXPECT_EQ(rank_count("n01:0-3,n02:4"), 5u);
  EXPECT_EQ(rank_count(""), 0u);
  EXPECT_EQ(rank_count("n01:3-1"), 0u);  // unreadable: counted as nothing rather than wrapped
  EXPECT_EQ(rank_count("n01"), 0u);
}

}  // namespace
}  // namespace pmixflow
