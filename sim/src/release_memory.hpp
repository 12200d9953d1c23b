// Hands the memory the allocator holds free back to the system.
#pragma once

namespace pmixflow::sim {

// Called once a run's machine is gone and before its outputs are made: the allocator keeps
// freed pages for a while (jemalloc: ten seconds), so without this a large replay's outputs
// would be built beside the memory its parties held instead of in it, and its peak would be
// their sum. Purging at every free instead (jemalloc's dirty_decay_ms:0) costs about 5% of a
// replay's CPU; once, here, it costs nothing measurable.
void release_free_memory();

}  // namespace pmixflow::sim
