#pragma once

#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

// The PMIX_JOB_TERM_STATUS a PMIX_SESSION_COMPLETE carries for a job, from how it ended.
// pmixflow records the cause (a kill by order is PMIX_ERR_JOB_KILLED_BY_CMD, a time limit
// PMIX_ERR_TIMEOUT); PRRTE reports the job's state as prte_pmix_convert_job_state_to_error()
// converts it (src/pmix/pmix.c at 52d5e4bb), where an ordered kill, a time limit and a clean
// end are all the plain TERMINATED state. docs/prrte-conformance.md, rows J1-J15.
Status prrte_term_status(Status how_it_ended);

}  // namespace pmixflow
