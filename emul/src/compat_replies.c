/* pmixflow_disarm_reply (compat.h). C, not C++: it reads the library's own ptl state, through
 * the internal headers libpmix-dev installs, which only a C compiler takes. */
#include "pmixflow/emul/compat.h"

#if PMIX_VERSION_MAJOR == 4
#include <limits.h>

#include "src/include/pmix_globals.h"
#include "src/mca/ptl/base/base.h"
#include "src/server/pmix_server_ops.h"

/* What a disarmed receive does with a late reply: nothing. A receive with a callback, not
 * without one, because pmix_ptl_base_process_msg frees the reply's bytes only after calling
 * one. */
static void drop_reply(struct pmix_peer_t* peer, pmix_ptl_hdr_t* hdr, pmix_buffer_t* buf, void* cbdata) {
  (void)peer;
  (void)hdr;
  (void)buf;
  (void)cbdata;
}

/* The caller's cbdata a receive's caddy holds: job control's (and session control's, over it)
 * or spawn's; NULL for another request's. Every receive a request posts holds a PMIx object,
 * whose class says which. */
static const void* caller_of(const pmix_object_t* caddy) {
  if (caddy->obj_class == &pmix_query_caddy_t_class) return ((const pmix_query_caddy_t*)caddy)->cbdata;
  if (caddy->obj_class == &pmix_setup_caddy_t_class) return ((const pmix_setup_caddy_t*)caddy)->cbdata;
  return NULL;
}
#endif

void pmixflow_disarm_reply(const void* cbdata) {
#if PMIX_VERSION_MAJOR == 4
  pmix_ptl_posted_recv_t* rcv;
  PMIX_LIST_FOREACH(rcv, &pmix_ptl_base.posted_recvs, pmix_ptl_posted_recv_t) {
    if (rcv->tag < PMIX_PTL_TAG_DYNAMIC || rcv->tag == UINT_MAX || !rcv->cbdata) continue;
    if (caller_of((const pmix_object_t*)rcv->cbdata) != cbdata) continue;
    rcv->cbfunc = drop_reply;
    rcv->cbdata = NULL; /* the caddy the library is about to free */
  }
#else
  (void)cbdata;
#endif
}
