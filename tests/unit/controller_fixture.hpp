// What every controller test starts from: a Controller on a scripted Env over a small cluster,
// and the helpers that drive it as the scheduler, a requestor or a daemon would.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fake_env.hpp"
#include "pmixflow/roles/controller.hpp"

namespace pmixflow::test::controller_tests {

inline Cluster small_cluster() {
  return Cluster({{"head", 8, false}, {"n01", 8, true}, {"n02", 8, true}, {"n03", 8, true}, {"n04", 8, true}});
}

inline App sleep_app(std::uint32_t np, int seconds) {
  App app;
  app.cmd = "sleep";
  app.argv = {std::to_string(seconds)};
  app.maxprocs = np;
  return app;
}

// PMIX_ALLOC_NODE_LIST alone: a request naming nodes.
inline InfoList node_list(std::string list) {
  InfoList info;
  info.add(key::ALLOC_NODE_LIST, std::move(list));
  return info;
}

inline const Proc kTool{"tool", 0};
inline const Proc kMallory{"mallory", 0};

inline InfoList schedulers_connect() {
  InfoList info;
  info.add(key::SERVER_SCHEDULER, true);
  return info;
}

class ControllerTest : public ::testing::Test {
 protected:
  Cluster cluster = small_cluster();
  FakeEnv env{Address::controller()};
  std::unique_ptr<Controller> ctl;

  void make(ControllerConfig config = {}) {
    ctl = std::make_unique<Controller>(env, cluster, std::move(config));
    ctl->start();
    env.take_sent();
  }
  // Default set-up: started, and the scheduler attached by connecting to us.
  void SetUp() override { make(); }
  void attach() {
    ctl->handle(Address::scheduler(), ConnectRequest{100, Proc{"scheduler", 0}, schedulers_connect()});
    ASSERT_TRUE(ctl->scheduler_attached());
    env.take_sent();
  }

