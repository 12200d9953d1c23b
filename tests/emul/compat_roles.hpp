// The PMIx roles compat_test.cpp's peers play: a server (the controller's side), a launcher tool
// that serves tools of its own (the scheduler's side), and plain tools (requestors). Each runs
// in its own forked child (pmix_peer.hpp) and reports what the library did on its Channel.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "pmix_peer.hpp"
#include "pmixflow/emul/compat.h"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul::peers {

// What a peer's up-calls expect and answer. PMIx's server up-calls carry no context pointer,
// so they find it through `script`, which each child sets once, before it initialises PMIx
// (every peer is its own process: one script per process).
struct Script {
  Channel* channel = nullptr;
  InfoList expected;      // what a session control's directives or an allocation's data should be
  InfoList expected_job;  // what a genuine job control's directives should be
  InfoList reply;         // what an up-call answers
};
inline Script* script = nullptr;

// The next report of `peer` starting with `prefix`, or "none" followed by what it reported
// meanwhile (for the failure's message).
inline std::string await_report(Peer& peer, std::string_view prefix, Clock::duration timeout = 10s) {
  const auto deadline = Clock::now() + timeout;
  std::string skipped;
  while (auto line = peer.next(std::max(Clock::duration::zero(), deadline - Clock::now()))) {
    if (line->starts_with(prefix)) return *line;
    skipped += " | " + *line;
  }
  return "none" + (skipped.empty() ? "" : " (" + peer.name() + " said" + skipped + ")");
}

// The URI a server reported with "ready <uri>" (serve below), or what came instead.
inline std::string await_ready(Peer& server) {
  const std::string line = await_report(server, "ready ");
  return line.starts_with("ready ") ? line.substr(6) : line;
}

// Tells each peer to quit, one after the other, each exiting 0 before the next is told.
inline void quit_in_order(std::initializer_list<Peer*> peers) {
  for (Peer* p : peers) {
    p->tell("quit");
    EXPECT_EQ(p->finish(), 0) << p->name();
  }
}

// "intact" when `got` is `expected`, else what came.
inline std::string compare(const InfoList& got, const InfoList& expected) {
  return got == expected ? "intact" : to_json(got);
}

// Init items built the way the library reads them (PMIX_INFO_LOAD, the library's own types).
inline void load_string(pmix_info_t& i, const char* key, const std::string& v) {
  PMIX_INFO_LOAD(&i, key, v.c_str(), PMIX_STRING);
}
inline void load_flag(pmix_info_t& i, const char* key) {
  const bool yes = true;
  PMIX_INFO_LOAD(&i, key, &yes, PMIX_BOOL);
}
inline void load_rank(pmix_info_t& i, const char* key, pmix_rank_t rank) {
  PMIX_INFO_LOAD(&i, key, &rank, PMIX_PROC_RANK);
}

// The tool_connected up-call: accepts the tool under the nspace and rank it chose.
inline void accept_tool(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata) {
  pmix_proc_t proc;
  PMIX_PROC_CONSTRUCT(&proc);
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
      PMIX_LOAD_NSPACE(proc.nspace, info[i].value.data.string);
    else if (PMIX_CHECK_KEY(&info[i], PMIX_RANK) && info[i].value.type == PMIX_PROC_RANK)
      proc.rank = info[i].value.data.rank;
  }
  try {
    if (script && script->channel) script->channel->report(std::string("tool_connected ") + proc.nspace);
  } catch (...) {  // nothing escapes into PMIx
  }
  cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

// What an up-call that threw tells the test, throwing nothing itself (nothing escapes into PMIx).
inline pmix_status_t failed(const char* what) noexcept {
  try {
    script->channel->report(std::string("threw: ") + what);
  } catch (...) {
  }
  return PMIX_ERROR;
}

// Answers an up-call with the script's reply, handing the array to PMIx, which releases it.
inline void answer(pmix_info_cbfunc_t cbfunc, void* cbdata) {
  PmixInfos::Handoff h = to_pmix(script->reply).release();
  cbfunc(PMIX_SUCCESS, h.info, h.ninfo, cbdata, &PmixInfos::release_cb, h.release_cbdata);
}

// This process as a PMIx server `nspace`.0 with tool support, its rendezvous in `dir`; reports
// "ready <its URI>", then runs `command` for every line the test sends until "quit".
template <class OnCommand>
int serve(Channel& ch, const std::string& dir, const std::string& nspace, pmix_server_module_t module,
          OnCommand command) {
  PmixInfos info(5);
  load_flag(info[0], PMIX_SERVER_TOOL_SUPPORT);
  load_string(info[1], PMIX_SERVER_TMPDIR, dir);
  load_string(info[2], PMIX_SYSTEM_TMPDIR, dir);
  load_string(info[3], PMIX_SERVER_NSPACE, nspace);
  load_rank(info[4], PMIX_SERVER_RANK, 0);
  if (const pmix_status_t rc = PMIx_server_init(&module, info.data(), info.size()); rc != PMIX_SUCCESS) {
    ch.report("server_init " + std::to_string(rc));
    return 1;
  }
  pmix_proc_t me;
  PMIX_LOAD_PROCID(&me, nspace.c_str(), 0);
  pmix_value_t* uri = nullptr;
  if (PMIx_Get(&me, PMIX_SERVER_URI, nullptr, 0, &uri) != PMIX_SUCCESS || uri->type != PMIX_STRING) {
    ch.report("no uri");
    return 1;
  }
  ch.report(std::string("ready ") + uri->data.string);
  PMIX_VALUE_RELEASE(uri);
  std::optional<std::string> line;
  while ((line = ch.wait(15s)) && *line != "quit") command(me, *line);
  PMIx_server_finalize();
  return line ? 0 : 3;
}

