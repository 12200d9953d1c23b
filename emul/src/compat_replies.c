/* pmixflow_disarm_reply (compat.h). C, not C++: it reads the library's own ptl state, through
 * the internal headers libpmix-dev installs, which only a C compiler takes. */
#include "pmixflow/emul/compat.h"

#if PMIX_VERSION_MAJOR == 4
#include <limits.h>

#include "src/include/pmix_globals.h"
#include "src/mca/ptl/base/base.h"
#endif

void pmixflow_disarm_reply(const void* cbdata) {
#if PMIX_VERSION_MAJOR == 4
  pmix_ptl_posted_recv_t* rcv;
  PMIX_LIST_FOREACH(rcv, &pmix_ptl_base.posted_recvs, pmix_ptl_posted_recv_t) {
    if (rcv->tag < PMIX_PTL_TAG_DYNAMIC || rcv->tag == UINT_MAX || !rcv->cbfunc || !rcv->cbdata) continue;
    /* Every receive a request posts holds a PMIx object: its class says whether it is job
     * control's caddy, whose own cbdata is the caller's. */
    const pmix_object_t* caddy = (const pmix_object_t*)rcv->cbdata;
    if (caddy->obj_class != &pmix_query_caddy_t_class) continue;
    if (((const pmix_query_caddy_t*)caddy)->cbdata != cbdata) continue;
    rcv->cbfunc = NULL; /* pmix_ptl_base_process_msg drops what comes under this tag */
  }
#else
  (void)cbdata;
#endif
}
