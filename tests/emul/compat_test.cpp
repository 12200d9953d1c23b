// One test per workaround of compat.h, each against the real library over real sockets: the
// servers, launcher and tools are forked children (pmix_peer.hpp), each server's rendezvous in
// its own fresh directory. The test process itself never initialises PMIx.
#include "pmixflow/emul/compat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "compat_roles.hpp"
#include "pmix_peer.hpp"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul {
namespace {

using namespace peers;

// ---- constants ---------------------------------------------------------------------------------

struct KeyRow {
  const char* name;
  const char* value;
  const char* spec;  // spec/PMIX-CONSTANTS.md
};
// clang-format off
#define PMIXFLOW_KEY_ROW(name, spec) {#name, name, spec}
// clang-format on

const KeyRow kKeys[] = {
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_REQ_ID, "pmix.alloc.reqid"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_ID, "pmix.alloc.id"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_NUM_NODES, "pmix.alloc.nnodes"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_NODE_LIST, "pmix.alloc.nlist"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_NUM_CPUS, "pmix.alloc.ncpus"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_NUM_CPU_LIST, "pmix.alloc.ncpulist"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_CPU_LIST, "pmix.alloc.cpulist"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_MEM_SIZE, "pmix.alloc.msize"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_TIME, "pmix.alloc.time"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_QUEUE, "pmix.alloc.queue"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_PREEMPTIBLE, "pmix.alloc.preempt"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_CHILD_SEP, "pmix.alloc.sep"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_INHERITANCE, "pmix.alloc.inhrt"),
    PMIXFLOW_KEY_ROW(PMIX_ALLOC_REQ_DIRECTIVE, "pmix.alloc.reqdir"),
    PMIXFLOW_KEY_ROW(PMIX_SPAWN_ALLOC, "pmix.spawn.alloc"),
    PMIXFLOW_KEY_ROW(PMIX_HOST, "pmix.host"),
    PMIXFLOW_KEY_ROW(PMIX_HOSTFILE, "pmix.hostfile"),
    PMIXFLOW_KEY_ROW(PMIX_ADD_HOST, "pmix.addhost"),
    PMIXFLOW_KEY_ROW(PMIX_ADD_HOSTFILE, "pmix.addhostfile"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_ID, "pmix.session.id"),
    PMIXFLOW_KEY_ROW(PMIX_REQUESTOR, "pmix.requestor"),
    PMIXFLOW_KEY_ROW(PMIX_NSPACE, "pmix.nspace"),
    PMIXFLOW_KEY_ROW(PMIX_TIMEOUT, "pmix.timeout"),
    PMIXFLOW_KEY_ROW(PMIX_JOB_TIMEOUT, "pmix.job.time"),
    PMIXFLOW_KEY_ROW(PMIX_SPAWN_TIMEOUT, "pmix.sp.time"),
    PMIXFLOW_KEY_ROW(PMIX_USERID, "pmix.euid"),
    PMIXFLOW_KEY_ROW(PMIX_JOB_INFO_ARRAY, "pmix.job.arr"),
    PMIXFLOW_KEY_ROW(PMIX_JOB_TERM_STATUS, "pmix.job.term.status"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_CTRL_ID, "pmix.ssnctrl.id"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_INSTANTIATE, "pmix.ssn.inst"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_RESOURCES, "pmix.ssn.res"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_JOB, "pmix.ssn.job"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_APP, "pmix.ssn.app"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_PROVISION_NODES, "pmix.ssn.pvnnds"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_PROVISION_IMAGE, "pmix.ssn.pvnimg"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_PAUSE, "pmix.ssn.pause"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_RESUME, "pmix.ssn.resume"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_TERMINATE, "pmix.ssn.terminate"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_PREEMPT, "pmix.ssn.preempt"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_RESTORE, "pmix.ssn.restore"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_SIGNAL, "pmix.ssn.sig"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_SEP, "pmix.ssn.sep"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_EXTEND, "pmix.ssn.xtend"),
    PMIXFLOW_KEY_ROW(PMIX_SESSION_COMPLETE, "pmix.ssn.complete"),
    PMIXFLOW_KEY_ROW(PMIX_SERVER_SCHEDULER, "pmix.srv.sched"),
    PMIXFLOW_KEY_ROW(PMIX_SERVER_SYS_CONTROLLER, "pmix.srv.ctrlr"),
    PMIXFLOW_KEY_ROW(PMIX_CONNECT_TO_SCHEDULER, "pmix.cnct.sched"),
    PMIXFLOW_KEY_ROW(PMIX_CONNECT_TO_SYS_CONTROLLER, "pmix.cnct.ctrlr"),
    PMIXFLOW_KEY_ROW(PMIX_TOOL_CONNECT_OPTIONAL, "pmix.tool.conopt"),
};

