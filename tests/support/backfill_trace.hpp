// The smallest trace on which the policies disagree, shared by the replay and diff tests.
#pragma once

namespace pmixflow::test {

// Four one-slot nodes. Job 2 needs all four and waits for job 1; job 3 fits in what is free
// and ends (by its estimate) before job 2 could start, so EASY backfills it (start 2) where
// FCFS makes it wait for job 2 (start 200). Job 4 has no estimate (field 9 is -1: its
// runtime); job 5 asks for no processor and is skipped.
inline constexpr const char* kBackfillTrace =
    "; Version: 2.2\n"
    "; MaxNodes: 4\n"
    "; MaxProcs: 4\n"
    "1 1000 0 100 2 -1 -1 2 100 -1 1 7 1 -1 1 -1 -1 -1\n"
    "2 1001 0 100 4 -1 -1 4 100 -1 1 7 1 -1 1 -1 -1 -1\n"
    "3 1002 0 50 2 -1 -1 2 50 -1 1 8 1 -1 1 -1 -1 -1\n"
    "4 1003 0 200 2 -1 -1 2 -1 -1 1 8 1 -1 1 -1 -1 -1\n"
    "5 1004 0 10 0 -1 -1 0 10 -1 1 8 1 -1 1 -1 -1 -1\n";

}  // namespace pmixflow::test
