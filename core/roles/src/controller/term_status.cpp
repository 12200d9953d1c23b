#include "pmixflow/roles/controller/term_status.hpp"

namespace pmixflow {

Status prrte_term_status(Status how_it_ended) {
  switch (how_it_ended) {
    // Every process exited 0, or was killed by the RM's own order (a TERMINATE, its owner's
    // end, the session's time limit): the job state is TERMINATED either way.
    case Status::Success:
    case Status::ErrJobKilledByCmd:
    case Status::ErrTimeout: return Status::EventJobEnd;
    case Status::ErrJobNonZeroTerm:
      return Status::ErrExitNonzeroTerm;  // NON_ZERO_TERM
    // A lost node or daemon ends its processes without the finalize sync (ABORTED_WO_SYNC).
    case Status::ErrJobAbortedBySysEvent: return Status::ErrJobTermWoSync;
    // Signalled, failed to launch, cancelled: PRRTE's state converts to the same status.
    default: return how_it_ended;
  }
}

}  // namespace pmixflow
