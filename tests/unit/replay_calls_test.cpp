// A replayed trace's requestors hold its jobs, not its calls: each call is built when it is
// due, goes out as the whole call a scenario would have planned, and the job is dropped once
// asked. What the log (and so jobs.csv) says of each call is what it said when calls were
// planned whole.
#include "pmixflow/trace/replay_calls.hpp"

#include <gtest/gtest.h>

#include "fake_env.hpp"
#include "ledger_sink.hpp"
#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/trace/deployment.hpp"
#include "pmixflow/trace/run.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using test::all_of;
using test::FakeEnv;

// Jobs 1 and 3 are user 7's, job 2 user 8's; job 3 is submitted in job 1's second.
constexpr const char* kTwoUsersTrace =
    "; MaxNodes: 4\n; MaxProcs: 32\n"
    "1 100 5 60 4 -1 -1 4 90 -1 1 7 1 -1 2 -1 -1 -1\n"
    "2 101 -1 30 8 -1 -1 8 -1 -1 1 8 1 -1 3 -1 -1 -1\n"
    "3 100 0 10 1 -1 -1 1 20 -1 1 7 1 -1 2 -1 -1 -1\n";

Cluster four_nodes() {
  return Cluster({{"head", 8, false}, {"n01", 8, true}, {"n02", 8, true}, {"n03", 8, true}, {"n04", 8, true}});
}

class ReplayCallsTest : public ::testing::Test {
 protected:
  ReplayCallsTest() {
    in.trace_file = dir.write("t.swf", kTwoUsersTrace);
    in.via_daemon = 0.5;
    in.seed = 3;
    in.lenient = true;  // job 3 is listed after a later submission: sorted into place
    workload = load_workload(in);
    plan_replay(workload, in, 4);
    deployment = deploy(workload, in, cluster);
  }

  test::TempDir dir;
  RunInputs in;
  Workload workload;
  Cluster cluster = four_nodes();
  Deployment deployment;
};

TEST_F(ReplayCallsTest, RequestorsHoldTheTracesJobsAndNoCall) {
  EXPECT_TRUE(workload.scenario.calls.empty());
  ASSERT_EQ(deployment.requestors.size(), 2u);
  EXPECT_EQ(deployment.requestors[0].name, "user7");
  EXPECT_TRUE(deployment.requestors[0].plan.empty());
  EXPECT_EQ(deployment.requestors[0].replay.size(), 2u);
  EXPECT_EQ(deployment.requestors[1].replay.size(), 1u);
  EXPECT_DOUBLE_EQ(deployment.last_call, 1 + 1.0);  // the warm-up, then job 2 a second after the first
}

TEST_F(ReplayCallsTest, EachCallIsBuiltWhenDueAndTheJobForgottenOnceAsked) {
  auto calls = deployment.requestors[0].take_calls();
  EXPECT_TRUE(deployment.requestors[0].replay.empty());  // moved into the requestor's source
  ASSERT_TRUE(calls->next_at());
  EXPECT_DOUBLE_EQ(*calls->next_at(), 1.0);  // the warm-up: time 0 of the outputs
  const PlannedCall first = calls->take();
  const auto& req = std::get<AllocRequest>(first.call);
  EXPECT_EQ(req.corr, "job1");
  EXPECT_EQ(req.directive, Directive::New);
  EXPECT_EQ(*req.info.get<std::uint64_t>(key::ALLOC_NUM_CPUS), 4u);
  EXPECT_EQ(*req.info.get<std::string>(key::ALLOC_QUEUE), "2");
  const auto* apps = req.info.get<std::vector<App>>(key::SESSION_APP);
  ASSERT_TRUE(apps && apps->size() == 1);
  EXPECT_EQ(apps->front().cmd, "sleep");
  EXPECT_EQ(apps->front().argv, std::vector<std::string>{"60"});
  EXPECT_EQ(first.notes.recorded_wait, 5.0);
  // Job 3 was submitted in the same second, after job 1 in the trace's order.
  ASSERT_TRUE(calls->next_at());
  EXPECT_GT(*calls->next_at(), 1.0);
  EXPECT_LT(*calls->next_at(), 1.5);
  const PlannedCall second = calls->take();
  EXPECT_EQ(std::get<AllocRequest>(second.call).corr, "job3");
  EXPECT_EQ(second.notes.recorded_wait, 0.0);
  EXPECT_FALSE(calls->next_at());
}

TEST_F(ReplayCallsTest, ARequestorPlacesTheCallsItIsGivenAsJobsAndTheLogSaysWhatTheyAsked) {
  FakeEnv env{Address::requestor(1)};
  test::CallsSink log;
  env.attach(log, "requestor:user8");
  const RequestorDeployment& user8 = deployment.requestors[1];
  const Address via = user8.replay.front().via;
  Requestor r(env, user8.identity, deployment.requestors[1].take_calls());
  r.start();
  env.advance(1.999);
  EXPECT_TRUE(env.take_sent().empty());
  env.advance(0.001);
  const auto sent = all_of<AllocRequest>(env.take_sent());
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].first, via);
  EXPECT_EQ(sent[0].second.corr, "job2");
  ASSERT_EQ(log.ledger.calls().size(), 1u);
  const CallRecord& c = log.at(0);
  EXPECT_EQ(c.line, 4u);
  EXPECT_EQ(c.asked.cpus, 8u);
  EXPECT_EQ(c.asked.profile, "sleep");
  EXPECT_FALSE(c.recorded_wait);  // field 3 is -1: the trace does not say
  EXPECT_NE(c.info().find("pmix.alloc.time"), std::string::npos) << c.info();
}

}  // namespace
}  // namespace pmixflow
