#!/usr/bin/env bash
# The whole-run fuzzer's long campaign: COUNT random valid scenarios (tests/sim/
# scenario_generator.hpp: every operation, several users, faults at random times and
# triggered), seeds FIRST_SEED.., each run through `pmixflow sim` and held to the run
# invariants (tests/sim/fault_property_test.cpp: exit 0, 1 or 2; every call accounted for once;
# no call answered twice; every session complete once; the log whole and in time order).
# Each failing seed is printed with the command that replays it and the scenario it made.
#
#   scripts/fuzz-runs.sh [COUNT] [FIRST_SEED]    COUNT scenarios (default 2000) from FIRST_SEED
#                                                (default 1)
# Exit status: 0 nothing found, 1 a finding, 2 bad arguments or no test binary (build it:
# ninja -C build pmixflow sim_tests).
#
# Environment:
#   PMIXFLOW_BUILD_DIR   the build holding tests/sim_tests (default: <repo>/build)
#   PMIXFLOW_FUZZ_RUNS_LOG   where the whole output goes (default: a temporary file, kept
#                            when something was found)
set -euo pipefail

name=fuzz-runs
source "$(dirname "${BASH_SOURCE[0]}")/lib/campaign.sh"
campaign_args 2000 "$@"
campaign_run scenarios sim_tests 'FaultProperty.RandomFaultsAtRandomTimesNeverBreakTheInvariants' \
  PMIXFLOW_FUZZ_RUNS_LOG "pmixflow sim_tests" PMIXFLOW_FAULT_SEEDS="$count" PMIXFLOW_FAULT_FIRST_SEED="$first"
campaign_clean PMIXFLOW_FUZZ_RUNS_LOG
