// The shims compat.h declares: the native OpenPMIx >= 5 call, or the 4.2.2 workaround. Each
// is a C entry point: no exception leaves it (a failure to allocate is PMIX_ERR_NOMEM).
#include "pmixflow/emul/compat.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>

#include "pmixflow/emul/open_calls.hpp"
#include "pmixflow/emul/pmix_info.hpp"

namespace {

using pmixflow::emul::PmixInfos;

// Runs `fn`, turning any exception into a PMIx status: these functions are called from C and
// from PMIx's own threads.
template <class Fn>
pmix_status_t guarded(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return PMIX_ERR_NOMEM;
  } catch (...) {
    return PMIX_ERROR;
  }
}

// A deep copy of `info` into `out[0..n)` (PMIx_Info_xfer copies nested arrays too).
pmix_status_t copy_into(PmixInfos& out, const pmix_info_t info[], std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const pmix_status_t rc = PMIx_Info_xfer(&out[i], &info[i]);
    if (rc != PMIX_SUCCESS) return rc;
  }
  return PMIX_SUCCESS;
}

#if !PMIXFLOW_PMIX_HAS_SESSION_CONTROL

// A session control in flight over PMIx_Job_control_nb: the marked directives stay alive until
// the reply (a 4.2.2 server that is not a launcher hands them to its own job_control up-call,
// which may read them until it answers).
struct SessionCall {
  PmixInfos directives;
  pmix_info_cbfunc_t cbfunc;
  void* cbdata;
};

// The session controls in flight over job control. Per process, as PMIx's own state is.
pmixflow::emul::OpenCalls<SessionCall>& session_calls() {
  static pmixflow::emul::OpenCalls<SessionCall> calls;
  return calls;
}

void session_reply(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
                   pmix_release_cbfunc_t release_fn, void* release_cbdata) {
  // Failed because a connection went, it may still be answered by its server (compat.h): that
  // reply must not reach the library's freed record of the call. After a real reply, harmless.
  pmixflow_disarm_reply(cbdata);
  const std::unique_ptr<SessionCall> call = session_calls().answer(cbdata);
  if (!call) {
    if (release_fn) release_fn(release_cbdata);
    return;
  }
  call->cbfunc(status, info, ninfo, call->cbdata, release_fn, release_cbdata);
}

pmix_status_t session_control_over_job_control(uint32_t session_id, const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_cbfunc_t cbfunc, void* cbdata) {
  PmixInfos marked(ndirs + 1);
  if (const pmix_status_t rc = copy_into(marked, directives, ndirs); rc != PMIX_SUCCESS) return rc;
  PMIX_INFO_LOAD(&marked[ndirs], PMIXFLOW_SESSION_CONTROL_MARKER, &session_id, PMIX_UINT32);
  if (!cbfunc) {  // blocking, as v5's PMIx_Session_control with no callback
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Job_control(nullptr, 0, marked.data(), marked.size(), &results, &nresults);
    const PmixInfos unread = PmixInfos::adopt(results, nresults);  // a blocking caller gets no info
    return rc;
  }
  // Open before PMIx has it: its reply may come on PMIx's thread before the call returns.
  SessionCall* call =
      session_calls().open(std::make_unique<SessionCall>(SessionCall{std::move(marked), cbfunc, cbdata}));
  const pmix_status_t rc =
      PMIx_Job_control_nb(nullptr, 0, call->directives.data(), call->directives.size(), session_reply, call);
  if (rc != PMIX_SUCCESS) session_calls().forget(call);
  return rc;
}

#else

// v5 keeps the notify's info until it completes (master src/event/pmix_event_notification.c
// threadshifts the caller's pointer): the array lives here until then.
struct NotifyCall {
  PmixInfos info;
  pmix_op_cbfunc_t cbfunc;
  void* cbdata;
};

void notify_done(pmix_status_t status, void* cbdata) {
  std::unique_ptr<NotifyCall> call(static_cast<NotifyCall*>(cbdata));
  if (call->cbfunc) call->cbfunc(status, call->cbdata);
}

#endif

// The payload, then the custom range naming `target` alone, then PMIX_EVENT_DO_NOT_CACHE.
pmix_status_t targeted_event_info(PmixInfos& out, const pmix_proc_t* target, const pmix_info_t payload[],
                                  size_t npayload) {
  out = PmixInfos(npayload + 2);
  if (const pmix_status_t rc = copy_into(out, payload, npayload); rc != PMIX_SUCCESS) return rc;
  pmix_data_array_t* range = nullptr;
  PMIX_DATA_ARRAY_CREATE(range, 1, PMIX_PROC);
  if (!range || !range->array) {
    PMIX_DATA_ARRAY_FREE(range);
    return PMIX_ERR_NOMEM;
  }
  std::memcpy(range->array, target, sizeof(pmix_proc_t));
  pmix_info_t& r = out[npayload];
  PMIX_LOAD_KEY(r.key, PMIX_EVENT_CUSTOM_RANGE);
  r.value.type = PMIX_DATA_ARRAY;
  r.value.data.darray = range;  // owned by `out` from here
  const bool yes = true;
  PMIX_INFO_LOAD(&out[npayload + 1], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
  return PMIX_SUCCESS;
}

bool proc_in(const pmix_proc_t& listed, const pmix_proc_t& me) {
  return PMIX_CHECK_NSPACE(listed.nspace, me.nspace) && (listed.rank == PMIX_RANK_WILDCARD || listed.rank == me.rank);
}

}  // namespace

