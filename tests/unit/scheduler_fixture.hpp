// What every scheduler test starts from: a Scheduler with a built-in policy on a scripted Env,
// its accounting read back from its events, and the helpers that play the RM and the requestors.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fake_env.hpp"
#include "ledger_sink.hpp"
#include "pmixflow/roles/scheduler.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow::test::scheduler_tests {

inline Cluster small_cluster() {
  return Cluster({{"head", 8, false}, {"n01", 8, true}, {"n02", 8, true}, {"n03", 8, true}, {"n04", 8, true}});
}

inline const Proc kTool{"tool", 0};

inline constexpr char kFcfs[] = "fcfs";
inline constexpr char kPriorityPreempt[] = "priority-preempt";

template <const char* PolicyName>
class SchedulerFixture : public ::testing::Test {
 protected:
  Cluster cluster = small_cluster();
  FakeEnv env{Address::scheduler()};
  Scheduler sched{env, cluster, make_builtin_policy(PolicyName), config()};
  // The scheduler's accounting as the run's outputs read it from its events.
  test::SchedulerSink accounts;
  const StableVector<AllocationAccount>& records() const { return accounts.ledger.accounts(); }

  static SchedulerConfig config() {
    SchedulerConfig c;
    c.queue_priorities = {{"low", 0}, {"high", 10}};
    c.batch_delay = 0;  // a pass on every message: each test sees the decision its message brings
    return c;
  }

  void SetUp() override {
    env.attach(accounts, "scheduler");
    sched.start();
    env.take_sent();
  }
  void connect_rm() {
    sched.handle(Address::controller(), ConnectResponse{1, Status::Success});
    ASSERT_TRUE(sched.rm_connected());
  }

  static AllocRequest request(std::uint64_t id, Directive d, InfoList info, Proc caller = kTool) {
    return AllocRequest{id, d, std::move(info), std::move(caller), "req#" + std::to_string(id)};
  }
  static InfoList cpus(std::uint64_t n, std::string req_id = "") {
    InfoList info;
    info.add(key::ALLOC_NUM_CPUS, n);
    if (!req_id.empty()) info.add(key::ALLOC_REQ_ID, std::move(req_id));
    return info;
  }
  static InfoList alloc_ref(const std::string& alloc_id) {
    InfoList info;
    info.add(key::ALLOC_ID, alloc_id);
    return info;
  }
  // The INSTANTIATE orders sent to the controller since the last look.
  std::vector<SessionCtrlRequest> instantiations() {
    std::vector<SessionCtrlRequest> out;
    for (auto& [to, req] : all_of<SessionCtrlRequest>(env.take_sent())) {
      EXPECT_EQ(to, Address::controller());
      EXPECT_TRUE(req.directives.flag(key::SESSION_INSTANTIATE));
      out.push_back(req);
    }
    return out;
  }
  // Requestor 1's request `req`, and the INSTANTIATE orders it gives.
  std::vector<SessionCtrlRequest> instantiations_of(AllocRequest req) {
    sched.handle(Address::requestor(1), std::move(req));
    return instantiations();
  }
  static const InfoList& resources(const SessionCtrlRequest& inst) {
    static const InfoList none;
    const auto* res = inst.directives.get<InfoList>(key::SESSION_RESOURCES);
    EXPECT_NE(res, nullptr);
    return res ? *res : none;
  }
  static std::string str(const InfoList& info, std::string_view k) {
    const auto* s = info.get<std::string>(k);
    return s ? *s : "<missing " + std::string(k) + ">";
  }
  // Requestor 1 asks for `n` cpus, the RM instantiates it; returns the alloc id. Outbox empty.
  std::string granted(std::uint64_t id, std::uint64_t n, Proc caller = kTool, InfoList extra = {}) {
    InfoList info = cpus(n);
    for (auto& item : extra.items) info.items.push_back(std::move(item));
    sched.handle(Address::requestor(1), request(id, Directive::New, std::move(info), std::move(caller)));
    const auto inst = instantiations();
    EXPECT_EQ(inst.size(), 1u);
    if (inst.empty()) return "";
    sched.handle(Address::controller(), SessionCtrlResponse{inst[0].id, Status::Success, {}, inst[0].corr});
    const auto answer = only<AllocResponse>(env.take_sent(), Address::requestor(1));
    EXPECT_EQ(answer.status, Status::Success);
    return str(answer.info, key::ALLOC_ID);
  }
  // The RM reports the session of `alloc_id` (session `session`) reclaimed.
  void complete(std::uint32_t session, const std::string& alloc_id, InfoList jobs = {}) {
    InfoList d;
    d.add(key::SESSION_COMPLETE, true).add(key::SESSION_ID, session).add(key::ALLOC_ID, alloc_id);
    for (auto& item : jobs.items) d.items.push_back(std::move(item));
    sched.handle(Address::controller(), SessionCtrlRequest{900 + session, session, std::move(d), Proc{"prte", 0}, "c"});
  }
  static InfoList job_ended(Status status) {
    InfoList job, jobs;
    job.add(key::NSPACE, std::string("job")).add(key::JOB_TERM_STATUS, status);
    jobs.add(key::JOB_INFO_ARRAY, job);
    return jobs;
  }
};

using SchedulerTest = SchedulerFixture<kFcfs>;
using PreemptingSchedulerTest = SchedulerFixture<kPriorityPreempt>;

}  // namespace pmixflow::test::scheduler_tests
