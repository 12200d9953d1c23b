// pmixflow_disarm_reply (compat.h) against the real library over real sockets: a tool attached
// to two servers, whose job control one server holds while the other, its primary by then,
// goes. 4.2.2 fails the held call PMIX_ERR_COMM_FAILURE as the primary's connection goes and
// leaves its receive posted; the held server's reply, later, would reach the caddy the library
// freed (the fault harness's seed 89: a requestor hanging on a freed mutex, or worse). The
// servers and the tool are forked children (pmix_peer.hpp); the test process never
// initialises PMIx.
#include <signal.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <string>

#include "compat_roles.hpp"
#include "pmix_peer.hpp"
#include "pmixflow/emul/compat.h"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul {
namespace {

using namespace peers;

InfoList answer_to_held() { return InfoList{}.add(PMIX_ALLOC_ID, std::string("answered")); }

// The held server's job control: the first is held until the test says "release", the others
// answered at once.
constexpr const char* kSpawned = "spawned";

void answer_spawn(pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
  char nspace[PMIX_MAX_NSLEN + 1] = {};
  PMIX_LOAD_NSPACE(nspace, kSpawned);
  cbfunc(PMIX_SUCCESS, nspace, cbdata);
}

// The held server's first call, whatever its kind, held until the test says "release"; the
// others answered at once.
struct HeldCall {
  std::mutex mutex;
  int calls = 0;
  std::function<void()> answer;  // the first call's, until released
};
HeldCall held_call;  // the held server's (one per process)

void hold_first_or_answer(std::function<void()> answer_it) {
  std::unique_lock lock(held_call.mutex);
  if (++held_call.calls == 1) {
    held_call.answer = std::move(answer_it);
    script->channel->report("holding");
    return;
  }
  lock.unlock();
  answer_it();
}

pmix_status_t hold_first_job_control(const pmix_proc_t*, const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                                     pmix_info_cbfunc_t cbfunc, void* cbdata) {
  hold_first_or_answer([cbfunc, cbdata] { answer(cbfunc, cbdata); });
  return PMIX_SUCCESS;
}

// Answered with the namespace kSpawned.
pmix_status_t hold_first_spawn(const pmix_proc_t*, const pmix_info_t[], size_t, const pmix_app_t[], size_t,
                               pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
  hold_first_or_answer([cbfunc, cbdata] { answer_spawn(cbfunc, cbdata); });
  return PMIX_SUCCESS;
}

void release_the_held_call() {
  std::lock_guard lock(held_call.mutex);
  if (!held_call.answer) return script->channel->report("released nothing");
  held_call.answer();
  held_call.answer = nullptr;
  script->channel->report("released");
}

enum class Kind { JobControl, Spawn };

// One call of the tool's: how many times the library completed it, and the first outcome
// ("<status> intact" when it is the held server's answer).
struct ToolCall {
  std::atomic<int> completions{0};
  Awaited<std::string> outcome;
};

// As the emulator's hosts do (PmixReturns, session_reply): every completion is disarmed first.
void job_control_done(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
                      pmix_release_cbfunc_t release_fn, void* release_cbdata) {
  pmixflow_disarm_reply(cbdata);
  auto* call = static_cast<ToolCall*>(cbdata);
  ++call->completions;
  Awaited<Reply> reply;
  take_reply(status, info, ninfo, &reply, release_fn, release_cbdata);
  call->outcome.set(describe(reply.wait(0s), answer_to_held()));
}

void spawn_done(pmix_status_t status, char nspace[], void* cbdata) {
  pmixflow_disarm_reply(cbdata);
  auto* call = static_cast<ToolCall*>(cbdata);
  ++call->completions;
  const bool intact = nspace && std::string(nspace) == kSpawned;
  call->outcome.set(std::to_string(status) + (intact ? " intact" : " []"));
}

// A call of `kind` to the tool's primary server.
pmix_status_t ask(Kind kind, ToolCall& call) {
  static PmixInfos dirs = to_pmix(InfoList{}.add(PMIX_ALLOC_REQ_ID, std::string("held")));
  if (kind == Kind::JobControl)
    return PMIx_Job_control_nb(nullptr, 0, dirs.data(), dirs.size(), job_control_done, &call);
  static pmix_app_t app = [] {
    pmix_app_t a;
    PMIX_APP_CONSTRUCT(&a);
    a.cmd = ::strdup("true");
    a.maxprocs = 1;
    return a;
  }();
  return PMIx_Spawn_nb(nullptr, 0, &app, 1, spawn_done, &call);
}

pmix_status_t attach_as_primary(const std::string& uri, pmix_proc_t& server) {
  PmixInfos info(2);
  load_string(info[0], PMIX_SERVER_URI, uri);
  load_flag(info[1], PMIX_PRIMARY_SERVER);
  return PMIx_tool_attach_to_server(nullptr, &server, info.data(), info.size());
}

// The tool: attaches to the held server and asks it (held), then attaches to the other server,
// its primary from then on. Once that one has gone and the held call was released, asks the
// held server again. Every call object lives until the end.
int two_server_tool(Channel& ch, Kind kind, const std::string& dir, const std::string& held_uri,
                    const std::string& primary_uri) {
  PmixInfos init(4);
  load_flag(init[0], PMIX_TOOL_DO_NOT_CONNECT);
  load_string(init[1], PMIX_TOOL_NSPACE, "tool");
  load_rank(init[2], PMIX_TOOL_RANK, 0);
  load_string(init[3], PMIX_SYSTEM_TMPDIR, dir);
  pmix_proc_t me, held, primary;
  if (const pmix_status_t rc = PMIx_tool_init(&me, init.data(), init.size()); rc != PMIX_SUCCESS) {
    ch.report("tool_init " + std::to_string(rc));
    return 1;
  }
  pmixflow_tags_apart();
  ch.leaks_by_the_library("the peer object of the primary server killed under it");
  ToolCall first, second;
  const pmix_status_t at_held = attach_as_primary(held_uri, held);
  const pmix_status_t asked = ask(kind, first);
  const pmix_status_t at_primary = attach_as_primary(primary_uri, primary);
  ch.report("asked attach " + std::to_string(at_held) + " call " + std::to_string(asked) + " attach " +
            std::to_string(at_primary));
  ch.report("first " + first.outcome.wait().value_or("none"));
  if (ch.wait() != "again") return 2;
  const pmix_status_t set = PMIx_tool_set_server(&held, nullptr, 0);
  const pmix_status_t again = ask(kind, second);
  ch.report("second set " + std::to_string(set) + " call " + std::to_string(again) + " " +
            second.outcome.wait().value_or("none") + ", first completed " + std::to_string(first.completions) +
            " time(s)");
  ch.wait();
  return pmixflow_tool_finalize(&held) == PMIX_SUCCESS ? 0 : 1;
}

#if PMIX_VERSION_MAJOR == 4
// The held server holds the tool's first call of `kind`; the tool's primary then dies, and the
// library fails that call with `failed_with`.
void a_late_reply_is_dropped(Kind kind, pmix_status_t failed_with) {
  TempDir held_dir, primary_dir, tool_dir;
  Script held_plan, primary_plan;
  held_plan.reply = answer_to_held();
  Peer held("held", [&](Channel& ch) {
    held_plan.channel = &ch;
    script = &held_plan;
    pmix_server_module_t module{};
    module.tool_connected = accept_tool;
    module.job_control = hold_first_job_control;
    module.spawn = hold_first_spawn;
    return serve(ch, held_dir.path(), "held", module,
                 [](const pmix_proc_t&, const std::string&) { release_the_held_call(); });
  });
  Peer primary("primary", [&](Channel& ch) {
    primary_plan.channel = &ch;
    script = &primary_plan;
    pmix_server_module_t module{};
    module.tool_connected = accept_tool;
    return serve(ch, primary_dir.path(), "primary", module, [](const pmix_proc_t&, const std::string&) {});
  });
  const std::string held_uri = await_ready(held), primary_uri = await_ready(primary);
  ASSERT_TRUE(held_uri.starts_with("held.0;")) << held_uri;
  ASSERT_TRUE(primary_uri.starts_with("primary.0;")) << primary_uri;
  Peer user("tool", [&](Channel& ch) { return two_server_tool(ch, kind, tool_dir.path(), held_uri, primary_uri); });
  EXPECT_EQ(await_report(user, "asked"), "asked attach 0 call 0 attach 0");
  EXPECT_EQ(await_report(held, "holding"), "holding");
  // The primary dies: 4.2.2 fails the call the held server still has.
  ::kill(primary.pid(), SIGKILL);
  EXPECT_EQ(primary.finish(), -SIGKILL);
  EXPECT_EQ(await_report(user, "first"), "first " + std::to_string(failed_with) + " []");
  // The held server answers it now; its reply, on the same connection, arrives ahead of the
  // second call's: that one answered means the first's reply was taken and dropped.
  held.tell("release");
  EXPECT_EQ(await_report(held, "released"), "released");
  user.tell("again");
  EXPECT_EQ(await_report(user, "second"), "second set 0 call 0 0 intact, first completed 1 time(s)");
  user.tell("quit");
  EXPECT_EQ(user.finish(), 0);
  held.tell("quit");
  EXPECT_EQ(held.finish(), 0);
}

TEST(CompatReplies, AJobControlsLateReplyAfterItsToolsPrimaryDiedIsDroppedNotHandedToFreedMemory) {
  a_late_reply_is_dropped(Kind::JobControl, PMIX_ERR_COMM_FAILURE);
}

TEST(CompatReplies, ASpawnsLateReplyAfterItsToolsPrimaryDiedIsDroppedNotHandedToFreedMemory) {
  a_late_reply_is_dropped(Kind::Spawn, PMIX_ERR_UNREACH);
}
#endif

}  // namespace
}  // namespace pmixflow::emul