struct NumberRow {
  const char* name;
  long value;
  long spec;
};
// clang-format off
#define PMIXFLOW_NUMBER_ROW(name, spec) {#name, static_cast<long>(name), spec}
// clang-format on

const NumberRow kNumbers[] = {
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_NEW, 1),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_EXTEND, 2),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_RELEASE, 3),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_REAQUIRE, 4),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_REQ_CANCEL, 5),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_ACTIVATE, 6),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_EXTERNAL, 128),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_INHERIT_NONE, 1),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_INHERIT_CHILD, 2),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_INHERIT_DEFAULT, 3),
    PMIXFLOW_NUMBER_ROW(PMIX_ALLOC_INHERIT_CHILD_DEFAULT, 4),
    PMIXFLOW_NUMBER_ROW(PMIX_SUCCESS, 0),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_EXISTS, -11),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_NO_PERMISSIONS, -23),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_TIMEOUT, -24),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_UNREACH, -25),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_BAD_PARAM, -27),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_NOT_FOUND, -46),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_NOT_SUPPORTED, -47),
    PMIXFLOW_NUMBER_ROW(PMIX_EVENT_JOB_END, -145),
    PMIXFLOW_NUMBER_ROW(PMIX_OPERATION_IN_PROGRESS, -156),
    PMIXFLOW_NUMBER_ROW(PMIX_OPERATION_SUCCEEDED, -157),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_JOB_ALLOC_FAILED, -188),
    PMIXFLOW_NUMBER_ROW(PMIX_EVENT_JOB_START, -191),
    PMIXFLOW_NUMBER_ROW(PMIX_EVENT_SESSION_START, -192),
    PMIXFLOW_NUMBER_ROW(PMIX_EVENT_SESSION_END, -193),
    PMIXFLOW_NUMBER_ROW(PMIX_DVM_IS_READY, -195),
    PMIXFLOW_NUMBER_ROW(PMIX_ERR_DVM_MOD, -196),
};

TEST(Compat, ConstantsAreTheSpecsValues) {
  for (const auto& row : kKeys) EXPECT_STREQ(row.value, row.spec) << row.name;
  for (const auto& row : kNumbers) EXPECT_EQ(row.value, row.spec) << row.name;
  // The project's own key is outside PMIx's namespace, so no library can ever mean it.
  EXPECT_EQ(std::string_view(PMIXFLOW_SESSION_CONTROL_MARKER).substr(0, 9), "pmixflow.");
  EXPECT_EQ(PMIXFLOW_PMIX_HAS_SESSION_CONTROL, PMIX_VERSION_MAJOR >= 5 ? 1 : 0);
}

TEST(Compat, TheFlowsVocabularyAgrees) {
  // The core speaks the same names without <pmix.h> (vocab.hpp): both must say the same.
  EXPECT_EQ(key::SPAWN_ALLOC, PMIX_SPAWN_ALLOC);
  EXPECT_EQ(key::SPAWN_CHILD_SEP, PMIX_SPAWN_CHILD_SEP);
  EXPECT_EQ(key::ALLOC_REQ_DIRECTIVE, PMIX_ALLOC_REQ_DIRECTIVE);
  EXPECT_EQ(key::REQUESTOR, PMIX_REQUESTOR);
  EXPECT_EQ(key::SESSION_INSTANTIATE, PMIX_SESSION_INSTANTIATE);
  EXPECT_EQ(key::SESSION_COMPLETE, PMIX_SESSION_COMPLETE);
  EXPECT_EQ(key::CONNECT_TO_SCHEDULER, PMIX_CONNECT_TO_SCHEDULER);
  EXPECT_EQ(to_pmix(Directive::ReqCancel), PMIX_ALLOC_REQ_CANCEL);
  EXPECT_EQ(to_pmix(Directive::Activate), PMIX_ALLOC_ACTIVATE);
  EXPECT_EQ(to_pmix(Status::DvmIsReady), PMIX_DVM_IS_READY);
  EXPECT_EQ(to_pmix(Status::ErrDvmMod), PMIX_ERR_DVM_MOD);
  EXPECT_EQ(static_cast<int>(Inheritance::ChildDefault), PMIX_ALLOC_INHERIT_CHILD_DEFAULT);
}