  // PMIx_Session_control from the scheduler.
  void from_scheduler(std::uint64_t id, std::uint32_t session, InfoList directives) {
    ctl->handle(Address::scheduler(),
                SessionCtrlRequest{id, session, std::move(directives), Proc{"scheduler", 0}, "c" + std::to_string(id)});
  }
  static InfoList instantiate(std::string nodes, std::string alloc_id, std::vector<App> apps = {},
                              InfoList extra_resources = {}) {
    InfoList res;
    res.add(key::ALLOC_NODE_LIST, std::move(nodes)).add(key::ALLOC_ID, std::move(alloc_id));
    for (auto& item : extra_resources.items) res.items.push_back(std::move(item));
    InfoList d;
    d.add(key::SESSION_INSTANTIATE, true).add(key::SESSION_RESOURCES, std::move(res));
    if (!apps.empty()) d.add(key::SESSION_APP, std::move(apps));
    return d;
  }
  static InfoList op(std::string_view k) {
    InfoList d;
    d.add(k, true);
    return d;
  }
  // The scheduler answers every allocation request in `sent` forwarded to it: the requestors
  // have their answers, and nothing of theirs is outstanding any more.
  void grant_forwarded(const std::vector<Sent>& sent) {
    for (const auto& s : sent)
      if (const auto* req = std::get_if<AllocRequest>(&s.msg); req && s.to == Address::scheduler())
        ctl->handle(Address::scheduler(), AllocResponse{req->id, Status::Success, {}, req->corr});
    env.take_sent();
  }
  // The single SessionCtrlResponse the scheduler got for call `id`.
  SessionCtrlResponse answer_to_scheduler(std::uint64_t id) {
    const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::scheduler());
    EXPECT_EQ(r.id, id);
    return r;
  }
  void daemons_ready(std::initializer_list<NodeId> nodes) {
    for (NodeId n : nodes) ctl->handle(Address::daemon(n), DaemonReady{n});
  }
  // No scheduler: the controller serves allocation requests itself, over a DVM of `nodes`
  // (besides the head node), all of them up. Outbox empty.
  void serve_dvm(std::initializer_list<NodeId> nodes) {
    make(ControllerConfig{true, NoSchedulerMode::Serve, std::vector<NodeId>(nodes)});
    daemons_ready(nodes);
    env.take_sent();
  }
  // A DVM of `nodes` (besides the head node), all of them up, and the scheduler attached: jobs
  // spawned into the pool run there; requests go to the scheduler. Outbox empty.
  void scheduled_dvm(std::initializer_list<NodeId> nodes) {
    make(ControllerConfig{true, NoSchedulerMode::Hold, std::vector<NodeId>(nodes)});
    daemons_ready(nodes);
    env.take_sent();
    attach();
  }
  // A RELEASE naming nodes, from the tool through requestor `who`.
  void release_nodes(std::uint64_t id, std::string list, std::uint32_t who = 1) {
    ctl->handle(Address::requestor(who),
                AllocRequest{id, Directive::Release, node_list(std::move(list)), kTool, "rel#" + std::to_string(id)});
  }
  // A NEW reservation of nodes, served by the controller itself in serve mode.
  void reserve_nodes(std::uint64_t id, std::string list) {
    ctl->handle(Address::requestor(1),
                AllocRequest{id, Directive::New, node_list(std::move(list)), kTool, "new#" + std::to_string(id)});
  }
  // Instantiates session `session` with one job of `np` procs on `nodes`, brings the daemons
  // up and the procs started; returns the job's nspace. Leaves nothing in the outbox.
  // `directives` are added beside INSTANTIATE (PMIX_REQUESTOR, PMIX_SESSION_SEP, ...).
  std::string running_session(std::uint32_t session, std::string nodes, std::initializer_list<NodeId> ids,
                              std::uint32_t np, InfoList extra = {}, InfoList directives = {}) {
    InfoList d =
        instantiate(std::move(nodes), "alloc-" + std::to_string(session), {sleep_app(np, 100)}, std::move(extra));
    for (auto& item : directives.items) d.items.push_back(std::move(item));
    from_scheduler(1, session, std::move(d));
    daemons_ready(ids);
    const auto launches = all_of<LaunchProcs>(env.take_sent());
    EXPECT_EQ(launches.size(), ids.size());
    for (NodeId n : ids)
      ctl->handle(Address::daemon(n), ProcsStarted{launches.at(0).second.nspace, n, Status::Success});
    const auto r = answer_to_scheduler(1);
    EXPECT_EQ(r.status, Status::Success);
    return launches.at(0).second.nspace;
  }

