/* What the flow needs from PMIx and Debian 12's OpenPMIx 4.2.2 lacks: THE one place for it.
 *
 * Constants: every key, directive and status code of spec/PMIX-CONSTANTS.md that 4.2.2 does
 * not define, with upstream's exact string or number, each under #ifndef so that a build
 * against a newer OpenPMIx uses the library's own definition.
 *
 * Shims: PMIx_Session_control, PMIx_tool_set_server_module and a targeted event, each the
 * native call when built against OpenPMIx >= 5 (PMIXFLOW_PMIX_HAS_SESSION_CONTROL) and a
 * workaround over 4.2.2 otherwise. docs/pmix-compat.md says what each workaround rests on and
 * which test in tests/emul/compat_test.cpp proves it against the real library.
 *
 * C-compatible; the shims are implemented in emul/src/compat.cpp. */
#ifndef PMIXFLOW_EMUL_COMPAT_H
#define PMIXFLOW_EMUL_COMPAT_H

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>
#include <pmix_version.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PMIx_Session_control, the session_control up-call and PMIx_tool_set_server_module all
 * arrived with OpenPMIx 5.0.0 (include/pmix.h, include/pmix_server.h, include/pmix_tool.h). */
#if PMIX_VERSION_MAJOR >= 5
#define PMIXFLOW_PMIX_HAS_SESSION_CONTROL 1
#else
#define PMIXFLOW_PMIX_HAS_SESSION_CONTROL 0
#endif

/* ---- Allocation directives (pmix_alloc_directive_t) ------------------------------------- */

/* Upstream master include/pmix_common.h.in; not in 4.2.2. */
#ifndef PMIX_SPAWN_CHILD_SEP
#define PMIX_SPAWN_CHILD_SEP "pmix.spchildsep" /* bool */
#endif
#ifndef PMIX_ALLOC_REQ_CANCEL
#define PMIX_ALLOC_REQ_CANCEL 5
#endif
/* Not in any OpenPMIx yet: PRRTE's docs/todo.rst proposes it as "the next unused value after
 * PMIX_ALLOC_REQ_CANCEL", which PMIX-CONSTANTS.md fixes at 6 (FLOW.md section 5). */
#ifndef PMIX_ALLOC_ACTIVATE
#define PMIX_ALLOC_ACTIVATE 6
#endif

/* ---- Allocation attributes ---------------------------------------------------------------- */

/* Upstream master include/pmix_common.h.in; not in 4.2.2. */
#ifndef PMIX_ALLOC_PREEMPTIBLE
#define PMIX_ALLOC_PREEMPTIBLE "pmix.alloc.preempt" /* bool */
#endif
#ifndef PMIX_ALLOC_CHILD_SEP
#define PMIX_ALLOC_CHILD_SEP "pmix.alloc.sep" /* bool */
#endif
#ifndef PMIX_ALLOC_INHERITANCE
#define PMIX_ALLOC_INHERITANCE "pmix.alloc.inhrt" /* pmix_alloc_inheritance_t; the flow carries a uint32 */
#endif
/* Upstream defines the type and its values together; the data type PMIX_ALLOC_INHERIT (75)
 * is deliberately not defined here: 4.2.2 cannot pack it, so over 4.2.2 the flow sends the
 * value as a PMIX_UINT32. */
#ifndef PMIX_ALLOC_INHERIT_NONE
typedef uint8_t pmix_alloc_inheritance_t;
#define PMIX_ALLOC_INHERIT_NONE 1
#define PMIX_ALLOC_INHERIT_CHILD 2
#define PMIX_ALLOC_INHERIT_DEFAULT 3
#define PMIX_ALLOC_INHERIT_CHILD_DEFAULT 4
#endif

/* Not in any OpenPMIx (checked against master 494e9d9's include/): PRRTE's docs/todo.rst
 * asks for "an attribute carrying an allocation request on the spawn" without naming it. The
 * strings are PMIX-CONSTANTS.md's, and would give way to upstream's through these guards. */
#ifndef PMIX_ALLOC_REQ_DIRECTIVE
#define PMIX_ALLOC_REQ_DIRECTIVE "pmix.alloc.reqdir" /* pmix_alloc_directive_t, inside PMIX_SPAWN_ALLOC */
#endif
#ifndef PMIX_SPAWN_ALLOC
#define PMIX_SPAWN_ALLOC "pmix.spawn.alloc" /* pmix_data_array_t of pmix_info_t */
#endif