// ---- a, b: Session_control over Job_control -------------------------------------------------

InfoList session_directives() {
  InfoList resources;
  resources.add(PMIX_ALLOC_NUM_NODES, std::uint64_t{2}).add(PMIX_ALLOC_TIME, std::string("1:30:00"));
  InfoList d;
  d.add(PMIX_SESSION_CTRL_ID, std::string("ctl-1"))
      .add(PMIX_SESSION_INSTANTIATE, true)
      .add(PMIX_SESSION_RESOURCES, resources)
      .add(PMIX_SESSION_JOB, InfoList{})
      .add(PMIX_SESSION_APP, std::vector<App>{App{"sleep", {"10"}, {"PMIXFLOW_RUNTIME=10"}, 4}})
      .add(PMIX_REQUESTOR, Proc{"requestor", 0})
      .add(PMIX_ALLOC_MEM_SIZE, 512.5)
      .add(PMIX_SESSION_SIGNAL, std::int32_t{-9})
      .add(PMIX_JOB_TERM_STATUS, Status::ErrJobCanceled)
      .add(PMIX_ALLOC_REQ_DIRECTIVE, Directive::Activate);
  return d;
}

// The controller's job_control up-call: tells a session control from a genuine job control.
pmix_status_t controller_job_control(const pmix_proc_t* requestor, const pmix_proc_t[], size_t ntargets,
                                     const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                     void* cbdata) {
  try {
    uint32_t session = 0;
    size_t marker = 0;
    const bool is_session = pmixflow_session_control_unwrap(directives, ndirs, &session, &marker);
    InfoList got = from_pmix(directives, ndirs);
    if (is_session) got.items.erase(got.items.begin() + static_cast<std::ptrdiff_t>(marker));
    const InfoList& expected = is_session ? script->expected : script->expected_job;
    script->channel->report((is_session ? "session " + std::to_string(session) : std::string("job_control")) +
                            " from " + to_string(from_pmix(*requestor)) + " targets " + std::to_string(ntargets) +
                            " directives " + compare(got, expected));
    answer(cbfunc, cbdata);
    return PMIX_SUCCESS;
  } catch (const std::exception& e) {
    return failed(e.what());
  } catch (...) {
    return failed("a non-standard exception");
  }
}

// The controller's side: a server whose job_control up-call follows `plan`.
std::function<int(Channel&)> controller_side(const TempDir& dir, Script& plan) {
  return [&dir, &plan](Channel& ch) {
    plan.channel = &ch;
    script = &plan;
    pmix_server_module_t module{};
    module.tool_connected = accept_tool;
    module.job_control = controller_job_control;
    return serve(ch, dir.path(), "controller", module, [](const pmix_proc_t&, const std::string&) {});
  };
}