  // ---- helpers for the session lifecycle, spawns and activation
  static InfoList with(InfoList d, std::string_view k, Value v) {
    d.add(k, std::move(v));
    return d;
  }
  static InfoList owned(InfoList d, const Proc& owner) { return with(std::move(d), key::REQUESTOR, owner); }
  // PMIx_Session_control from requestor `who`, talking to the controller directly.
  void from_requestor(std::uint32_t who, std::uint64_t id, std::uint32_t session, InfoList directives, Proc caller) {
    ctl->handle(Address::requestor(who),
                SessionCtrlRequest{id, session, std::move(directives), std::move(caller), "r" + std::to_string(id)});
  }
  // The single SessionCtrlResponse requestor `who` got for call `id`.
  SessionCtrlResponse answer_to_requestor(std::uint32_t who, std::uint64_t id) {
    const auto r = only<SessionCtrlResponse>(env.take_sent(), Address::requestor(who));
    EXPECT_EQ(r.id, id);
    return r;
  }
  // A reservation (no apps) of `owner`, its daemons up. Outbox empty.
  void reservation(std::uint32_t session, std::string nodes, std::initializer_list<NodeId> ids, const Proc& owner) {
    from_scheduler(50 + session, session,
                   owned(instantiate(std::move(nodes), "alloc-" + std::to_string(session)), owner));
    daemons_ready(ids);
    env.take_sent();
  }
  static SpawnRequest spawn(std::uint64_t id, std::uint32_t np, InfoList job_info, Proc caller = kTool) {
    return SpawnRequest{id, {sleep_app(np, 100)}, std::move(job_info), std::move(caller), "sp#" + std::to_string(id)};
  }
  // job_info carrying PMIX_SPAWN_ALLOC: the directive and what a standalone request would carry.
  static InfoList spawn_alloc(Directive d, InfoList request) {
    request.add(key::ALLOC_REQ_DIRECTIVE, d);
    InfoList job_info;
    job_info.add(key::SPAWN_ALLOC, std::move(request));
    return job_info;
  }
  static InfoList in_session(std::uint32_t session) { return with({}, key::SESSION_ID, session); }
  static InfoList cpus(std::uint64_t n) { return with({}, key::ALLOC_NUM_CPUS, n); }
  // Sends `req` from requestor 1, expects a launch on exactly `ids`, starts it there and expects
  // the spawn answered with success. Returns the job's nspace. Outbox empty.
  std::string spawned(SpawnRequest req, std::initializer_list<NodeId> ids) {
    const std::uint64_t id = req.id;
    ctl->handle(Address::requestor(1), std::move(req));
    const auto launches = all_of<LaunchProcs>(env.take_sent());
    EXPECT_EQ(launches.size(), ids.size());
    if (launches.empty()) return "";
    std::size_t i = 0;
    for (NodeId n : ids) {
      if (i < launches.size()) {
        EXPECT_EQ(launches[i++].first, Address::daemon(n));
      }
      ctl->handle(Address::daemon(n), ProcsStarted{launches[0].second.nspace, n, Status::Success});
    }
    const auto r = only<SpawnResponse>(env.take_sent(), Address::requestor(1));
    EXPECT_EQ(r.id, id);
    EXPECT_EQ(r.status, Status::Success);
    EXPECT_EQ(r.nspace, launches[0].second.nspace);
    return launches[0].second.nspace;
  }
  // `sent` tells `to`, and nobody else, that the DVM changed: PMIX_DVM_IS_READY.
  static void expect_ready_event_to(const std::vector<Sent>& sent, Address to) {
    const auto ready = all_of<Notification>(sent);
    ASSERT_EQ(ready.size(), 1u);
    EXPECT_EQ(ready[0].first, to);
    EXPECT_EQ(ready[0].second.code, Status::DvmIsReady);
  }
  // An activation request from requestor 1 for `host`.
  void activate(std::uint64_t id, std::string host, InfoList extra = {}, Proc caller = kTool) {
    InfoList info = extra;
    if (!host.empty()) info.add(key::HOST, std::move(host));
    ctl->handle(Address::requestor(1),
                AllocRequest{id, Directive::Activate, std::move(info), std::move(caller), "act#" + std::to_string(id)});
  }
  // The signals sent for `nspace`, as (daemon node, signal), in sending order.
  static std::vector<std::pair<NodeId, int>> signals(const std::vector<Sent>& sent, const std::string& nspace) {
    std::vector<std::pair<NodeId, int>> out;
    for (const auto& [to, sig] : all_of<SignalProcs>(sent))
      if (sig.nspace == nspace) out.emplace_back(to.index, sig.signal);
    return out;
  }
  static std::vector<InfoList> job_records(const SessionCtrlRequest& complete) {
    std::vector<InfoList> jobs;
    for (const auto& item : complete.directives.items)
      if (item.key == key::JOB_INFO_ARRAY) jobs.push_back(std::get<InfoList>(item.value));
    return jobs;
  }
  // The COMPLETEs sent to the scheduler in `sent`, by session id.
  static std::vector<std::uint32_t> completed_sessions(const std::vector<Sent>& sent) {
    std::vector<std::uint32_t> out;
    for (const auto& [to, req] : all_of<SessionCtrlRequest>(sent))
      if (to == Address::scheduler() && req.directives.flag(key::SESSION_COMPLETE)) out.push_back(req.session_id);
    return out;
  }
  using Signals = std::vector<std::pair<NodeId, int>>;
};

}  // namespace pmixflow::test::controller_tests