/* Upstream master include/pmix_common.h.in; not in 4.2.2. */
#ifndef PMIX_REQUESTOR
#define PMIX_REQUESTOR "pmix.requestor" /* pmix_proc_t* */
#endif

/* ---- Session control (upstream master include/pmix_common.h.in; none in 4.2.2) ------------ */

#ifndef PMIX_SESSION_CTRL_ID
#define PMIX_SESSION_CTRL_ID "pmix.ssnctrl.id" /* char* */
#endif
#ifndef PMIX_SESSION_INSTANTIATE
#define PMIX_SESSION_INSTANTIATE "pmix.ssn.inst" /* bool */
#endif
#ifndef PMIX_SESSION_RESOURCES
#define PMIX_SESSION_RESOURCES "pmix.ssn.res" /* pmix_data_array_t of pmix_info_t */
#endif
#ifndef PMIX_SESSION_JOB
#define PMIX_SESSION_JOB "pmix.ssn.job" /* pmix_data_array_t of pmix_info_t */
#endif
#ifndef PMIX_SESSION_APP
#define PMIX_SESSION_APP "pmix.ssn.app" /* pmix_data_array_t of pmix_app_t */
#endif
#ifndef PMIX_SESSION_PROVISION_NODES
#define PMIX_SESSION_PROVISION_NODES "pmix.ssn.pvnnds" /* char* */
#endif
#ifndef PMIX_SESSION_PROVISION_IMAGE
#define PMIX_SESSION_PROVISION_IMAGE "pmix.ssn.pvnimg" /* char* */
#endif
#ifndef PMIX_SESSION_PAUSE
#define PMIX_SESSION_PAUSE "pmix.ssn.pause" /* bool */
#endif
#ifndef PMIX_SESSION_RESUME
#define PMIX_SESSION_RESUME "pmix.ssn.resume" /* bool */
#endif
#ifndef PMIX_SESSION_TERMINATE
#define PMIX_SESSION_TERMINATE "pmix.ssn.terminate" /* bool */
#endif
#ifndef PMIX_SESSION_PREEMPT
#define PMIX_SESSION_PREEMPT "pmix.ssn.preempt" /* bool */
#endif
#ifndef PMIX_SESSION_RESTORE
#define PMIX_SESSION_RESTORE "pmix.ssn.restore" /* bool */
#endif
#ifndef PMIX_SESSION_SIGNAL
#define PMIX_SESSION_SIGNAL "pmix.ssn.sig" /* int */
#endif
#ifndef PMIX_SESSION_SEP
#define PMIX_SESSION_SEP "pmix.ssn.sep" /* bool */
#endif
#ifndef PMIX_SESSION_EXTEND
#define PMIX_SESSION_EXTEND "pmix.ssn.xtend" /* bool */
#endif
#ifndef PMIX_SESSION_COMPLETE
#define PMIX_SESSION_COMPLETE "pmix.ssn.complete" /* bool */
#endif

/* ---- Connection keys (upstream master include/pmix_common.h.in; not in 4.2.2) ------------- */

#ifndef PMIX_SERVER_SYS_CONTROLLER
#define PMIX_SERVER_SYS_CONTROLLER "pmix.srv.ctrlr" /* bool */
#endif
#ifndef PMIX_CONNECT_TO_SCHEDULER
#define PMIX_CONNECT_TO_SCHEDULER "pmix.cnct.sched" /* bool */
#endif
#ifndef PMIX_CONNECT_TO_SYS_CONTROLLER
#define PMIX_CONNECT_TO_SYS_CONTROLLER "pmix.cnct.ctrlr" /* bool */
#endif

/* ---- Status and event codes (upstream master include/pmix_common.h.in; not in 4.2.2) ------ */

#ifndef PMIX_DVM_IS_READY
#define PMIX_DVM_IS_READY -195
#endif
#ifndef PMIX_ERR_DVM_MOD
#define PMIX_ERR_DVM_MOD -196
#endif

/* ---- The project's own keys ---------------------------------------------------------------- */

/* pmixflow.ssnctrl (PMIX_UINT32: the session id). Marks a PMIx_Job_control that carries a
 * session control over 4.2.2 (pmixflow_Session_control_nb below); never sent on >= 5. */
#define PMIXFLOW_SESSION_CONTROL_MARKER "pmixflow.ssnctrl"

/* The keys the library itself puts into the info an event handler receives, beside the
 * sender's payload: the targeting and caching directives travel with the event as sent
 * (src/event/pmix_event_notification.c packs the notifier's whole array), and the receiving
 * side appends the handler's name and return object (pmix_invoke_local_event_hdlr). */