TEST(Compat, SessionControlRidesOnJobControlAndIsToldApart) {
  TempDir dir;
  Script plan;
  plan.expected = session_directives();
  plan.expected_job.add(PMIX_SESSION_PAUSE, true).add("pmix.job.ctrl.note", std::string("genuine"));
  plan.reply.add(PMIX_ALLOC_ID, std::string("session-7")).add(PMIX_SESSION_ID, std::uint32_t{7});

  Peer controller("controller", controller_side(dir, plan));
  ASSERT_TRUE(await_ready(controller).starts_with("controller.0;"));

  Peer requestor("requestor", [&](Channel& ch) {
    pmix_proc_t me;
    if (const pmix_status_t rc = init_tool(me, "requestor", dir.path(), controller.pid()); rc != PMIX_SUCCESS) {
      ch.report("tool_init " + std::to_string(rc));
      return 1;
    }
    const PmixInfos dirs = to_pmix(plan.expected);
    Awaited<Reply> session_reply;
    pmix_status_t rc = pmixflow_Session_control_nb(7, dirs.data(), dirs.size(), take_reply, &session_reply);
    ch.report("session_control " + std::to_string(rc) + " " + describe(session_reply.wait(), plan.reply));
    const PmixInfos genuine = to_pmix(plan.expected_job);
    Awaited<Reply> job_reply;
    rc = PMIx_Job_control_nb(nullptr, 0, genuine.data(), genuine.size(), take_reply, &job_reply);
    ch.report("job_control " + std::to_string(rc) + " " + describe(job_reply.wait(), plan.reply));
    ch.report("blocking " + std::to_string(pmixflow_Session_control_nb(8, dirs.data(), dirs.size(), nullptr, nullptr)));
    ch.wait();
    PMIx_tool_finalize();
    return 0;
  });

  EXPECT_EQ(await_report(controller, "session"), "session 7 from requestor.0 targets 0 directives intact");
  EXPECT_EQ(await_report(requestor, "session_control"), "session_control 0 0 intact");
  EXPECT_EQ(await_report(controller, "job_control"), "job_control from requestor.0 targets 0 directives intact");
  EXPECT_EQ(await_report(requestor, "job_control"), "job_control 0 0 intact");
  EXPECT_EQ(await_report(controller, "session"), "session 8 from requestor.0 targets 0 directives intact");
  EXPECT_EQ(await_report(requestor, "blocking"), "blocking 0");  // no callback: waits for the reply
  quit_in_order({&requestor, &controller});
}

// ---- c: a launcher tool with a server module ---------------------------------------------------

// The scheduler's allocate up-call, for its own tools.
pmix_status_t launcher_allocate(const pmix_proc_t* client, pmix_alloc_directive_t directive, const pmix_info_t data[],
                                size_t ndata, pmix_info_cbfunc_t cbfunc, void* cbdata) {
  try {
    script->channel->report("allocate from " + to_string(from_pmix(*client)) + " " +
                            std::string(directive_name(from_pmix_directive(directive))) + " data " +
                            compare(from_pmix(data, ndata), script->expected));
    answer(cbfunc, cbdata);
    return PMIX_SUCCESS;
  } catch (const std::exception& e) {
    return failed(e.what());
  } catch (...) {
    return failed("a non-standard exception");
  }
}

// The scheduler: a LAUNCHER tool serving its own tools, attached to the controller by URI.
int scheduler(Channel& ch, const std::string& dir, const std::string& controller_uri,
              const InfoList& controller_reply) {
  pmix_server_module_t module{};
  module.tool_connected = accept_tool;
  module.allocate = launcher_allocate;
  ch.report("before_init " + std::to_string(pmixflow_tool_set_server_module(&module)));
  PmixInfos info = launcher_info(dir, "scheduler");
  pmix_proc_t me, server;
  if (const pmix_status_t rc = PMIx_tool_init(&me, info.data(), info.size()); rc != PMIX_SUCCESS) {
    ch.report("tool_init " + std::to_string(rc));
    return 1;
  }
  const pmix_status_t set = pmixflow_tool_set_server_module(&module);
  ch.report("set " + std::to_string(set) + " again " + std::to_string(pmixflow_tool_set_server_module(&module)));
  if (const pmix_status_t rc = attach_primary(me, server, controller_uri); rc != PMIX_SUCCESS) {
    ch.report("attach " + std::to_string(rc));
    return 1;
  }
  ch.report(std::string("ready attached to ") + server.nspace);
  for (std::optional<std::string> line; (line = ch.wait(15s)) && *line != "quit";) {
    const PmixInfos dirs = to_pmix(script->expected_job);
    Awaited<Reply> reply;
    const pmix_status_t rc = PMIx_Job_control_nb(nullptr, 0, dirs.data(), dirs.size(), take_reply, &reply);
    ch.report("job_control " + std::to_string(rc) + " " + describe(reply.wait(), controller_reply));
  }
  return pmixflow_tool_finalize(&server) == PMIX_SUCCESS ? 0 : 1;  // it attached: (e)
}

