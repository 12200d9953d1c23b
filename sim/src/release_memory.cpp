#include "release_memory.hpp"

#if defined(PMIXFLOW_JEMALLOC)
#include <jemalloc/jemalloc.h>
#elif defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#endif

namespace pmixflow::sim {

void release_free_memory() {
#if defined(PMIXFLOW_JEMALLOC)
#define PMIXFLOW_STR2(x) #x
#define PMIXFLOW_STR(x) PMIXFLOW_STR2(x)
  // Every arena's unused dirty pages. A failure only means the memory stays with the process.
  mallctl("arena." PMIXFLOW_STR(MALLCTL_ARENAS_ALL) ".purge", nullptr, nullptr, nullptr, 0);
#undef PMIXFLOW_STR
#undef PMIXFLOW_STR2
#elif defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  malloc_trim(0);
#endif
}

}  // namespace pmixflow::sim