#define PMIXFLOW_LIBRARY_EVENT_KEYS \
  PMIX_EVENT_CUSTOM_RANGE, PMIX_EVENT_DO_NOT_CACHE, PMIX_EVENT_RETURN_OBJECT, PMIX_EVENT_HDLR_NAME

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a. PMIx_Session_control ----------------------------------------------------------------
 * 4.2.2 has neither PMIx_Session_control nor a session_control up-call (both in include/pmix.h
 * and include/pmix_server.h from 5.0.0; master src/common/pmix_control.c). The shim has v5's
 * signature. On >= 5 it is the native call. On 4.2.2 it is carried by
 * PMIx_Job_control_nb(NULL, 0, ...) with the directives plus one PMIXFLOW_SESSION_CONTROL_MARKER
 * item holding the session id, which a 4.2.2 server hands to its job_control up-call as given;
 * the up-call's reply comes back to cbfunc. The directives may be released once the call
 * returns. cbfunc NULL makes the call blocking (as v5 documents) and returns its status. */
pmix_status_t pmixflow_Session_control_nb(uint32_t session_id, const pmix_info_t directives[], size_t ndirs,
                                          pmix_info_cbfunc_t cbfunc, void* cbdata);

/* ---- b. Server side of (a) over 4.2.2 -------------------------------------------------------
 * For a job_control up-call's directives: true when they carry a session control, with its
 * session id and the index of the marker item, which is not one of the caller's directives
 * (skip it). False for a genuine job control. Never true on >= 5, where session controls reach
 * the session_control up-call instead. */
bool pmixflow_session_control_unwrap(const pmix_info_t info[], size_t ninfo, uint32_t* session_id,
                                     size_t* marker_index);

/* ---- c. PMIx_tool_set_server_module ---------------------------------------------------------
 * 4.2.2's PMIx_tool_init makes a tool started with PMIX_LAUNCHER=true listen for tools of its
 * own, but memsets the host module to zero (src/tool/pmix_tool.c, "setup the function
 * pointers") and offers no call to set it: no up-call ever runs. v5 added
 * PMIx_tool_set_server_module (master src/tool/pmix_tool.c), which does
 * `pmix_host_server = *module` and marks the tool a server. On >= 5 the shim is that call; on
 * 4.2.2 it makes the same assignment to the library's exported host module. The launcher bit
 * already makes 4.2.2 treat the tool as a server for its tools, while its own client calls still
 * go up to the server it is attached to (src/common/pmix_control.c, pmix_query.c:
 * PMIX_PEER_IS_SERVER && !PMIX_PEER_IS_LAUNCHER).
 * Call it right after PMIx_tool_init(PMIX_LAUNCHER=true), before any tool can connect. On
 * 4.2.2 the launcher also needs PMIX_SERVER_TOOL_SUPPORT=true at init, or it writes no
 * rendezvous file for its tools (src/mca/ptl/base/ptl_base_listener.c), and must register its
 * event handlers after attaching to its server: a registration made unconnected is never sent up
 * (src/event/pmix_event_registration.c).
 * Returns PMIX_ERR_INIT before PMIx_tool_init or when a host module is already set (as master
 * does), PMIX_ERR_BAD_PARAM for a NULL module. */
pmix_status_t pmixflow_tool_set_server_module(pmix_server_module_t* module);

#if !PMIXFLOW_PMIX_HAS_SESSION_CONTROL
/* The host module of 4.2.2's server side: a data symbol libpmix.so exports (`nm -D`: B), the
 * only global the workaround (c) touches. Not part of 4.2.2's public headers. */
extern pmix_server_module_t pmix_host_server;
#endif

/* ---- d. An event for one process -------------------------------------------------------------
 * Both versions can notify one process (PMIX_RANGE_CUSTOM + PMIX_EVENT_CUSTOM_RANGE), but the
 * event must not be cached (a server replays cached events to every tool registering later:
 * notes/pmix-4.2.2-probe.md), and the receiver sees the library's keys beside the payload.
 * pmixflow_notify_proc sends `payload` to `target` alone, with PMIX_EVENT_DO_NOT_CACHE. The
 * payload may be released once the call returns. cbfunc may be NULL.
 * 4.2.2 quirks (src/event/pmix_event_notification.c): a notifying LAUNCHER sends to all its
 * tools registered for the code whatever the range (_notify_client_event drops the targets
 * when the notifier is a tool) and then also to its own server, completing cbfunc once per
 * path; a tool receiving an event relays it the same way to its own tools. A receiver that
 * can be reached so checks pmixflow_event_is_for. */