// A requestor: asks the scheduler (a LAUNCHER with pid `scheduler` in `dir`) for `plan.expected`.
int request_allocation(Channel& ch, const std::string& dir, pid_t scheduler, const Script& plan) {
  pmix_proc_t me;
  if (const pmix_status_t rc = init_tool(me, "requestor", dir, scheduler); rc != PMIX_SUCCESS) {
    ch.report("tool_init " + std::to_string(rc));
    return 1;
  }
  PmixInfos data = to_pmix(plan.expected);
  Awaited<Reply> reply;
  const pmix_status_t rc = PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, data.data(), data.size(), take_reply, &reply);
  ch.report("allocation " + std::to_string(rc) + " " + describe(reply.wait(), plan.reply));
  ch.wait();
  PMIx_tool_finalize();
  return 0;
}

TEST(Compat, ALauncherWithAServerModuleServesItsToolsAndStillAsksItsServer) {
  TempDir controller_dir;
  TempDir scheduler_dir;
  Script controller_plan;
  controller_plan.expected_job.add(PMIX_SESSION_PAUSE, true).add(PMIX_SESSION_ID, std::uint32_t{3});
  controller_plan.reply.add(PMIX_ALLOC_ID, std::string("from-controller"));
  Script scheduler_plan;
  scheduler_plan.expected.add(PMIX_ALLOC_NUM_NODES, std::uint64_t{3}).add(PMIX_ALLOC_REQ_ID, std::string("r1"));
  scheduler_plan.expected_job = controller_plan.expected_job;
  scheduler_plan.reply.add(PMIX_ALLOC_ID, std::string("from-scheduler")).add(PMIX_ALLOC_NODE_LIST, std::string("n1"));

  Peer controller("controller", controller_side(controller_dir, controller_plan));
  const std::string uri = await_ready(controller);
  ASSERT_TRUE(uri.starts_with("controller.0;")) << uri;

  Peer sched("scheduler", [&](Channel& ch) {
    scheduler_plan.channel = &ch;
    script = &scheduler_plan;
    return scheduler(ch, scheduler_dir.path(), uri, controller_plan.reply);
  });
  EXPECT_EQ(await_report(sched, "before_init"), "before_init " + std::to_string(PMIX_ERR_INIT));
  EXPECT_EQ(await_report(sched, "set"), "set 0 again " + std::to_string(PMIX_ERR_INIT));
  ASSERT_EQ(await_report(sched, "ready"), "ready attached to controller");

  Peer requestor("requestor", [&](Channel& ch) {
    return request_allocation(ch, scheduler_dir.path(), sched.pid(), scheduler_plan);
  });
  EXPECT_EQ(await_report(sched, "tool_connected"), "tool_connected requestor");
  EXPECT_EQ(await_report(sched, "allocate"), "allocate from requestor.0 PMIX_ALLOC_NEW data intact");
  EXPECT_EQ(await_report(requestor, "allocation"), "allocation 0 0 intact");

  sched.tell("job_control");
  EXPECT_EQ(await_report(controller, "job_control"), "job_control from scheduler.0 targets 0 directives intact");
  EXPECT_EQ(await_report(sched, "job_control"), "job_control 0 0 intact");

  quit_in_order({&requestor, &sched, &controller});
}

// ---- e: finalizing a tool that attached -------------------------------------------------------

