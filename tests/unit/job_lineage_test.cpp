// Which job spawned which, and the session a namespace names: what a reservation inherited
// CHILD waits for (docs/prrte-conformance.md R55).
#include <gtest/gtest.h>

#include "pmixflow/roles/controller/job_lineage.hpp"

namespace pmixflow {
namespace {

TEST(JobLineage, AJobsAncestryRunsFromItselfUpToTheFirstJobNobodySpawned) {
  JobLineage lineage;
  lineage.spawned("job-1.2", "job-dvm.1");
  lineage.spawned("job-1.3", "job-1.2");
  EXPECT_EQ(lineage.ancestry("job-1.3"), (std::vector<std::string>{"job-1.3", "job-1.2", "job-dvm.1"}));
  EXPECT_EQ(lineage.ancestry("job-dvm.1"), (std::vector<std::string>{"job-dvm.1"}));
  EXPECT_EQ(lineage.ancestry("tool"), (std::vector<std::string>{"tool"}));
}

TEST(JobLineage, ANamespaceNamesItsSessionOrNone) {
  EXPECT_EQ(session_of_nspace("job-12.3"), 12u);
  EXPECT_EQ(session_of_nspace("job-2147483648.1"), 2147483648u);
  EXPECT_EQ(session_of_nspace("job-dvm.1"), 0u);  // the general pool
  EXPECT_EQ(session_of_nspace("job-12"), 0u);
  EXPECT_EQ(session_of_nspace("job-.1"), 0u);
  EXPECT_EQ(session_of_nspace("alice"), 0u);
  EXPECT_EQ(session_of_nspace("job-99999999999.1"), 0u);  // not a session id
}

}  // namespace
}  // namespace pmixflow