pmix_status_t pmixflow_notify_proc(pmix_status_t code, const pmix_proc_t* source, const pmix_proc_t* target,
                                   const pmix_info_t payload[], size_t npayload, pmix_op_cbfunc_t cbfunc, void* cbdata);

/* True for one of PMIXFLOW_LIBRARY_EVENT_KEYS: not part of the sender's payload. */
bool pmixflow_event_key_is_library(const char* key);

/* True when an event's info names no custom range, or names `me` (or me's nspace with
 * PMIX_RANK_WILDCARD) in it. */
bool pmixflow_event_is_for(const pmix_info_t info[], size_t ninfo, const pmix_proc_t* me);

/* ---- e. Finalizing a tool that attached to its server ----------------------------------------
 * PMIx_tool_attach_to_server(PMIX_PRIMARY_SERVER) stores the new server's peer in the tool's
 * client array AND makes it the primary server with a single reference (src/tool/pmix_tool.c,
 * retry_attach), while PMIx_tool_finalize releases both the primary server and every array
 * entry: the peer is released twice, a use-after-free inside the library (seen as a hang in
 * PMIx_tool_finalize under AddressSanitizer, silent without it). Upstream fixed it on master
 * after 6.0.0 (retry_attach now takes the primary's own reference); no release has the fix.
 * The shim disconnects from `attached` first (PMIx_tool_disconnect takes the peer out of the
 * array and points the primary back at the tool itself, with a reference of its own), then
 * finalizes. Pass the server a PMIx_tool_attach_to_server returned, or NULL for a tool that
 * connected at init (then it is PMIx_tool_finalize). On every version: harmless where fixed. */
pmix_status_t pmixflow_tool_finalize(const pmix_proc_t* attached);

/* 4.2.2 leaves Nagle's algorithm on for every PMIx TCP connection: pmix_ptl_base_setup_socket,
 * which would set TCP_NODELAY, is never called. A message PMIx writes as a header and then a
 * body (every one) can then wait for the peer's delayed ACK - 40 ms on Linux - before its
 * body leaves: seen as hops of 40 ms among hops of 0.2 ms. This sets TCP_NODELAY on every TCP
 * socket of the process: call it once PMIx has made its sockets (after init - a listening
 * socket passes the option on to the connections it accepts - and after each attach). Sockets
 * that are not TCP are left alone. Harmless where PMIx sets it itself. */
void pmixflow_tcp_nodelay(void);

/* 4.2.2 matches a reply to its request by the tag alone (pmix_ptl_base_process_msg walks the
 * posted receives comparing tags, whoever the message came from), and every process numbers
 * its requests from the same 100 up. A process that makes requests of a server and also takes
 * requests from its own tools or clients - the scheduler, a launcher; a daemon attached to the
 * controller - takes a tool's request that carries the tag of one of its own outstanding
 * requests for that request's reply. The real reply then reaches its server side as a command,
 * which answers with an error under the same tag, which the other side takes for a command in
 * turn: two processes echoing two bytes at each other for ever, both busy, the run wedged
 * (seen at a run's start: the scheduler's event registration and a requestor's, both tag 104).
 * This moves the process's own numbering far above any tool's. Call it once, just after init,
 * before the process makes a request of its own. A no-op on other versions. */
void pmixflow_tags_apart(void);

/* 4.2.2 fails every request a tool has in flight when its primary server's connection goes,
 * whichever server the request went to (lost_connection in ptl_base_sendrecv.c completes each
 * posted receive of a dynamic tag with an empty buffer), and leaves the receives posted. Job
 * control's and spawn's callbacks free their caddies on that empty reply; when the server the
 * request really went to answers later, PMIx hands the reply to the freed caddy: seen as a
 * requestor whose session control a stopped scheduler held hanging on a freed mutex once the
 * controller, its primary server by then, died (the fault harness's seed 89). Call this from
 * the callback of every job control or spawn - on PMIx's thread, where the library calls it -
 * with the cbdata PMIx_Job_control_nb or PMIx_Spawn_nb was given: its receive takes nothing
 * more, and a late reply under its tag is dropped by the library (harmless after a real reply,
 * whose receive goes anyway). A no-op elsewhere. */
void pmixflow_disarm_reply(const void* cbdata);

#ifdef __cplusplus
}
#endif

#endif /* PMIXFLOW_EMUL_COMPAT_H */
