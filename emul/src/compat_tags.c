/* pmixflow_tags_apart (compat.h). C, not C++: it reads the library's own ptl state, through
 * the internal headers libpmix-dev installs, which only a C compiler takes. */
#include "pmixflow/emul/compat.h"

#if PMIX_VERSION_MAJOR == 4
#include "src/mca/ptl/base/base.h"
#endif

/* Far above any tag a tool reaches (one per request it makes) and far below the wrap. */
#define PMIXFLOW_OWN_TAGS_FROM 0x40000000u

void pmixflow_tags_apart(void) {
#if PMIX_VERSION_MAJOR == 4
  if (pmix_ptl_base.current_tag < PMIXFLOW_OWN_TAGS_FROM) pmix_ptl_base.current_tag = PMIXFLOW_OWN_TAGS_FROM;
#endif
}