extern "C" {

pmix_status_t pmixflow_Session_control_nb(uint32_t session_id, const pmix_info_t directives[], size_t ndirs,
                                          pmix_info_cbfunc_t cbfunc, void* cbdata) {
#if PMIXFLOW_PMIX_HAS_SESSION_CONTROL
  return PMIx_Session_control(session_id, directives, ndirs, cbfunc, cbdata);
#else
  if (!directives && ndirs > 0) return PMIX_ERR_BAD_PARAM;
  return guarded([&] { return session_control_over_job_control(session_id, directives, ndirs, cbfunc, cbdata); });
#endif
}

bool pmixflow_session_control_unwrap(const pmix_info_t info[], size_t ninfo, uint32_t* session_id,
                                     size_t* marker_index) {
  if (!info) return false;
  for (size_t i = 0; i < ninfo; ++i) {
    if (!PMIX_CHECK_KEY(&info[i], PMIXFLOW_SESSION_CONTROL_MARKER) || info[i].value.type != PMIX_UINT32) continue;
    if (session_id) *session_id = info[i].value.data.uint32;
    if (marker_index) *marker_index = i;
    return true;
  }
  return false;
}

pmix_status_t pmixflow_tool_set_server_module(pmix_server_module_t* module) {
#if PMIXFLOW_PMIX_HAS_SESSION_CONTROL
  return PMIx_tool_set_server_module(module);
#else
  // As master's PMIx_tool_set_server_module: refused before init, and once a module is set
  // (here: the host module is no longer all zero, as PMIx_tool_init leaves it).
  if (!PMIx_Initialized()) return PMIX_ERR_INIT;
  if (!module) return PMIX_ERR_BAD_PARAM;
  const pmix_server_module_t unset{};
  if (std::memcmp(&pmix_host_server, &unset, sizeof unset) != 0) return PMIX_ERR_INIT;
  pmix_host_server = *module;
  return PMIX_SUCCESS;
#endif
}

pmix_status_t pmixflow_tool_finalize(const pmix_proc_t* attached) {
  // A server already gone (PMIX_ERR_NOT_FOUND, or lost) is no reason not to finalize.
  if (attached) (void)PMIx_tool_disconnect(attached);
  const pmix_status_t rc = PMIx_tool_finalize();
#if !PMIXFLOW_PMIX_HAS_SESSION_CONTROL
  session_calls().clear();  // no reply comes any more
#endif
  return rc;
}

pmix_status_t pmixflow_notify_proc(pmix_status_t code, const pmix_proc_t* source, const pmix_proc_t* target,
                                   const pmix_info_t payload[], size_t npayload, pmix_op_cbfunc_t cbfunc,
                                   void* cbdata) {
  if (!target || (npayload > 0 && !payload)) return PMIX_ERR_BAD_PARAM;
  return guarded([&]() -> pmix_status_t {
    PmixInfos info;
    if (const pmix_status_t rc = targeted_event_info(info, target, payload, npayload); rc != PMIX_SUCCESS) return rc;
#if PMIXFLOW_PMIX_HAS_SESSION_CONTROL
    auto call = std::make_unique<NotifyCall>(NotifyCall{std::move(info), cbfunc, cbdata});
    const pmix_status_t rc = PMIx_Notify_event(code, source, PMIX_RANGE_CUSTOM, call->info.data(), call->info.size(),
                                               notify_done, call.get());
    if (rc == PMIX_SUCCESS) call.release();  // notify_done owns it now
    return rc;
#else
    // 4.2.2 copies the info before PMIx_Notify_event returns (pmix_server_notify_client_of_event
    // XFERs it into its caddy; pmix_notify_server_of_event packs it): `info` may go now.
    return PMIx_Notify_event(code, source, PMIX_RANGE_CUSTOM, info.data(), info.size(), cbfunc, cbdata);
#endif
  });
}

void pmixflow_tcp_nodelay(void) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (!fds) return;
  while (const dirent* e = ::readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == ::dirfd(fds)) continue;
    int domain = 0, type = 0;
    socklen_t len = sizeof domain;
    if (::getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0) continue;  // not a socket
    len = sizeof type;
    if (::getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) continue;
    if (domain != AF_INET && domain != AF_INET6) continue;
    const int on = 1;
    (void)::setsockopt(static_cast<int>(fd), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  }
  ::closedir(fds);
}

bool pmixflow_event_key_is_library(const char* key) {
  if (!key) return false;
  for (const char* library : {PMIXFLOW_LIBRARY_EVENT_KEYS})
    if (std::strncmp(key, library, PMIX_MAX_KEYLEN) == 0) return true;
  return false;
}

bool pmixflow_event_is_for(const pmix_info_t info[], size_t ninfo, const pmix_proc_t* me) {
  if (!me) return false;
  if (!info) return true;
  for (size_t i = 0; i < ninfo; ++i) {
    if (!PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) continue;
    const pmix_value_t& v = info[i].value;
    if (v.type == PMIX_PROC && v.data.proc) return proc_in(*v.data.proc, *me);
    if (v.type != PMIX_DATA_ARRAY || !v.data.darray || v.data.darray->type != PMIX_PROC) return false;
    const auto* procs = static_cast<const pmix_proc_t*>(v.data.darray->array);
    for (size_t p = 0; procs && p < v.data.darray->size; ++p)
      if (proc_in(procs[p], *me)) return true;
    return false;
  }
  return true;
}

}  // extern "C"