// This process as a tool `nspace`.0 of the server with pid `server` in `dir`.
inline pmix_status_t init_tool(pmix_proc_t& me, const std::string& nspace, const std::string& dir, pid_t server) {
  PmixInfos info(4);
  load_string(info[0], PMIX_TOOL_NSPACE, nspace);
  load_rank(info[1], PMIX_TOOL_RANK, 0);
  load_string(info[2], PMIX_SYSTEM_TMPDIR, dir);
  PMIX_INFO_LOAD(&info[3], PMIX_SERVER_PIDINFO, &server, PMIX_PID);
  return PMIx_tool_init(&me, info.data(), info.size());
}

// PMIx_tool_init's info for a LAUNCHER tool `nspace`.0 that serves tools of its own from `dir`
// (the scheduler's side) and attaches to its server later. Without PMIX_SERVER_TOOL_SUPPORT,
// 4.2.2 listens but writes no rendezvous file (ptl_base_listener.c): no tool could find it.
inline PmixInfos launcher_info(const std::string& dir, const std::string& nspace) {
  PmixInfos info(7);
  load_flag(info[0], PMIX_LAUNCHER);
  load_flag(info[1], PMIX_TOOL_DO_NOT_CONNECT);
  load_flag(info[2], PMIX_SERVER_TOOL_SUPPORT);
  load_string(info[3], PMIX_SERVER_TMPDIR, dir);
  load_string(info[4], PMIX_SYSTEM_TMPDIR, dir);
  load_string(info[5], PMIX_TOOL_NSPACE, nspace);
  load_rank(info[6], PMIX_TOOL_RANK, 0);
  return info;
}

// Attaches this tool to the server at `uri`, as its primary server.
inline pmix_status_t attach_primary(pmix_proc_t& me, pmix_proc_t& server, const std::string& uri) {
  PmixInfos attach(2);
  load_string(attach[0], PMIX_SERVER_URI, uri);
  load_flag(attach[1], PMIX_PRIMARY_SERVER);
  return PMIx_tool_attach_to_server(&me, &server, attach.data(), attach.size());
}

// A pmix_info_cbfunc_t's outcome, as a tool or launcher sees it.
struct Reply {
  pmix_status_t status = PMIX_ERROR;
  InfoList info;
  std::string error;  // what from_pmix refused, if it did
};

inline void take_reply(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
                       pmix_release_cbfunc_t release_fn, void* release_cbdata) {
  try {
    Reply r;
    r.status = status;
    try {
      r.info = from_pmix(info, ninfo);
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    static_cast<Awaited<Reply>*>(cbdata)->set(std::move(r));
  } catch (...) {  // nothing escapes into PMIx: the waiter times out
  }
  if (release_fn) release_fn(release_cbdata);
}

// "<status> intact", "<status> <what came>", "<status> refused <why>" or "none".
inline std::string describe(const std::optional<Reply>& r, const InfoList& expected) {
  if (!r) return "none";
  return std::to_string(r->status) + " " + (r->error.empty() ? compare(r->info, expected) : "refused " + r->error);
}

inline constexpr pmix_status_t kTestEvent = PMIX_EXTERNAL_ERR_BASE - 7;  // private to the host, as the flow's are

// What a tool's event handler knows: found through PMIX_EVENT_RETURN_OBJECT, which the library
// hands back to the handler in its info (the handler has no other context).
struct EventSink {
  Channel* channel;
  pmix_proc_t me;
  InfoList expected;
};

// Reports an event to the sink found in its info, with the keys the handler was given.
inline void report_event(pmix_status_t status, const pmix_proc_t* source, const pmix_info_t info[], size_t ninfo) {
  EventSink* sink = nullptr;
  std::string keys;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT)) sink = static_cast<EventSink*>(info[i].value.data.ptr);
    keys += (keys.empty() ? "" : ",") + std::string(info[i].key);
  }
  if (!sink) return;
  try {
    sink->channel->report("event " + std::to_string(status) + " from " + to_string(from_pmix(*source)) + " for_me " +
                          (pmixflow_event_is_for(info, ninfo, &sink->me) ? "yes" : "no") + " payload " +
                          compare(event_payload(info, ninfo), sink->expected));
    sink->channel->report("keys " + keys);
  } catch (const std::exception& e) {
    sink->channel->report(std::string("threw: ") + e.what());
  }
}

inline void on_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                     pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
  try {
    report_event(status, source, info, ninfo);
  } catch (...) {  // nothing escapes into PMIx: the test sees the report missing
  }
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

// Registers `sink` for kTestEvent: "yes", or the error.
inline std::string listen(EventSink& sink, const std::string& name) {
  PmixInfos reg(2);
  load_string(reg[0], PMIX_EVENT_HDLR_NAME, name + "-handler");
  PMIX_INFO_LOAD(&reg[1], PMIX_EVENT_RETURN_OBJECT, &sink, PMIX_POINTER);
  pmix_status_t code = kTestEvent;
  const pmix_status_t ref = PMIx_Register_event_handler(&code, 1, reg.data(), reg.size(), on_event, nullptr, nullptr);
  return ref >= 0 ? "yes" : std::to_string(ref);
}

}  // namespace pmixflow::emul::peers