TEST(Compat, AToolThatAttachedToItsServerFinalizesCleanly) {
  // Without the shim the library releases the attached server twice in PMIx_tool_finalize: a
  // use-after-free that hangs this tool under AddressSanitizer (and goes unseen without it).
  TempDir dir;
  Script plan;
  plan.expected_job.add(PMIX_SESSION_RESUME, true);
  plan.reply.add(PMIX_ALLOC_ID, std::string("resumed"));
  Peer controller("controller", controller_side(dir, plan));
  const std::string uri = await_ready(controller);
  ASSERT_TRUE(uri.starts_with("controller.0;")) << uri;

  Peer tool("requestor", [&](Channel& ch) {
    PmixInfos info(3);
    load_flag(info[0], PMIX_TOOL_DO_NOT_CONNECT);
    load_string(info[1], PMIX_TOOL_NSPACE, "requestor");
    load_rank(info[2], PMIX_TOOL_RANK, 0);
    pmix_proc_t me, server;
    if (const pmix_status_t rc = PMIx_tool_init(&me, info.data(), info.size()); rc != PMIX_SUCCESS) return 1;
    ch.report("attach " + std::to_string(attach_primary(me, server, uri)));
    const PmixInfos dirs = to_pmix(plan.expected_job);
    Awaited<Reply> reply;
    const pmix_status_t rc = PMIx_Job_control_nb(nullptr, 0, dirs.data(), dirs.size(), take_reply, &reply);
    ch.report("job_control " + std::to_string(rc) + " " + describe(reply.wait(), plan.reply));
    ch.report("finalized " + std::to_string(pmixflow_tool_finalize(&server)));
    return 0;
  });
  EXPECT_EQ(await_report(tool, "attach"), "attach 0");
  EXPECT_EQ(await_report(controller, "job_control"), "job_control from requestor.0 targets 0 directives intact");
  EXPECT_EQ(await_report(tool, "job_control"), "job_control 0 0 intact");
  EXPECT_EQ(await_report(tool, "finalized"), "finalized 0");
  EXPECT_EQ(tool.finish(), 0);
  quit_in_order({&controller});
}

// ---- d: an event for one tool -------------------------------------------------------------------

// A tool that reports every kTestEvent it receives.
int listener(Channel& ch, const std::string& nspace, const std::string& dir, pid_t server, const InfoList& expected) {
  EventSink sink{&ch, {}, expected};
  if (const pmix_status_t rc = init_tool(sink.me, nspace, dir, server); rc != PMIX_SUCCESS) {
    ch.report("tool_init " + std::to_string(rc));
    return 1;
  }
  ch.report("registered " + listen(sink, nspace));
  ch.wait();
  PMIx_tool_finalize();
  return 0;
}

TEST(Compat, ATargetedEventReachesOneToolWithItsPayload) {
  TempDir dir;
  InfoList to_a;
  to_a.add(PMIX_ALLOC_REQ_ID, std::string("r-a"))
      .add(PMIX_SPAWN_ALLOC, InfoList{}.add(PMIX_ALLOC_REQ_DIRECTIVE, Directive::New));
  InfoList to_b;
  to_b.add(PMIX_ALLOC_REQ_ID, std::string("r-b")).add(PMIX_REQUESTOR, Proc{"tool-b", 0});

  Peer controller("controller", [&](Channel& ch) {
    pmix_server_module_t module{};
    module.tool_connected = accept_tool;
    return serve(ch, dir.path(), "controller", module, [&](const pmix_proc_t& me, const std::string& line) {
      const bool a = line == "notify tool-a";
      pmix_proc_t target;
      PMIX_LOAD_PROCID(&target, a ? "tool-a" : "tool-b", 0);
      const PmixInfos payload = to_pmix(a ? to_a : to_b);
      ch.report("notified " + std::to_string(pmixflow_notify_proc(kTestEvent, &me, &target, payload.data(),
                                                                  payload.size(), nullptr, nullptr)));
    });
  });
  ASSERT_TRUE(await_ready(controller).starts_with("controller.0;"));
  Peer a("tool-a", [&](Channel& ch) { return listener(ch, "tool-a", dir.path(), controller.pid(), to_a); });
  Peer b("tool-b", [&](Channel& ch) { return listener(ch, "tool-b", dir.path(), controller.pid(), to_b); });
  ASSERT_EQ(await_report(a, "registered"), "registered yes");
  ASSERT_EQ(await_report(b, "registered"), "registered yes");

  const std::string event = "event " + std::to_string(kTestEvent) + " from controller.0 for_me yes payload intact";
  const std::string library_keys = std::string(PMIX_EVENT_CUSTOM_RANGE) + "," + PMIX_EVENT_DO_NOT_CACHE + "," +
                                   PMIX_EVENT_HDLR_NAME + "," + PMIX_EVENT_RETURN_OBJECT;
  controller.tell("notify tool-a");
  EXPECT_EQ(await_report(controller, "notified"), "notified 0");
  EXPECT_EQ(await_report(a, "event"), event);
  EXPECT_EQ(await_report(a, "keys"), "keys " PMIX_ALLOC_REQ_ID "," PMIX_SPAWN_ALLOC "," + library_keys);
  EXPECT_TRUE(await_report(b, "event", 500ms).starts_with("none"));  // not for b

  controller.tell("notify tool-b");
  EXPECT_EQ(await_report(controller, "notified"), "notified 0");
  EXPECT_EQ(await_report(b, "event"), event);
  EXPECT_TRUE(await_report(a, "event", 500ms).starts_with("none"));  // not for a again

  a.tell("quit");
  b.tell("quit");
  EXPECT_EQ(a.finish(), 0);
  EXPECT_EQ(b.finish(), 0);
  quit_in_order({&controller});
}

