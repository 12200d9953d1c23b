// The functions PMIx calls: C entry points on PMIx's own threads. Each turns what it is given
// into values and posts the rest to the host's loop; none lets an exception through.
#pragma once

#include "pmixflow/emul/compat.h"
#include "pmixflow/emul/pmix_host.hpp"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul {

// One call in flight: what the answer is for. PMIx holds its address between the call and its
// callback; OpenCalls owns it.
struct CallCtx {
  PmixHost* host;
  Address server;
  std::uint64_t id;
  MessageKind kind;
  std::string corr;
  PmixInfos info;  // kept alive until the answer (PMIx may read it until then)
  PmixApps apps;
};

struct PmixUpcalls {
  // The host PMIx calls into: the one global PMIx forces on its hosts, whose module functions
  // and event handlers carry no pointer of the host's own.
  static PmixHost*& active();

  static pmix_server_module_t module();

  static void tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t allocate(const pmix_proc_t* client, pmix_alloc_directive_t directive, const pmix_info_t* data,
                                size_t ndata, pmix_info_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t job_control(const pmix_proc_t* requestor, const pmix_proc_t targets[], size_t ntargets,
                                   const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                   void* cbdata);
  static pmix_status_t spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                             const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t register_events(pmix_status_t* codes, size_t ncodes, const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void* cbdata);
  static pmix_status_t deregister_events(pmix_status_t* codes, size_t ncodes, pmix_op_cbfunc_t cbfunc, void* cbdata);
  static void event(size_t id, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                    pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata);
  static void lost(size_t id, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                   pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata);
};

}  // namespace pmixflow::emul