TEST(Compat, AnEventALauncherRelaysIsToldApartByItsTools) {
  // The controller targets the scheduler alone; 4.2.2 relays what a launcher receives to the
  // launcher's own tools registered for the code, whatever the range (pmix_tool_notify_recv ->
  // pmix_server_notify_client_of_event, which drops a tool's targets): only
  // pmixflow_event_is_for tells the requestor the event is not its own.
  TempDir controller_dir;
  TempDir scheduler_dir;
  InfoList forwarded;
  forwarded.add(PMIX_ALLOC_REQ_ID, std::string("fwd-1")).add(PMIX_REQUESTOR, Proc{"requestor", 0});
  Peer controller("controller", [&](Channel& ch) {
    pmix_server_module_t module{};
    module.tool_connected = accept_tool;
    return serve(ch, controller_dir.path(), "controller", module, [&](const pmix_proc_t& me, const std::string&) {
      pmix_proc_t target;
      PMIX_LOAD_PROCID(&target, "scheduler", 0);
      const PmixInfos payload = to_pmix(forwarded);
      ch.report("notified " + std::to_string(pmixflow_notify_proc(kTestEvent, &me, &target, payload.data(),
                                                                  payload.size(), nullptr, nullptr)));
    });
  });
  const std::string uri = await_ready(controller);
  ASSERT_TRUE(uri.starts_with("controller.0;")) << uri;
  Peer sched("scheduler", [&](Channel& ch) {
    pmix_server_module_t module{};
    module.tool_connected = accept_tool;
    PmixInfos info = launcher_info(scheduler_dir.path(), "scheduler");
    EventSink sink{&ch, {}, forwarded};
    pmix_proc_t server;
    if (PMIx_tool_init(&sink.me, info.data(), info.size()) != PMIX_SUCCESS) return 1;
    // One call a statement: the operands of a chain of + are not evaluated in order.
    const pmix_status_t set = pmixflow_tool_set_server_module(&module);
    const pmix_status_t attached = attach_primary(sink.me, server, uri);
    const std::string registered = listen(sink, "scheduler");  // once attached: it goes up
    ch.report("set " + std::to_string(set) + " attach " + std::to_string(attached) + " registered " + registered);
    ch.wait();
    return pmixflow_tool_finalize(&server) == PMIX_SUCCESS ? 0 : 1;
  });
  ASSERT_EQ(await_report(sched, "set"), "set 0 attach 0 registered yes");
  Peer requestor("requestor",
                 [&](Channel& ch) { return listener(ch, "requestor", scheduler_dir.path(), sched.pid(), forwarded); });
  ASSERT_EQ(await_report(requestor, "registered"), "registered yes");

  controller.tell("notify");
  EXPECT_EQ(await_report(controller, "notified"), "notified 0");
  const std::string from = "event " + std::to_string(kTestEvent) + " from controller.0 for_me ";
  EXPECT_EQ(await_report(sched, "event"), from + "yes payload intact");
  EXPECT_EQ(await_report(requestor, "event", 2s), from + "no payload intact");

  quit_in_order({&requestor, &sched, &controller});
}

}  // namespace
}  // namespace pmixflow::emul
